import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '..');

/** The server's own code (tests, test helpers and the start-up configuration, which answers no request, aside). */
function sourceFiles(dir = root): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return ['test', 'config'].includes(e.name) && dir === root ? [] : sourceFiles(p);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [p] : [];
  });
}

const ERRORS = new Set([
  'AppError',
  'ValidationError',
  'NotFoundError',
  'ConflictError',
  'ForbiddenError',
  'UnauthorizedError',
  'TooManyRequestsError',
]);
/** Where the details (`{ code, ... }`) go: AppError takes the status first. */
const detailsAt = (name: string) => (name === 'AppError' ? 2 : 1);
/** These two word the common case themselves ("Forbidden", "Not authenticated") when given nothing. */
const DEFAULTED = new Set(['ForbiddenError', 'UnauthorizedError']);

/** Whether an argument gives a code: an object literal with `code` (or a spread), or a value built elsewhere (checked by its type). */
function givesCode(arg: ts.Expression | undefined): boolean {
  if (!arg) return false;
  if (!ts.isObjectLiteralExpression(arg)) return true;
  return arg.properties.some(
    (p) => ts.isSpreadAssignment(p) || (p.name && ts.isIdentifier(p.name) && p.name.text === 'code'),
  );
}

const isText = (e: ts.Expression) =>
  ts.isStringLiteral(e) ||
  ts.isNoSubstitutionTemplateLiteral(e) ||
  ts.isTemplateExpression(e) ||
  ts.isIdentifier(e) ||
  ts.isPropertyAccessExpression(e);

/** Error paths of one file without a stable code. */
function uncoded(file: string): string[] {
  const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const report = (node: ts.Node) => {
    const { line } = source.getLineAndCharacterOfPosition(node.getStart());
    found.push(`${path.relative(root, file)}:${line + 1}: ${node.getText().split('\n')[0]}`);
  };
  const visit = (node: ts.Node): void => {
    // new ValidationError('...', { code, ... }) and the others.
    if (ts.isNewExpression(node) && ts.isIdentifier(node.expression) && ERRORS.has(node.expression.text)) {
      const name = node.expression.text;
      const args = node.arguments ?? [];
      if (!(args.length === 0 && DEFAULTED.has(name)) && !givesCode(args[detailsAt(name)])) report(node);
    }
    // Errors of their own (`class StateLockedError extends AppError`): their super call gives the code.
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.SuperKeyword) {
      const cls = node.parent.parent?.parent?.parent;
      const base =
        cls && ts.isClassDeclaration(cls) ? cls.heritageClauses?.[0]?.types[0]?.expression.getText() : undefined;
      if (base && ERRORS.has(base) && !givesCode(node.arguments[detailsAt(base)])) report(node);
    }
    // A body sent by hand (`reply.send({ error: ... })`) and a zod rule's own text (`{ error: '...' }`)
    // carry a code too: `code` beside the text, or the rule's `params` (contracts' `coded()`).
    if (ts.isObjectLiteralExpression(node) && ts.isCallExpression(node.parent)) {
      const callee = node.parent.expression;
      const name = ts.isPropertyAccessExpression(callee)
        ? callee.name.text
        : ts.isIdentifier(callee)
          ? callee.text
          : '';
      const members = node.properties.map((p) => (p.name && ts.isIdentifier(p.name) ? p.name.text : ''));
      const text = node.properties.find(
        (p): p is ts.PropertyAssignment =>
          ts.isPropertyAssignment(p) &&
          ts.isIdentifier(p.name) &&
          ['error', 'message'].includes(p.name.text) &&
          isText(p.initializer),
      );
      const coded =
        members.includes('code') || members.includes('params') || node.properties.some((p) => ts.isSpreadAssignment(p));
      if (text && !coded && name !== 'stringify' && !/^(log|warn|info|error|debug|trace|fatal|record|push)$/.test(name))
        report(node);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('error answers carry a stable code', () => {
  it('every error the server throws or sends names its code', () => {
    expect(sourceFiles().flatMap(uncoded)).toEqual([]);
  });

  it('the scan finds an error path without one', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gantry-scan-'));
    try {
      const file = path.join(dir, 'x.ts');
      fs.writeFileSync(
        file,
        [
          "throw new NotFoundError('Thing not found', { field: 'id' });",
          "throw new AppError(409, 'Busy', {});",
          "reply.status(400).send({ error: 'Nope' });",
          "z.string({ error: 'Name is required' });",
          "throw new ValidationError('Fine', { code: ErrorCodes.badRequest });",
          'throw new ForbiddenError();',
        ].join('\n'),
      );
      expect(uncoded(file).map((l) => l.replace(/^.*x\.ts:/, ''))).toEqual([
        "1: new NotFoundError('Thing not found', { field: 'id' })",
        "2: new AppError(409, 'Busy', {})",
        "3: { error: 'Nope' }",
        "4: { error: 'Name is required' }",
      ]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
