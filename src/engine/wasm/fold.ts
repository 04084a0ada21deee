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
      // Folded in place: the partitions' copy in the arena becomes the answer.
      const bad = core.raw.foldPartitions(sp, pp, count, bp, bases.length);
      return bad >= 0 ? { bad } : core.takeI32(pp, count);
    },
  };
}
