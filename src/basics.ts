// Two facts of Java that every layer needs, defined once, below everything (even errors.ts).

/** Java's Integer.MAX_VALUE: the most partitions a topic can have, and the bound of most counts we read. */
export const INT32_MAX = 2147483647;

/** Java's String.compareTo: by UTF-16 code units, which is what JavaScript's `<` compares. */
export const byCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
