// How many keys change channel when a plan's layout changes: shared by expand
// (the partition count grows) and rewidth (the width changes, so base = target).

/**
 * Exact share of keys whose channel changes, for uniformly spread hashes h:
 * before, channel = old[h mod base]; after, channel = next[h mod target]. The
 * pairs (h mod base, h mod target) that occur are those congruent mod g =
 * gcd(base, target), all equally often (CRT, the arithmetic of src/expansion),
 * so count per residue class how many base slots share each channel.
 */
export function keysChangingChannel(old: Int32Array, base: number, next: Int32Array, target: number, g: number): number {
  if (base === target) {
    // g = base: each partition keeps its own keys, so the share is the share of partitions that move.
    let moved = 0;
    for (let p = 0; p < base; p++) if (old[p] !== next[p]) moved++;
    return moved / base;
  }
  const inClass = new Map<number, number>();
  let w = 0;
  for (let a = 0; a < base; a++) w = Math.max(w, old[a]! + 1);
  for (let q = 0; q < target; q++) w = Math.max(w, next[q]! + 1);
  for (let a = 0; a < base; a++) {
    const key = (a % g) * w + old[a]!;
    inClass.set(key, (inClass.get(key) ?? 0) + 1);
  }
  let stay = 0;
  for (let q = 0; q < target; q++) stay += inClass.get((q % g) * w + next[q]!) ?? 0;
  return 1 - stay / (target * (base / g));
}
