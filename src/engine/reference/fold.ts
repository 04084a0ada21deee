import type { FoldKernels } from '../abi.js';

export function referenceFold(): FoldKernels {
  return {
    foldPartitions(streams, partitions, bases) {
      const out = new Int32Array(partitions.length);
      for (let i = 0; i < partitions.length; i++) {
        const s = streams[i]!;
        const p = partitions[i]!;
        if (s < 0 || s >= bases.length || p < 0) return { bad: i };
        out[i] = p % bases[s]!;
      }
      return out;
    },
  };
}
