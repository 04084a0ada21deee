// WASM binding of the streams actives (assembly/streams.ts): the problem's arrays and its header
// (STREAMS_HEADER) into the arena, one call, the owners copied out.
import type { WasmCore } from '../core.js';
import { STREAMS_HEADER as H, STREAMS_HEADER_BYTES, type StreamsActivesProblem, type StreamsKernels } from '../abi.js';

interface StreamsExports {
  streamsActives(header: number): number;
}

export function wasmStreams(core: WasmCore): StreamsKernels {
  const raw = core.raw as unknown as StreamsExports;
  return {
    streamsActives(p: StreamsActivesProblem): Int32Array {
      const P = p.processStart.length - 1;
      core.begin();
      const header = core.alloc(STREAMS_HEADER_BYTES);
      const slots: [number, number][] = [
        [H.processes, P], [H.members, p.processStart[P]!], [H.tasks, p.tasks],
        [H.processStart, core.put(p.processStart)], [H.claimStart, core.put(p.claimStart)], [H.claims, core.put(p.claims)],
        [H.warmStart, core.put(p.warmStart)], [H.warmMember, core.put(p.warmMember)], [H.warmStandby, core.put(p.warmStandby)],
        [H.warmOffset, core.put(p.warmOffset)], [H.outOwner, core.alloc(p.tasks * 4)],
      ];
      const view = new DataView(core.raw.memory.buffer, header, STREAMS_HEADER_BYTES);
      for (const [at, v] of slots) view.setInt32(at, v, true);
      if (raw.streamsActives(header) !== 0) throw new Error('streams kernel: no member has room (a bug: the quotas add up to the task count)');
      return core.takeI32(view.getInt32(H.outOwner, true), p.tasks);
    },
  };
}
