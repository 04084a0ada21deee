// WASM binding of the standby kernels: copy the flat problem into the arena,
// run, copy the slots/masks out. Views are taken only after the last alloc.
import type { WasmCore } from '../core.js';
import { KEEP_KAFKA, type StandbyKernels, type StandbyProblem } from '../abi.js';

interface StandbyExports {
  standbyBalanced(
    C: number, K: number, G: number, T: number, W: number, V: number,
    clientValues: number, distinct: number, groupOf: number, groupValues: number,
    load: number, cap: number, active: number, need: number, holderStart: number, holders: number,
    flags: number, fallbackOrder: number, out: number,
  ): void;
  standbyKafka(
    C: number, K: number, G: number, T: number, W: number, V: number,
    clientValues: number, distinct: number, groupOf: number, groupValues: number,
    load: number, cap: number, active: number, need: number, holderStart: number, holders: number,
    flags: number, fallbackOrder: number, out: number,
  ): void;
}

export function wasmStandby(core: WasmCore): StandbyKernels {
  const raw = core.raw as unknown as StandbyExports;
  // Both modes take the same flat problem and differ only in the kernel they run.
  const call = (kernel: StandbyExports['standbyKafka']) => (p: StandbyProblem, flags: number, fallbackOrder: Int32Array): Int32Array => {
    core.begin();
    const cv = core.put(p.clientValues);
    const di = core.put(p.distinct);
    const go = core.put(p.groupOf);
    const gv = core.put(p.groupValues);
    const ld = core.put(p.load);
    const cp = core.put(p.capacity);
    const ac = core.put(p.active);
    const nd = core.put(p.need);
    const hs = core.put(p.holderStart);
    const hl = core.put(p.holders);
    const fo = core.put(fallbackOrder);
    // KEEP_KAFKA (balanced only): Kafka's placement follows the result as its differences
    // (count, then per differing task 1 + 2W ints; room for every task).
    const n = 2 * p.tasks * p.width;
    const keep = (flags & KEEP_KAFKA) !== 0;
    const out = core.alloc((keep ? n + 1 + p.tasks * (1 + 2 * p.width) : n) * 4);
    kernel(p.clients, p.keys, p.groups, p.tasks, p.width, p.values, cv, di, go, gv, ld, cp, ac, nd, hs, hl, flags, fo, out);
    return core.takeI32(out, keep ? n + 1 + core.i32(out + n * 4, 1)[0]! * (1 + 2 * p.width) : n);
  };
  return { standbyBalanced: call(raw.standbyBalanced), standbyKafka: call(raw.standbyKafka) };
}
