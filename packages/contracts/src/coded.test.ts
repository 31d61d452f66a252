import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { FieldLabels, issueCode } from './coded.js';
import { ErrorCodes } from './errors.js';
import { projectCreateSchema } from './projects.js';
import { repositoryInputSchema } from './repositories.js';
import { TASK_OUTPUT_MAX_PAGE_SIZE, taskOutputQuerySchema } from './task-output.js';
import { environmentInputSchema } from './environments.js';
import { appUpdateSchema } from './apps.js';

const dir = import.meta.dirname;

/**
 * Every message a rule of this package may refuse with: an `error` or `message` member (text,
 * template or a name bound to one) of an object literal that carries no `params` or `code`
 * beside it. Such a message would reach the API, and the console, without a stable code.
 */
function uncodedMessages(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isObjectLiteralExpression(node)) {
      const names = node.properties.map((p) => (p.name && ts.isIdentifier(p.name) ? p.name.text : ''));
      const spreads = node.properties.some((p) => ts.isSpreadAssignment(p));
      for (const p of node.properties) {
        if (!ts.isPropertyAssignment(p) || !ts.isIdentifier(p.name) || !['error', 'message'].includes(p.name.text))
          continue;
        const v = p.initializer;
        // Shapes (`error: z.string()`) and functions are not messages.
        if (ts.isCallExpression(v) || ts.isArrowFunction(v) || ts.isFunctionExpression(v)) continue;
        if (names.includes('params') || names.includes('code') || spreads) continue;
        const { line } = source.getLineAndCharacterOfPosition(p.getStart());
        found.push(`${path.basename(file)}:${line + 1}: ${p.getText()}`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('coded refusals', () => {
  it('every message of a contracts rule carries a stable code', () => {
    const files = fs.readdirSync(dir).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'));
    expect(files.flatMap((f) => uncodedMessages(path.join(dir, f)))).toEqual([]);
  });

  it('built-in checks, which drop params, are found by their text', () => {
    const name = projectCreateSchema.safeParse({ name: '' }).error?.issues[0];
    expect(name?.message).toBe('Project name is required');
    expect(name && 'params' in name).toBe(false);
    expect(issueCode(name)).toEqual({ code: 'field_required', label_key: 'project_name' });

    const limit = taskOutputQuerySchema.safeParse({ limit: '0' }).error?.issues[0];
    expect(issueCode(limit)).toEqual({
      code: 'out_of_range',
      label_key: 'limit',
      min: 1,
      max: TASK_OUTPUT_MAX_PAGE_SIZE,
    });

    const priority = appUpdateSchema.safeParse({ title: 't', path: 'x', priority: 'high' }).error?.issues[0];
    expect(issueCode(priority)).toMatchObject({ code: 'out_of_range', label_key: 'priority' });
  });

  it('rules added while parsing carry their code and what words them in params', () => {
    const branch = repositoryInputSchema.safeParse({
      name: 'r',
      git_url: 'https://x/y.git',
      git_branch: '',
      ssh_key_id: 1,
    }).error?.issues[0];
    expect(branch).toMatchObject({
      message: 'Branch is required',
      params: { code: 'field_required', label_key: 'branch' },
    });
    const env = environmentInputSchema.safeParse({ name: 'g', env: '{"LD_PRELOAD":"x"}' }).error?.issues[0];
    expect(issueCode(env)).toEqual({ code: 'variable_reserved', variable: 'LD_PRELOAD' });
  });

  it("zod's own texts have no code (the server answers `invalid_value` for them)", () => {
    expect(issueCode({ message: 'Invalid input: expected string, received number' })).toBeUndefined();
  });

  it('codes are snake_case and unique; label keys are snake_case', () => {
    const codes = Object.values(ErrorCodes);
    expect(codes.filter((c) => !/^[a-z]+(_[a-z]+)*$/.test(c))).toEqual([]);
    expect(new Set(codes).size).toBe(codes.length);
    expect(Object.keys(FieldLabels).filter((k) => !/^[a-z]+(_[a-z]+)*$/.test(k))).toEqual([]);
  });
});
