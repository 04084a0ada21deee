// Channel-plan kernels (issue 4): the pure-TS twin, written
// for obviousness. assembly/channels.ts must agree with this file exactly.

import { STRATEGY_CONTIGUOUS, type ChannelGrouping, type ChannelKernels } from '../abi.js';

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
