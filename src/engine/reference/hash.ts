// Pure-TS twin of assembly/murmur2.ts: Kafka's Utils.murmur2, written for
// obviousness. Math.imul keeps every product in 32 bits, as Java's int does.
import type { HashKernels } from '../kernels.js';

const SEED = 0x9747b28c | 0;
const M = 0x5bd1e995;

export function murmur2Ref(data: Uint8Array, start = 0, end = data.length): number {
  const length = end - start;
  let h = SEED ^ length;
  const blocks = length >>> 2;
  for (let i = 0; i < blocks; i++) {
    const o = start + i * 4;
    let k = data[o]! | (data[o + 1]! << 8) | (data[o + 2]! << 16) | (data[o + 3]! << 24);
    k = Math.imul(k, M);
    k ^= k >>> 24;
    k = Math.imul(k, M);
    h = Math.imul(h, M) ^ k;
  }
  const t = start + blocks * 4;
  const rem = length & 3;
  if (rem === 3) h ^= data[t + 2]! << 16;
  if (rem >= 2) h ^= data[t + 1]! << 8;
  if (rem >= 1) h = Math.imul(h ^ data[t]!, M); // the tail multiply happens only when a tail exists
  h ^= h >>> 13;
  h = Math.imul(h, M);
  h ^= h >>> 15;
  return h | 0;
}

/** n > 0: Utils.toPositive(h) % n; n == 0: the raw hash. */
function finalize(h: number, n: number): number {
  return n > 0 ? (h & 0x7fffffff) % n : h;
}

export function referenceHash(): HashKernels {
  return {
    hashVar(data, offsets, count, n) {
      const out = new Int32Array(count);
      for (let i = 0; i < count; i++) out[i] = finalize(murmur2Ref(data, offsets[i]!, offsets[i + 1]!), n);
      return out;
    },
    hashFixed(data, keyLen, count, n) {
      const out = new Int32Array(count);
      for (let i = 0; i < count; i++) out[i] = finalize(murmur2Ref(data, i * keyLen, (i + 1) * keyLen), n);
      return out;
    },
    hashEncoded(encode, count, byteBound, n) {
      const data = new Uint8Array(byteBound);
      const offsets = new Int32Array(count + 1);
      encode(data, offsets);
      return this.hashVar(data, offsets, count, n);
    },
  };
}
