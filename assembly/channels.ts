// Channel-plan kernels (issue 4). Pointer ABI: flat i32 arrays in linear memory,
// allocated by the TypeScript engine. Arena memory is not zeroed between calls,
// so every output is written in full here.
export const CHANNEL_KERNELS_VERSION: i32 = 1;

/** Strategy codes shared with src/engine/reference/channels.ts. */
export const STRATEGY_CONTIGUOUS: i32 = 0;
export const STRATEGY_ROTATE: i32 = 1; // round-robin (start 0) and flink (start from the topic hash)

/**
 * out[p] = channel of partition p, p in [0, n).
 * Contiguous: blocks of n / w, the first n % w channels one larger.
 * Rotate: (start + p) % w, stepped without a division per partition.
 */
export function channelPlan(strategy: i32, n: i32, w: i32, start: i32, out: usize): void {
  if (strategy == STRATEGY_CONTIGUOUS) {
    const q = n / w;
    const r = n % w;
    let p = 0;
    for (let c = 0; c < w && p < n; c++) {
      const end = p + (c < r ? q + 1 : q);
      for (; p < end; p++) store<i32>(out + (<usize>p << 2), c);
    }
    return;
  }
  let c = start;
  for (let p = 0; p < n; p++) {
    store<i32>(out + (<usize>p << 2), c);
    c++;
    if (c == w) c = 0;
  }
}

/**
 * The whole layout of a strategy in one pass of sequential writes, into `out`, one after the
 * other: channelOf (n, as channelPlan), offsets (w + 1) and members (n): channel c's partitions,
 * ascending, are members[offsets[c] .. offsets[c + 1]).
 */
export function channelLayout(strategy: i32, n: i32, w: i32, start: i32, out: usize): void {
  const channelOf = out;
  const offsets = channelOf + (<usize>n << 2);
  const members = offsets + (<usize>(w + 1) << 2);
  channelPlan(strategy, n, w, start, channelOf);
  if (strategy == STRATEGY_CONTIGUOUS) {
    const q = n / w;
    const r = n % w;
    for (let c = 0; c <= w; c++) store<i32>(offsets + (<usize>c << 2), c * q + (c < r ? c : r));
    for (let p = 0; p < n; p++) store<i32>(members + (<usize>p << 2), p);
    return;
  }
  // Rotate: channel c owns f, f + w, f + 2w, ... with f = (c - start) mod w.
  let k = 0;
  for (let c = 0; c < w; c++) {
    store<i32>(offsets + (<usize>c << 2), k);
    for (let p = c >= start ? c - start : c - start + w; p < n; p += w) {
      store<i32>(members + (<usize>k << 2), p);
      k++;
    }
  }
  store<i32>(offsets + (<usize>w << 2), k);
}

/**
 * Counting sort of partitions by channel: channel c's partitions, ascending, are
 * members[offsets[c] .. offsets[c + 1]). Every channelOf entry must be in [0, w).
 */
export function channelGroup(channelOf: usize, n: i32, w: i32, offsets: usize, members: usize): void {
  memory.fill(offsets, 0, <usize>(w + 1) << 2);
  for (let p = 0; p < n; p++) {
    const slot = offsets + (<usize>(load<i32>(channelOf + (<usize>p << 2)) + 1) << 2);
    store<i32>(slot, load<i32>(slot) + 1);
  }
  for (let c = 0; c < w; c++) {
    const at = offsets + (<usize>(c + 1) << 2);
    store<i32>(at, load<i32>(at) + load<i32>(at - 4));
  }
  // offsets[c] doubles as channel c's write cursor, then is restored by one shift.
  for (let p = 0; p < n; p++) {
    const at = offsets + (<usize>load<i32>(channelOf + (<usize>p << 2)) << 2);
    const k = load<i32>(at);
    store<i32>(members + (<usize>k << 2), p);
    store<i32>(at, k + 1);
  }
  for (let c = w; c > 0; c--) store<i32>(offsets + (<usize>c << 2), load<i32>(offsets + (<usize>(c - 1) << 2)));
  store<i32>(offsets, 0);
}

/**
 * Checks a hand-written plan given as the channels' lists laid end to end:
 * channel c's entries are partitions[start[c] .. start[c + 1]) (w + 1 offsets).
 * state[p]: 0 when no channel lists p, c + 1 when only channel c does, -(c + 1)
 * when two or more do (c the last). perChannel[c] = distinct in-range partitions
 * of c. A partition repeated inside one channel (the `4, 4` padding) counts once,
 * as the toolkit's HashSet does. summary = [outOfRange, missing, duplicated, repeats].
 * The three are written to `out`, one after the other: state (n), perChannel (w), summary (4).
 */
export function channelValidate(start: usize, partitions: usize, n: i32, w: i32, out: usize): void {
  const state = out;
  const perChannel = state + (<usize>n << 2);
  const summary = perChannel + (<usize>w << 2);
  memory.fill(state, 0, <usize>n << 2);
  let outOfRange = 0;
  let repeats = 0;
  for (let c = 0; c < w; c++) {
    const mine = c + 1;
    const end = load<i32>(start + (<usize>mine << 2));
    let distinct = 0;
    for (let i = load<i32>(start + (<usize>c << 2)); i < end; i++) {
      const p = load<i32>(partitions + (<usize>i << 2));
      if (<u32>p >= <u32>n) {
        outOfRange++;
        continue;
      }
      const at = state + (<usize>p << 2);
      const s = load<i32>(at);
      if (s == mine || s == -mine) {
        repeats++;
        continue;
      }
      store<i32>(at, s == 0 ? mine : -mine);
      distinct++;
    }
    store<i32>(perChannel + (<usize>c << 2), distinct);
  }
  let missing = 0;
  let duplicated = 0;
  for (let p = 0; p < n; p++) {
    const s = load<i32>(state + (<usize>p << 2));
    if (s == 0) missing++;
    else if (s < 0) duplicated++;
  }
  store<i32>(summary, outOfRange);
  store<i32>(summary, missing, 4);
  store<i32>(summary, duplicated, 8);
  store<i32>(summary, repeats, 12);
}
