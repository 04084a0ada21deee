import type { FoldKernels } from '../kernels.js';

export function referenceFold(): FoldKernels {
  return {
    foldPartitions(streams, partitions, bases) {
      const out = new Int32Array(partitions.length);
      for (let i = 0; i < partitions.length; i++) out[i] = partitions[i]! % bases[streams[i]!]!;
      return out;
    },
  };
}
