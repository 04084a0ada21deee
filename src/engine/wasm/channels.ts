// WASM binding of the channel kernels (assembly/channels.ts): copies in, calls, copies out.
import type { WasmCore } from '../core.js';
import type { ChannelKernels } from '../abi.js';

interface ChannelExports {
  channelPlan(strategy: number, n: number, w: number, start: number, out: number): void;
  /** Writes channelOf (n), offsets (w + 1) and members (n) to `out`, one after the other. */
  channelLayout(strategy: number, n: number, w: number, start: number, out: number): void;
  channelGroup(channelOf: number, n: number, w: number, offsets: number, members: number): void;
  /** Writes state (n), perChannel (w) and the summary (4) to `out`, one after the other. */
  channelValidate(start: number, partitions: number, n: number, w: number, out: number): void;
}

export function wasmChannels(core: WasmCore): ChannelKernels {
  const raw = core.raw as unknown as ChannelExports;
  return {
    channelPlan(strategy, n, w, start) {
      core.begin();
      const out = core.alloc(n * 4);
      raw.channelPlan(strategy, n, w, start, out);
      return core.takeI32(out, n);
    },
    channelLayout(strategy, n, w, start) {
      core.begin();
      const out = core.alloc((2 * n + w + 1) * 4);
      raw.channelLayout(strategy, n, w, start, out);
      const op = out + n * 4;
      return { channelOf: core.takeI32(out, n), offsets: core.takeI32(op, w + 1), members: core.takeI32(op + (w + 1) * 4, n) };
    },
    channelGroup(channelOf, w) {
      const n = channelOf.length;
      core.begin();
      const cp = core.put(channelOf);
      const op = core.alloc((w + 1) * 4);
      const mp = core.alloc(n * 4);
      raw.channelGroup(cp, n, w, op, mp);
      return { offsets: core.takeI32(op, w + 1), members: core.takeI32(mp, n) };
    },
    channelValidate(start, partitions, n) {
      const w = start.length - 1;
      core.begin();
      const cp = core.put(start);
      const pp = core.put(partitions);
      const op = core.alloc((n + w + 4) * 4);
      raw.channelValidate(cp, pp, n, w, op);
      const s = core.i32(op + (n + w) * 4, 4);
      const [outOfRange, missing, duplicated, repeats] = [s[0]!, s[1]!, s[2]!, s[3]!];
      return { state: core.takeI32(op, n), perChannel: core.takeI32(op + n * 4, w), outOfRange, missing, duplicated, repeats };
    },
  };
}
