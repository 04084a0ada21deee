// WASM bindings of the streams kernels (assembly/streams.ts, assembly/streams-spread.ts): the
// problem's arrays and its header (STREAMS_HEADER, SPREAD_HEADER) into the arena, one call, the answer copied out.
import type { WasmCore } from '../core.js';
import { SPREAD_HEADER as S, SPREAD_HEADER_BYTES, STREAMS_HEADER as H, STREAMS_HEADER_BYTES, type StreamsActivesProblem, type StreamsKernels, type StreamsSpreadProblem } from '../abi.js';

interface StreamsExports {
  streamsActives(header: number): number;
  streamsSpread(header: number): number;
}

export function wasmStreams(core: WasmCore): StreamsKernels {
  const raw = core.raw as unknown as StreamsExports;
  return {
    streamsActives(p: StreamsActivesProblem): Int32Array {
      const P = p.processStart.length - 1;
      core.begin();
      const header = core.alloc(STREAMS_HEADER_BYTES);
      const owner = core.alloc(p.tasks * 4);
      const slots: [number, number][] = [
        [H.processes, P], [H.members, p.processStart[P]!], [H.tasks, p.tasks],
        [H.processStart, core.put(p.processStart)], [H.claimStart, core.put(p.claimStart)], [H.claims, core.put(p.claims)],
        [H.warmStart, core.put(p.warmStart)], [H.warmMember, core.put(p.warmMember)], [H.warmStandby, core.put(p.warmStandby)],
        [H.warmOffset, core.put(p.warmOffset)], [H.outOwner, owner],
      ];
      const view = new DataView(core.raw.memory.buffer, header, STREAMS_HEADER_BYTES);
      for (const [at, v] of slots) view.setInt32(at, v, true);
      // The kernel's scratch may grow memory, which detaches views made before the call.
      if (raw.streamsActives(header) !== 0) throw new Error('streams kernel: no member has room (a bug: the quotas add up to the task count)');
      return core.takeI32(owner, p.tasks);
    },
    streamsSpread(p: StreamsSpreadProblem): Int32Array {
      core.begin();
      const header = core.alloc(SPREAD_HEADER_BYTES);
      const standby = core.put(p.standbyMember);
      const slots: [number, number][] = [
        [S.processes, p.processStart.length - 1], [S.keys, p.keys], [S.tasks, p.tasks], [S.width, p.width],
        [S.processStart, core.put(p.processStart)], [S.processValues, core.put(p.processValues)], [S.memberLoad, core.put(p.memberLoad)],
        [S.activeMember, core.put(p.activeMember)], [S.standbyMember, standby],
      ];
      const view = new DataView(core.raw.memory.buffer, header, SPREAD_HEADER_BYTES);
      for (const [at, v] of slots) view.setInt32(at, v, true);
      raw.streamsSpread(header);
      return core.takeI32(standby, p.standbyMember.length);
    },
  };
}
