// WASM binding of the samza mapper's kernel (assembly/samza-proxy.ts): one arena
// session builds the previous SSP -> task table and remaps the rows against it.
import type { WasmCore } from '../core.js';
import type { SamzaKernels, SamzaProxyResult } from '../abi.js';

interface SamzaExports {
  samzaPreviousTable(
    count: number,
    stream: number,
    streamToCur: number,
    partition: number,
    bucket: number,
    task: number,
    rank: number,
    nStreams: number,
    limit: number,
    offset: number,
    width: number,
    table: number,
    tableLen: number,
    exclude: number,
    nExclude: number,
    prevCount: number,
  ): number;
  samzaRemap(
    count: number,
    stream: number,
    partition: number,
    bucket: number,
    rowTask: number,
    nTasks: number,
    prevCount: number,
    curCount: number,
    offset: number,
    width: number,
    table: number,
    prevToCur: number,
    out: number,
    taskFirst: number,
    fail: number,
  ): number;
}

const NEEDS_RANKS = -2;

export function wasmSamza(core: WasmCore): SamzaKernels {
  const raw = core.raw as unknown as SamzaExports;
  return {
    samzaProxy(input): SamzaProxyResult {
      const S = input.limit.length;
      const m = input.prevTask.length;
      const n = input.rowTask.length;
      const tableLen = input.offset[S]!;
      core.begin();
      const ps = core.put(input.prevStream);
      const p2s = core.put(input.prevStreamToCur);
      const pp = core.put(input.prevPartition);
      const pb = input.prevBucket === null ? 0 : core.put(input.prevBucket);
      const pt = core.put(input.prevTask);
      const pr = input.prevRank === null ? 0 : core.put(input.prevRank);
      const lim = core.put(input.limit);
      const off = core.put(input.offset);
      const table = core.alloc(tableLen * 4);
      const ex = core.put(input.exclude);
      const prevCount = core.alloc(S * 4);
      const built = raw.samzaPreviousTable(m, ps, p2s, pp, pb, pt, pr, S, lim, off, input.width, table, tableLen, ex, input.exclude.length, prevCount);
      if (built === NEEDS_RANKS) return { needsRanks: true };
      const cur = core.put(input.curCount);
      const p2c = core.put(input.prevToCur);
      const st = core.put(input.stream);
      const pa = core.put(input.partition);
      const bu = input.bucket === null ? 0 : core.put(input.bucket);
      const rt = core.put(input.rowTask);
      const out = core.alloc(n * 4);
      const first = core.alloc(input.nTasks * 4);
      const fail = core.alloc(8);
      const failedRow = raw.samzaRemap(n, st, pa, bu, rt, input.nTasks, prevCount, cur, off, input.width, table, p2c, out, first, fail);
      // Views only after the last allocation: growing memory detaches older ones.
      const kind = failedRow < 0 ? 0 : core.i32(fail, 2)[0]!;
      const prevTask = failedRow < 0 ? -1 : core.i32(fail, 2)[1]!;
      return { needsRanks: false, task: core.takeI32(out, n), prevCount: core.takeI32(prevCount, S), failedRow, failKind: kind, failPrevTask: prevTask };
    },
  };
}
