// Every dictionary must have exactly the keys of en.json (which defines them), with the same
// {{placeholders}}; the files in this folder and the console's LANGUAGES must match one to one.
// Each language words Gantry's own terms one way: glossary.json.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ErrorCodes, FieldLabels } from '@gantry/contracts';
import { DEFAULT_LANGUAGE, LANGUAGES } from '../lib/languages';

const dir = import.meta.dirname;
const GLOSSARY = 'glossary.json';
const files = fs.readdirSync(dir).filter((f) => f.endsWith('.json') && f !== GLOSSARY);

type Tree = { [key: string]: string | Tree };

/** `{ a: { b: 'x' } }` -> `{ 'a.b': 'x' }`; a value that is neither text nor object is kept as is, to be reported. */
function flatten(tree: Tree, prefix = '', out = new Map<string, unknown>()): Map<string, unknown> {
  for (const [key, value] of Object.entries(tree)) {
    const name = prefix ? `${prefix}.${key}` : key;
    if (value && typeof value === 'object' && !Array.isArray(value)) flatten(value, name, out);
    else out.set(name, value);
  }
  return out;
}

function read(file: string): Map<string, unknown> {
  return flatten(JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as Tree);
}

/** The interpolated names of a text, sorted: "{{count}} of {{- name}}" -> ["count", "name"]. */
function placeholders(text: unknown): string[] {
  if (typeof text !== 'string') return [];
  return [...text.matchAll(/\{\{-?\s*([^},\s]+)[^}]*\}\}/g)].map((m) => m[1]!).sort();
}

const en = read(`${DEFAULT_LANGUAGE}.json`);
// Languages with more plural forms than English (ru, pl: _few, _many; ...) add them beside _one/_other.
const EXTRA_PLURAL = /^(.*)_(zero|two|few|many)$/;
/** The English key whose placeholders a key must have, or undefined if English has no such key. */
function englishKey(key: string): string | undefined {
  if (en.has(key)) return key;
  const plural = EXTRA_PLURAL.exec(key);
  return plural && en.has(`${plural[1]}_other`) ? `${plural[1]}_other` : undefined;
}

describe('dictionaries', () => {
  it('exist for exactly the languages the console offers', () => {
    expect(files.map((f) => f.replace(/\.json$/, '')).sort()).toEqual(LANGUAGES.map((l) => l.code).sort());
  });

  it('English texts are all non-empty strings', () => {
    const bad = [...en].filter(([, v]) => typeof v !== 'string' || !v.trim()).map(([k]) => k);
    expect(bad).toEqual([]);
  });

  describe.each(LANGUAGES.filter((l) => l.code !== DEFAULT_LANGUAGE))('$code ($name)', ({ code }) => {
    const file = `${code}.json`;
    const load = () => {
      expect(files, `src/locales/${file} is missing`).toContain(file);
      return read(file);
    };

    it('has every key of en.json', () => {
      const dict = load();
      expect([...en.keys()].filter((k) => !dict.has(k))).toEqual([]);
    });

    it('has no key that en.json lacks (other than extra plural forms)', () => {
      const dict = load();
      expect([...dict.keys()].filter((k) => !englishKey(k))).toEqual([]);
    });

    it('has only non-empty strings', () => {
      const dict = load();
      expect([...dict].filter(([, v]) => typeof v !== 'string' || !v.trim()).map(([k]) => k)).toEqual([]);
    });

    it('keeps the {{placeholders}} of English', () => {
      const dict = load();
      const differ = [...dict]
        .filter(([k]) => englishKey(k))
        .filter(([k, v]) => placeholders(v).join() !== placeholders(en.get(englishKey(k)!)).join())
        .map(([k, v]) => `${k}: ${JSON.stringify(v)}`);
      expect(differ).toEqual([]);
    });

    it('is translated, not a copy of English', () => {
      const dict = load();
      // Product names, commands and the like stay the same; most texts do not.
      const same = [...en].filter(([k, v]) => dict.get(k) === v).length;
      expect(same / en.size, `${same} of ${en.size} texts are the English ones`).toBeLessThan(0.5);
    });
  });
});

interface GlossaryTerm {
  /** The English term (its stem when it inflects): a text whose English has it is about the term. */
  english: string;
  /** Labels that name the term: each must use the language's word. */
  keys: string[];
  /** The word per language; with `match` (a regular expression) when the word inflects. */
  translations: Record<string, string | { word: string; match: string }>;
  /** Competing translations once found, which no text about the term may use again. */
  avoid?: Record<string, string[]>;
  /** Texts whose English has the term in another sense (e.g. a task's own working folder). */
  notTheTermIn?: string[];
}

const glossary = (JSON.parse(fs.readFileSync(path.join(dir, GLOSSARY), 'utf8')) as { terms: Record<string, GlossaryTerm> }).terms;
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('glossary: one word per term and language', () => {
  const terms = Object.entries(glossary);

  it('covers every language but English, and lists labels that exist', () => {
    for (const [term, g] of terms) {
      expect(Object.keys(g.translations).sort(), term).toEqual(LANGUAGES.filter((l) => l.code !== DEFAULT_LANGUAGE).map((l) => l.code).sort());
      expect(g.keys.filter((k) => !en.has(k)), `${term}: keys missing from en.json`).toEqual([]);
      const english = new RegExp(`\\b${escape(g.english)}`, 'i');
      expect(g.keys.filter((k) => !english.test(String(en.get(k)))), `${term}: keys whose English lacks "${g.english}"`).toEqual([]);
    }
  });

  describe.each(LANGUAGES.filter((l) => l.code !== DEFAULT_LANGUAGE))('$code', ({ code }) => {
    const dict = read(`${code}.json`);

    it("the labels of each term use the glossary's word", () => {
      const off: string[] = [];
      for (const [term, g] of terms) {
        const t = g.translations[code]!;
        const word = typeof t === 'string' ? new RegExp(escape(t), 'iu') : new RegExp(t.match, 'iu');
        for (const key of g.keys) if (!word.test(String(dict.get(key)))) off.push(`${term} → ${key}: ${JSON.stringify(dict.get(key))}`);
      }
      expect(off).toEqual([]);
    });

    it('no text about a term uses a competing word', () => {
      const off: string[] = [];
      for (const [term, g] of terms) {
        const avoid = (g.avoid?.[code] ?? []).map((a) => new RegExp(a, 'iu'));
        if (!avoid.length) continue;
        const english = new RegExp(`\\b${escape(g.english)}`, 'i');
        for (const [key, text] of en) {
          if (!english.test(String(text)) || g.notTheTermIn?.includes(key)) continue;
          const value = String(dict.get(key));
          const found = avoid.find((a) => a.test(value));
          if (found) off.push(`${term} → ${key}: ${JSON.stringify(value)} uses ${found.source}`);
        }
      }
      expect(off).toEqual([]);
    });
  });
});

// Every refusal of the API carries a stable code (contracts' ErrorCodes) that the console words as
// `errors.<code>`, naming a field through `fieldLabels.<label_key>`; the placeholders of each
// translation are English's (checked above for every key).
describe('error codes', () => {
  const codes = Object.values(ErrorCodes);

  describe.each(LANGUAGES)('$code', ({ code }) => {
    const dict = read(`${code}.json`);

    it('words every error code', () => {
      expect(codes.filter((c) => typeof dict.get(`errors.${c}`) !== 'string')).toEqual([]);
    });

    it('words every field label a refusal may name', () => {
      expect(Object.keys(FieldLabels).filter((k) => typeof dict.get(`fieldLabels.${k}`) !== 'string')).toEqual([]);
    });

    it('nests nothing but a field label', () => {
      const nested = [...dict].filter(([, v]) => typeof v === 'string' && v.includes('$t(') && !/^[^$]*\$t\(fieldLabels\.\{\{label_key\}\}\)[^$]*$/.test(v));
      expect(nested.map(([k]) => k)).toEqual([]);
    });
  });

  it("English words the field labels as the server's messages do", () => {
    const differ = Object.entries(FieldLabels).filter(([k, label]) => en.get(`fieldLabels.${k}`) !== label);
    expect(differ).toEqual([]);
  });
});
