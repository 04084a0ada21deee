// WASM binding of the samza mapper's kernel (assembly/samza-proxy.ts): the problem and its header
// (SAMZA_HEADER) into the arena, one call that builds the previous SSP -> task table and remaps
// the rows against it, the answer copied out.
import type { WasmCore } from '../core.js';
import { SAMZA_HEADER as H, SAMZA_HEADER_BYTES, type SamzaKernels, type SamzaProxyResult } from '../abi.js';

interface SamzaExports {
  samzaProxy(header: number): number;
}

const NEEDS_RANKS = -2;

export function wasmSamza(core: WasmCore): SamzaKernels {
  const raw = core.raw as unknown as SamzaExports;
  return {
    samzaProxy(input): SamzaProxyResult {
      const S = input.limit.length;
      const n = input.rowTask.length;
      core.begin();
      const header = core.alloc(SAMZA_HEADER_BYTES);
      const prevCount = core.alloc(S * 4);
      const out = core.alloc(n * 4);
      const fail = core.alloc(8);
      const orNull = (a: Int32Array | null): number => (a === null ? 0 : core.put(a));
      const slots: [number, number][] = [
        [H.prevRows, input.prevTask.length], [H.prevStream, core.put(input.prevStream)], [H.prevStreamToCur, core.put(input.prevStreamToCur)],
        [H.prevPartition, core.put(input.prevPartition)], [H.prevBucket, orNull(input.prevBucket)], [H.prevTask, core.put(input.prevTask)],
        [H.prevRank, orNull(input.prevRank)], [H.prevToCur, core.put(input.prevToCur)], [H.streams, S], [H.limit, core.put(input.limit)],
        [H.offset, core.put(input.offset)], [H.width, input.width], [H.curCount, core.put(input.curCount)], [H.exclude, core.put(input.exclude)],
        [H.excludeCount, input.exclude.length], [H.rows, n], [H.stream, core.put(input.stream)], [H.partition, core.put(input.partition)],
        [H.bucket, orNull(input.bucket)], [H.rowTask, core.put(input.rowTask)], [H.tasks, input.nTasks],
        [H.table, core.alloc(input.offset[S]! * 4)], [H.prevCount, prevCount], [H.out, out], [H.taskFirst, core.alloc(input.nTasks * 4)], [H.fail, fail],
      ];
      // Views only after the last allocation: growing memory detaches older ones.
      const view = new DataView(core.raw.memory.buffer, header, SAMZA_HEADER_BYTES);
      for (const [at, v] of slots) view.setInt32(at, v, true);
      const failedRow = raw.samzaProxy(header);
      if (failedRow === NEEDS_RANKS) return { needsRanks: true };
      const kind = failedRow < 0 ? 0 : core.i32(fail, 2)[0]!;
      const prevTask = failedRow < 0 ? -1 : core.i32(fail, 2)[1]!;
      return { needsRanks: false, task: core.takeI32(out, n), prevCount: core.takeI32(prevCount, S), failedRow, failKind: kind, failPrevTask: prevTask };
    },
  };
}
