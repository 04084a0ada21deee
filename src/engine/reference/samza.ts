// The `samza` mapper's kernel (SSPGrouperProxy + HashSystemStreamPartitionMapper)
// as plain TypeScript, written for obviousness: a Map stands in for the lookup
// table. assembly/samza-proxy.ts must agree with it exactly.
import { EVERY_TASK, FAIL_NOT_MULTIPLE, FAIL_NO_TASK, type SamzaKernels, type SamzaProxyInput, type SamzaProxyResult } from '../abi.js';

export function referenceSamza(): SamzaKernels {
  return { samzaProxy };
}

function samzaProxy(input: SamzaProxyInput): SamzaProxyResult {
  const { limit, offset, width } = input;
  const S = limit.length;

  // Previous SSP -> task, keyed by table slot; an SSP in several tasks keeps the highest-ranked one.
  const prevCount = new Int32Array(S);
  const previous = new Map<number, number>();
  for (let i = 0; i < input.prevTask.length; i++) {
    const s = input.prevStreamToCur[input.prevStream[i]!]!;
    if (s < 0) continue;
    prevCount[s]!++;
    const p = input.prevPartition[i]!;
    const b = input.prevBucket === null ? -1 : input.prevBucket[i]!;
    // Partitions at or past the current count, and key buckets no current SSP has, are never looked up.
    if (p >= limit[s]! || (width === 1 ? b !== -1 : b < -1 || b >= width - 1)) continue;
    const slot = offset[s]! + (width === 1 ? p : p * width + b + 1);
    const t = input.prevTask[i]!;
    const held = previous.get(slot);
    if (held === undefined || held === t) previous.set(slot, t);
    else if (input.prevRank === null) return { needsRanks: true };
    else if (input.prevRank[t]! > input.prevRank[held]!) previous.set(slot, t);
  }
  for (const slot of input.exclude) previous.delete(slot);

  // Where each current row's SSP was: itself, or (mapper) partition p mod the previous count, key bucket -1.
  const n = input.rowTask.length;
  const task = new Int32Array(n);
  const failures: Array<{ row: number; kind: number; prev: number }> = [];
  for (let i = 0; i < n; i++) {
    const t = input.rowTask[i]!;
    task[i] = t;
    const s = input.stream[i]!;
    const prevN = prevCount[s]!;
    const curN = input.curCount[s]!;
    const p = input.partition[i]!;
    let slot: number;
    if (prevN > 0 && curN !== prevN) {
      if (curN % prevN !== 0) {
        failures.push({ row: i, kind: FAIL_NOT_MULTIPLE, prev: -1 });
        continue;
      }
      slot = offset[s]! + (p % prevN) * width;
    } else {
      const b = input.bucket === null ? -1 : input.bucket[i]!;
      slot = offset[s]! + (width === 1 ? p : p * width + b + 1);
    }
    const held = previous.get(slot);
    if (held === undefined) continue;
    const target = input.prevToCur[held]!;
    if (target === t) continue;
    if (target < 0) failures.push({ row: i, kind: FAIL_NO_TASK, prev: held });
    else task[i] = target;
  }
  if (failures.length === 0) return { needsRanks: false, task, prevCount, failedRow: -1, failKind: 0, failPrevTask: -1 };

  // Samza meets the tasks in the order of their first row, and each task's rows in row order.
  const first = new Map<number, number>();
  for (let i = 0; i < n; i++) {
    const t = input.rowTask[i]!;
    if (t !== EVERY_TASK && !first.has(t)) first.set(t, i);
  }
  const key = (f: { row: number }): number => {
    const t = input.rowTask[f.row]!;
    return t === EVERY_TASK ? 0 : first.get(t)!;
  };
  let best = failures[0]!;
  for (const f of failures) if (key(f) < key(best)) best = f;
  return { needsRanks: false, task, prevCount, failedRow: best.row, failKind: best.kind, failPrevTask: best.prev };
}
