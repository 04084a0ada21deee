// Channel-plan kernels (issue 4): the interface and its pure-TS twin, written
// for obviousness. assembly/channels.ts must agree with this file exactly.

/** Strategy codes of `channelPlan`. Round-robin and flink both rotate; they differ only in `start`. */
export const STRATEGY_CONTIGUOUS = 0;
export const STRATEGY_ROTATE = 1;

export interface ChannelGrouping {
  /** w + 1 entries: channel c's partitions are members[offsets[c] .. offsets[c + 1]). */
  offsets: Int32Array;
  /** n entries: the partitions, ascending within each channel. */
  members: Int32Array;
}

export interface ChannelCheck {
  /**
   * state[p]: 0 when no channel lists partition p, c + 1 when only channel c
   * does, -(c + 1) when two or more do (c the last one listed).
   */
  state: Int32Array;
  /** perChannel[c]: how many distinct in-range partitions channel c lists. */
  perChannel: Int32Array;
  /** Entries whose partition is outside [0, n). */
  outOfRange: number;
  /** Partitions no channel lists. */
  missing: number;
  /** Partitions two or more channels list. */
  duplicated: number;
  /** Entries repeating a partition already listed by the same channel (the `4, 4` padding). */
  repeats: number;
}

export interface ChannelKernels {
  /**
   * channelOf[p] for p in [0, n). STRATEGY_CONTIGUOUS: blocks, the first n % w
   * one larger. STRATEGY_ROTATE: (start + p) % w, with 0 <= start < w.
   */
  channelPlan(strategy: number, n: number, w: number, start: number): Int32Array;
  /** channelPlan plus its grouping by channel, computed directly (no sort). */
  channelLayout(strategy: number, n: number, w: number, start: number): { channelOf: Int32Array } & ChannelGrouping;
  /** Counting sort of partitions by channel; every channelOf entry must be in [0, w). */
  channelGroup(channelOf: Int32Array, w: number): ChannelGrouping;
  /**
   * Checks channel lists against a topic of n partitions: channel c lists
   * partitions[start[c] .. start[c + 1]) (start has w + 1 ascending offsets);
   * the ids may be anything.
   */
  channelValidate(start: Int32Array, partitions: Int32Array, n: number): ChannelCheck;
}

export function referenceChannels(): ChannelKernels {
  return {
    channelPlan(strategy, n, w, start) {
      const out = new Int32Array(n);
      if (strategy === STRATEGY_CONTIGUOUS) {
        const q = Math.floor(n / w);
        const r = n % w;
        const bigEnd = r * (q + 1); // partitions below this sit in the larger blocks
        for (let p = 0; p < n; p++) out[p] = p < bigEnd ? Math.floor(p / (q + 1)) : r + Math.floor((p - bigEnd) / q);
      } else {
        for (let p = 0; p < n; p++) out[p] = (start + p) % w;
      }
      return out;
    },
    channelGroup(channelOf, w) {
      const n = channelOf.length;
      const offsets = new Int32Array(w + 1);
      for (let p = 0; p < n; p++) offsets[channelOf[p]! + 1]!++;
      for (let c = 0; c < w; c++) offsets[c + 1]! += offsets[c]!;
      const cursor = offsets.slice(0, w);
      const members = new Int32Array(n);
      for (let p = 0; p < n; p++) members[cursor[channelOf[p]!]!++] = p;
      return { offsets, members };
    },
    channelLayout(strategy, n, w, start) {
      const channelOf = this.channelPlan(strategy, n, w, start);
      return { channelOf, ...this.channelGroup(channelOf, w) };
    },
    channelValidate(start, partitions, n) {
      const w = start.length - 1;
      const state = new Int32Array(n);
      const perChannel = new Int32Array(w);
      let outOfRange = 0;
      let repeats = 0;
      for (let c = 0; c < w; c++) {
        for (let i = start[c]!; i < start[c + 1]!; i++) {
          const p = partitions[i]!;
          if (p < 0 || p >= n) outOfRange++;
          else if (Math.abs(state[p]!) === c + 1) repeats++;
          else {
            state[p] = state[p] === 0 ? c + 1 : -(c + 1);
            perChannel[c]!++;
          }
        }
      }
      let missing = 0;
      let duplicated = 0;
      for (let p = 0; p < n; p++) {
        if (state[p] === 0) missing++;
        else if (state[p]! < 0) duplicated++;
      }
      return { state, perChannel, outOfRange, missing, duplicated, repeats };
    },
  };
}
