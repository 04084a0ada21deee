// WASM binding of the standby kernels: the flat problem and its header (STANDBY_HEADER) into the
// arena, one call, the slots/masks copied out. Views are taken only after the last alloc.
import type { WasmCore } from '../core.js';
import { KEEP_KAFKA, STANDBY_HEADER as H, STANDBY_HEADER_BYTES, type StandbyKernels, type StandbyProblem } from '../abi.js';

interface StandbyExports {
  standbyBalanced(header: number): void;
  standbyKafka(header: number): void;
}

export function wasmStandby(core: WasmCore): StandbyKernels {
  const raw = core.raw as unknown as StandbyExports;
  // Both modes take the same flat problem and differ only in the kernel they run.
  const call = (kernel: (header: number) => void) => (p: StandbyProblem, flags: number, fallbackOrder: Int32Array): Int32Array => {
    core.begin();
    const header = core.alloc(STANDBY_HEADER_BYTES);
    // KEEP_KAFKA (balanced only): Kafka's placement follows the result as its differences
    // (count, then per differing task 1 + 2W ints; room for every task).
    const n = 2 * p.tasks * p.width;
    const keep = (flags & KEEP_KAFKA) !== 0;
    const out = core.alloc((keep ? n + 1 + p.tasks * (1 + 2 * p.width) : n) * 4);
    const slots: [number, number][] = [
      [H.clients, p.clients], [H.keys, p.keys], [H.groups, p.groups], [H.tasks, p.tasks], [H.width, p.width], [H.values, p.values],
      [H.clientValues, core.put(p.clientValues)], [H.distinct, core.put(p.distinct)], [H.groupOf, core.put(p.groupOf)],
      [H.groupValues, core.put(p.groupValues)], [H.load, core.put(p.load)], [H.capacity, core.put(p.capacity)],
      [H.active, core.put(p.active)], [H.need, core.put(p.need)], [H.holderStart, core.put(p.holderStart)],
      [H.holders, core.put(p.holders)], [H.flags, flags], [H.fallbackOrder, core.put(fallbackOrder)], [H.out, out],
    ];
    const view = new DataView(core.raw.memory.buffer, header, STANDBY_HEADER_BYTES);
    for (const [at, v] of slots) view.setInt32(at, v, true);
    kernel(header);
    return core.takeI32(out, keep ? n + 1 + core.i32(out + n * 4, 1)[0]! * (1 + 2 * p.width) : n);
  };
  return { standbyBalanced: call(raw.standbyBalanced), standbyKafka: call(raw.standbyKafka) };
}
