// What every layer needs, defined once, below everything (even errors.ts): three facts of Java,
// the one way a share is written as a percentage, and one item-by-item array comparison.

/** Java's Integer.MAX_VALUE: the most partitions a topic can have, and the bound of most counts we read. */
export const INT32_MAX = 2147483647;
/** Java's Integer.MIN_VALUE. */
export const INT32_MIN = -2147483648;

/** Java's String.hashCode: the UTF-16 code units as a base-31 number, in 32 bits. */
export function javaStringHash(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) | 0;
  return h;
}

/** Java's String.compareTo: by UTF-16 code units, which is what JavaScript's `<` compares. */
export const byCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Whether two arrays hold the same items (===), index for index. */
export function sameItems<T>(a: ArrayLike<T>, b: ArrayLike<T>): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * A share as a percentage, for every message and report that states one: whole percents bare
 * ("25%"), others to two decimals ("33.33%"); with `digits`, always that many decimals ("12.5%" at 1).
 * `of` divides after scaling, (100 * part) / of, so an exact fraction keeps its whole percents:
 * 100 * 7 / 100 is 7, where 100 * (7 / 100) is 7.000000000000001.
 */
export function formatPercent(part: number, options: { of?: number; digits?: number } = {}): string {
  const p = (100 * part) / (options.of ?? 1);
  if (options.digits !== undefined) return `${p.toFixed(options.digits)}%`;
  return `${Number.isInteger(p) ? p : p.toFixed(2)}%`;
}
