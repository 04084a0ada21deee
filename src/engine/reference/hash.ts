// Pure-TS twin of assembly/murmur2.ts: Kafka's Utils.murmur2, written for
// obviousness. Math.imul keeps every product in 32 bits, as Java's int does.
import type { HashKernels } from '../abi.js';

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

/**
 * Twin of assembly/utf8.ts javaUtf8Keys: keys 0 .. count-1 have their UTF-16LE
 * units back to back in `units` and cumulative unit counts in offsets[at .. at+count];
 * writes each key's Java UTF-8 into data from 0 and rewrites those offsets as byte offsets.
 */
export function javaUtf8KeysRef(units: Uint8Array, offsets: Int32Array, at: number, count: number, data: Uint8Array): number {
  const unit = (k: number) => units[2 * k]! | (units[2 * k + 1]! << 8);
  let q = 0;
  let u = 0;
  let prev = offsets[at]!;
  offsets[at] = 0;
  for (let i = at; i < at + count; i++) {
    const next = offsets[i + 1]!;
    const end = u + (next - prev);
    while (u < end) {
      const c = unit(u++);
      let cp = c;
      if (c >= 0xd800 && c <= 0xdfff) {
        const d = u < end ? unit(u) : 0; // the key's own next unit, never the next key's
        if (c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff) {
          cp = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
          u++;
        } else {
          cp = 0x3f; // unpaired: '?', as Java writes it
        }
      }
      if (cp < 0x80) data[q++] = cp;
      else if (cp < 0x800) {
        data[q++] = 0xc0 | (cp >> 6);
        data[q++] = 0x80 | (cp & 0x3f);
      } else if (cp < 0x10000) {
        data[q++] = 0xe0 | (cp >> 12);
        data[q++] = 0x80 | ((cp >> 6) & 0x3f);
        data[q++] = 0x80 | (cp & 0x3f);
      } else {
        data[q++] = 0xf0 | (cp >> 18);
        data[q++] = 0x80 | ((cp >> 12) & 0x3f);
        data[q++] = 0x80 | ((cp >> 6) & 0x3f);
        data[q++] = 0x80 | (cp & 0x3f);
      }
    }
    offsets[i + 1] = q;
    prev = next;
  }
  return q;
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
    hashRuns(count, runUnits, n, produce) {
      const units = new Uint8Array(runUnits * 2);
      const bytes = new Uint8Array(runUnits * 3 + 4);
      const offsets = new Int32Array(count + 1);
      const out = new Int32Array(count);
      const hashRun = (from: number, to: number) => {
        for (let i = from; i < to; i++) out[i] = finalize(murmur2Ref(bytes, offsets[i]!, offsets[i + 1]!), n);
      };
      produce({
        units,
        bytes,
        offsets,
        out,
        hashUnits(from, to) {
          const written = javaUtf8KeysRef(units, offsets, from, to - from, bytes);
          hashRun(from, to);
          return written;
        },
        hashBytes: hashRun,
      });
      return out;
    },
    pinKeys(maxBytes, maxKeys) {
      const bytes = new Uint8Array(maxBytes);
      const offsets = new Int32Array(maxKeys + 1);
      const out = new Int32Array(maxKeys);
      return {
        bytes,
        offsets,
        out,
        hashFixed(keyLen, count, n) {
          for (let i = 0; i < count; i++) out[i] = finalize(murmur2Ref(bytes, i * keyLen, (i + 1) * keyLen), n);
        },
        hashVar(count, n) {
          for (let i = 0; i < count; i++) out[i] = finalize(murmur2Ref(bytes, offsets[i]!, offsets[i + 1]!), n);
        },
      };
    },
  };
}
