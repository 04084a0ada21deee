// Kafka's murmur2 (Utils.murmur2): MurmurHash2, seed 0x9747b28c, little-endian
// 4-byte blocks, tail multiply only when a tail exists, signed 32-bit result.
// Batch kernels fuse Utils.toPositive(h) % n, so they return partitions directly.

const SEED: u32 = 0x9747b28c;
const M: u32 = 0x5bd1e995;

// @ts-ignore: decorator
@inline export function mixBlock(h: u32, k: u32): u32 {
  k *= M;
  k ^= k >>> 24;
  k *= M;
  return (h * M) ^ k;
}

// @ts-ignore: decorator
@inline export function tailAndFinish(h: u32, t: usize, rem: i32): u32 {
  if (rem == 3) h ^= <u32>load<u8>(t, 2) << 16;
  if (rem >= 2) h ^= <u32>load<u8>(t, 1) << 8;
  if (rem >= 1) {
    h ^= <u32>load<u8>(t);
    h *= M;
  }
  h ^= h >>> 13;
  h *= M;
  h ^= h >>> 15;
  return h;
}

/** Continue hashing from state h at block index `from` of the key at p. */
// @ts-ignore: decorator
@inline export function finishFrom(h: u32, p: usize, len: i32, from: i32): u32 {
  const n4 = len & ~3;
  for (let i = from << 2; i < n4; i += 4) h = mixBlock(h, load<u32>(p + <usize>i));
  return tailAndFinish(h, p + <usize>n4, len & 3);
}

// @ts-ignore: decorator
@inline export function murmur2At(p: usize, len: i32): u32 {
  return finishFrom(SEED ^ <u32>len, p, len, 0);
}

/**
 * n > 0: Utils.toPositive(h) % n; n == 0: the raw signed hash. (A reciprocal
 * multiply in f64 was measured 2.5x slower than i32.rem_u here, so plain %.)
 */
// @ts-ignore: decorator
@inline export function finalize(h: u32, n: i32): i32 {
  return n > 0 ? <i32>((h & 0x7fffffff) % <u32>n) : <i32>h;
}

/** Scalar batch over variable-length keys: key i is data[offsets[i] .. offsets[i+1]). */
export function hashVarScalar(data: usize, offsets: usize, count: i32, n: i32, out: usize): void {
  let start = load<i32>(offsets);
  for (let i = 0; i < count; i++) {
    const end = load<i32>(offsets + (<usize>(i + 1) << 2));
    store<i32>(out + (<usize>i << 2), finalize(murmur2At(data + <usize>start, end - start), n));
    start = end;
  }
}

/** Scalar batch over fixed-width keys: key i is data[i*keyLen .. (i+1)*keyLen). */
export function hashFixedScalar(data: usize, keyLen: i32, count: i32, n: i32, out: usize): void {
  for (let i = 0; i < count; i++) {
    store<i32>(out + (<usize>i << 2), finalize(murmur2At(data + <usize>i * <usize>keyLen, keyLen), n));
  }
}
