/**
 * A template's ordered ids (variable groups or inventories) from its row: the stored JSON list
 * with `first` (environment_id / inventory_id) always first. `first` is the one Semaphore's
 * clients and older code read and write, so it wins when the two disagree; an unreadable or absent
 * list (rows before migration 034) is `first` alone, and no `first` means no list at all.
 */
export function templateIdList(first: number | null | undefined, stored: string | null | undefined): number[] {
  if (!first) return [];
  let list: unknown = [];
  try {
    list = JSON.parse(stored || '[]');
  } catch {
    list = [];
  }
  const rest = Array.isArray(list)
    ? list.filter((x): x is number => Number.isInteger(x) && (x as number) > 0 && x !== first)
    : [];
  return [first, ...new Set(rest)];
}
