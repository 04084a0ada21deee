import type { WasmCore } from '../core.js';
import type { FoldKernels } from '../abi.js';

export function wasmFold(core: WasmCore): FoldKernels {
  return {
    foldPartitions(streams, partitions, bases) {
      const count = partitions.length;
      core.begin();
      const sp = core.put(streams);
      const pp = core.put(partitions);
      const bp = core.put(bases);
      const out = core.alloc(count * 4);
      const bad = core.raw.foldPartitions(sp, pp, count, bp, bases.length, out);
      return bad >= 0 ? { bad } : core.takeI32(out, count);
    },
  };
}
