import { describe, expect, it } from 'vitest';
import { templateIdList } from '../../db/template-lists.js';
import { resolveList } from './template-lists.js';

describe('resolveList: the list a template is saved with', () => {
  it('takes a given non-empty list as it is', () => {
    expect(resolveList(1, [3, 1, 2], [1, 2])).toEqual([3, 1, 2]);
  });

  it('keeps the stored list for a client that sends only its first id', () => {
    expect(resolveList(1, undefined, [1, 2, 3])).toEqual([1, 2, 3]);
    expect(resolveList(1, null, [1, 2, 3])).toEqual([1, 2, 3]);
  });

  it('replaces it with the single id when that id is another one, or the list is given empty', () => {
    expect(resolveList(2, undefined, [1, 2, 3])).toEqual([2]);
    expect(resolveList(1, [], [1, 2, 3])).toEqual([1]);
    expect(resolveList(null, undefined, [1, 2])).toEqual([]);
  });
});

describe('templateIdList: the list read from a row', () => {
  it('is the first id alone for rows before the list existed, and nothing without a first', () => {
    expect(templateIdList(4, null)).toEqual([4]);
    expect(templateIdList(null, '[1, 2]')).toEqual([]);
  });

  it('always starts with the first id, without duplicates or junk', () => {
    expect(templateIdList(2, '[1, 2, 3]')).toEqual([2, 1, 3]);
    expect(templateIdList(1, '[1, 3, 3, "x", -1, 2.5]')).toEqual([1, 3]);
    expect(templateIdList(1, 'not json')).toEqual([1]);
  });
});
