import { describe, expect, it } from 'vitest';
import { compileLinearPattern } from './linear-pattern.js';

describe('parameter patterns on the server', () => {
  it('match the whole answer', () => {
    const re = compileLinearPattern('[a-z]+')!;
    expect(re.test('abc')).toBe(true);
    expect(re.test('abc1')).toBe(false);
    expect(compileLinearPattern('a|b')!.test('ab')).toBe(false);
  });

  it('run in linear time on a pattern that backtracks exponentially in JavaScript', () => {
    const re = compileLinearPattern('(a+)+b')!;
    const started = performance.now();
    expect(re.test('a'.repeat(20_000) + 'c')).toBe(false);
    // JavaScript's engine would take longer than the universe's age here; RE2 answers at once.
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('do not compile backreferences or lookaround', () => {
    expect(compileLinearPattern('(a)\\1')).toBeNull();
    expect(compileLinearPattern('(?=a)a')).toBeNull();
    expect(compileLinearPattern('[')).toBeNull();
  });
});
