// Non-negative int32s written as decimal ASCII bytes, for the planner's byte outputs (task names,
// the JobModel JSON): no string per number.

/** "00".."99": digits are written two per division. */
const DIGIT_PAIRS = Uint8Array.from(Array.from({ length: 100 }, (_, i) => String(i).padStart(2, '0')).join(''), (c) => c.charCodeAt(0));

/** How many decimal digits v (0 <= v <= 2^31-1) has. */
export function decimalLength(v: number): number {
  return v < 10 ? 1 : v < 100 ? 2 : v < 1e3 ? 3 : v < 1e4 ? 4 : v < 1e5 ? 5 : v < 1e6 ? 6 : v < 1e7 ? 7 : v < 1e8 ? 8 : v < 1e9 ? 9 : 10;
}

/** Writes v (0 <= v <= 2^31-1) in decimal at `pos`; returns the position after it. */
export function putDecimal(buf: Uint8Array, pos: number, v: number): number {
  const end = pos + decimalLength(v);
  let at = end;
  // Integer division by 100 with `| 0`: exact below 2^31, and no Math.floor per digit.
  while (v >= 100) {
    const rest = (v / 100) | 0;
    const d = (v - rest * 100) << 1;
    buf[--at] = DIGIT_PAIRS[d + 1]!;
    buf[--at] = DIGIT_PAIRS[d]!;
    v = rest;
  }
  if (v >= 10) {
    buf[--at] = DIGIT_PAIRS[(v << 1) + 1]!;
    buf[--at] = DIGIT_PAIRS[v << 1]!;
  } else buf[--at] = 48 + v;
  return end;
}
