// i32x4 murmur2: four keys hashed side by side, one lane each, whenever the
// four have the same number of 4-byte blocks: every block runs in the vector
// (4-block strides load one v128 per key and transpose; single blocks are
// gathered), and only the tails (0..3 bytes, possibly different per lane) are
// gathered per lane, with the tail multiply masked to the lanes that have one.
import { finalize, murmur2At } from './murmur2';

const SEED: u32 = 0x9747b28c;
const M: u32 = 0x5bd1e995;

// @ts-ignore: decorator
@inline function mixV(h: v128, k: v128): v128 {
  const m = i32x4.splat(<i32>M);
  k = i32x4.mul(k, m);
  k = v128.xor(k, i32x4.shr_u(k, 24));
  k = i32x4.mul(k, m);
  return v128.xor(i32x4.mul(h, m), k);
}

// @ts-ignore: decorator
@inline function tailBits(t: usize, rem: i32): i32 {
  let x: u32 = 0;
  if (rem == 3) x ^= <u32>load<u8>(t, 2) << 16;
  if (rem >= 2) x ^= <u32>load<u8>(t, 1) << 8;
  if (rem >= 1) x ^= <u32>load<u8>(t);
  return <i32>x;
}

// @ts-ignore: decorator
@inline function lanes(a: i32, b: i32, c: i32, d: i32): v128 {
  return i32x4.replace_lane(i32x4.replace_lane(i32x4.replace_lane(i32x4.splat(a), 1, b), 2, c), 3, d);
}

// Four keys go to hash4Equal and hash4Short as their start addresses p0..p3, with their lengths
// (hash4Equal: a vector, a lane each; hash4Short: the address `o` of their five offsets, key k
// being o[k+1] - o[k] bytes long). Both give the vector state before the final mix; store4 mixes
// it and writes the four partitions. Addresses stay scalar, and so do hash4Short's block count
// and tail test: taking them out of vector lanes, or two addresses out of one u64, measured
// 6-23% slower on short keys.

/** The four lengths at o, a lane each. */
// @ts-ignore: decorator
@inline function lengths4(o: usize): v128 {
  return i32x4.sub(v128.load(o, 4), v128.load(o));
}

/**
 * Whether some key at o has a tail (a length that is not a multiple of 4), from the offsets as
 * scalars: v128.any_true over the lengths' low bits measured 2-3% slower on user ids in Bun.
 */
// @ts-ignore: decorator
@inline function hasTails(o: usize): bool {
  const s0 = load<i32>(o), s1 = load<i32>(o, 4), s2 = load<i32>(o, 8), s3 = load<i32>(o, 12), s4 = load<i32>(o, 16);
  return (((s1 - s0) | (s2 - s1) | (s3 - s2) | (s4 - s3)) & 3) != 0;
}

/**
 * Four keys with the same block count: every block, then the tails, in the vector (4-block
 * strides load one v128 per key and transpose; single blocks are gathered).
 */
// @ts-ignore: decorator
@inline function hash4Equal(p0: usize, p1: usize, p2: usize, p3: usize, lens: v128): v128 {
  let h = v128.xor(i32x4.splat(<i32>SEED), lens);
  const blocks = i32x4.extract_lane(lens, 0) >> 2;
  let off: usize = 0;
  let b = 0;
  for (; b + 4 <= blocks; b += 4) {
    const a = v128.load(p0 + off), bb = v128.load(p1 + off);
    const c = v128.load(p2 + off), d = v128.load(p3 + off);
    const t0 = v128.shuffle<i32>(a, bb, 0, 4, 1, 5);
    const t1 = v128.shuffle<i32>(a, bb, 2, 6, 3, 7);
    const t2 = v128.shuffle<i32>(c, d, 0, 4, 1, 5);
    const t3 = v128.shuffle<i32>(c, d, 2, 6, 3, 7);
    h = mixV(h, v128.shuffle<i32>(t0, t2, 0, 1, 4, 5));
    h = mixV(h, v128.shuffle<i32>(t0, t2, 2, 3, 6, 7));
    h = mixV(h, v128.shuffle<i32>(t1, t3, 0, 1, 4, 5));
    h = mixV(h, v128.shuffle<i32>(t1, t3, 2, 3, 6, 7));
    off += 16;
  }
  for (; b < blocks; b++) {
    h = mixV(h, lanes(load<i32>(p0 + off), load<i32>(p1 + off), load<i32>(p2 + off), load<i32>(p3 + off)));
    off += 4;
  }
  const rems = v128.and(lens, i32x4.splat(3));
  if (!v128.any_true(rems)) return h;
  return tail4(h, tailWords(p0 + off, p1 + off, p2 + off, p3 + off, rems), rems);
}

/** The tail word (the last len & 3 bytes) of the keys whose tails start at t0..t3. */
// @ts-ignore: decorator
@inline function tailWords(t0: usize, t1: usize, t2: usize, t3: usize, rems: v128): v128 {
  return lanes(
    tailBits(t0, i32x4.extract_lane(rems, 0)),
    tailBits(t1, i32x4.extract_lane(rems, 1)),
    tailBits(t2, i32x4.extract_lane(rems, 2)),
    tailBits(t3, i32x4.extract_lane(rems, 3)),
  );
}

/** Mixes in four tail words (each holding only its key's len & 3 bytes); the multiply happens only in lanes that have a tail. */
// @ts-ignore: decorator
@inline function tail4(h: v128, tails: v128, rems: v128): v128 {
  h = v128.xor(h, tails);
  const hasTail = i32x4.ne(rems, i32x4.splat(0));
  return v128.bitselect(i32x4.mul(h, i32x4.splat(<i32>M)), h, hasTail);
}

/** murmur2's final mix of four lanes, stored as partitions at out..out+12. */
// @ts-ignore: decorator
@inline function store4(h: v128, n: i32, out: usize): void {
  h = v128.xor(h, i32x4.shr_u(h, 13));
  h = i32x4.mul(h, i32x4.splat(<i32>M));
  h = v128.xor(h, i32x4.shr_u(h, 15));
  store<i32>(out, finalize(<u32>i32x4.extract_lane(h, 0), n));
  store<i32>(out, finalize(<u32>i32x4.extract_lane(h, 1), n), 4);
  store<i32>(out, finalize(<u32>i32x4.extract_lane(h, 2), n), 8);
  store<i32>(out, finalize(<u32>i32x4.extract_lane(h, 3), n), 12);
}

/**
 * Per lane, a mask of bytes 0..r-1 of the little-endian word (r = len & 3): what tailBits reads.
 * Byte j of a lane is kept when j < r (r copied into each byte).
 */
// @ts-ignore: decorator
@inline function tailMasks(rems: v128): v128 {
  return i8x16.lt_u(i32x4.splat(0x03020100), i32x4.mul(rems, i32x4.splat(0x01010101)));
}

/**
 * hash4Equal for four keys of under 16 bytes with the same block count, when 16
 * bytes can be read from each start without leaving the batch's data: one v128
 * load per key, transposed, gives every block and the tail word of all four
 * lanes at once (instead of one scalar load and lane insert per block and lane).
 */
// @ts-ignore: decorator
@inline function hash4Short(p0: usize, p1: usize, p2: usize, p3: usize, o: usize): v128 {
  const a = v128.load(p0), bb = v128.load(p1), c = v128.load(p2), d = v128.load(p3);
  const t0 = v128.shuffle<i32>(a, bb, 0, 4, 1, 5);
  const t1 = v128.shuffle<i32>(a, bb, 2, 6, 3, 7);
  const t2 = v128.shuffle<i32>(c, d, 0, 4, 1, 5);
  const t3 = v128.shuffle<i32>(c, d, 2, 6, 3, 7);
  const c0 = v128.shuffle<i32>(t0, t2, 0, 1, 4, 5); // block 0 of each key
  const c1 = v128.shuffle<i32>(t0, t2, 2, 3, 6, 7);
  const c2 = v128.shuffle<i32>(t1, t3, 0, 1, 4, 5);
  const c3 = v128.shuffle<i32>(t1, t3, 2, 3, 6, 7);
  const lens = lengths4(o);
  let h = v128.xor(i32x4.splat(<i32>SEED), lens);
  const blocks = (load<i32>(o, 4) - load<i32>(o)) >> 2;
  let tail = c0;
  if (blocks >= 1) { h = mixV(h, c0); tail = c1; }
  if (blocks >= 2) { h = mixV(h, c1); tail = c2; }
  if (blocks >= 3) { h = mixV(h, c2); tail = c3; }
  if (!hasTails(o)) return h;
  const rems = v128.and(lens, i32x4.splat(3));
  return tail4(h, v128.and(tail, tailMasks(rems)), rems);
}

// @ts-ignore: decorator
@inline function keyStart(offsets: usize, i: i32): i32 {
  return load<i32>(offsets + (<usize>i << 2));
}

// @ts-ignore: decorator
@inline function keyLen(offsets: usize, i: i32): i32 {
  const o = offsets + (<usize>i << 2);
  return load<i32>(o, 4) - load<i32>(o);
}

export function hashVarSimd(data: usize, offsets: usize, count: i32, n: i32, out: usize): void {
  // Four consecutive keys with the same block count (ids like `user-1234567`,
  // UUID strings, fixed-width keys through the packed API) run fully in the
  // vector; any other group runs lane by lane in scalar code. Reordering keys
  // by block count to fill vectors was measured slower than scalar on random
  // 8..64-byte keys (34 vs 23 ms per million): the sort and the scattered
  // accesses cost more than the vector saves. See docs/design.md.
  // Short keys (under 16 bytes) read one v128 each (hash4Short) while 16 bytes
  // from the group's last start stay inside the batch's data (ends at offsets[count]).
  const end = count > 0 ? keyStart(offsets, count) : 0;
  let i = 0;
  for (; i + 4 <= count; i += 4) {
    const o = offsets + (<usize>i << 2);
    const s0 = load<i32>(o), s1 = load<i32>(o, 4), s2 = load<i32>(o, 8), s3 = load<i32>(o, 12), s4 = load<i32>(o, 16);
    const l0 = s1 - s0, l1 = s2 - s1, l2 = s3 - s2, l3 = s4 - s3;
    const w = out + (<usize>i << 2);
    const p0 = data + <usize>s0, p1 = data + <usize>s1, p2 = data + <usize>s2, p3 = data + <usize>s3;
    if (((l0 ^ l1) | (l0 ^ l2) | (l0 ^ l3)) >>> 2 == 0 && l0 < 16 && s3 + 16 <= end) {
      store4(hash4Short(p0, p1, p2, p3, o), n, w);
    } else if (((l0 ^ l1) | (l0 ^ l2) | (l0 ^ l3)) >>> 2 == 0) {
      store4(hash4Equal(p0, p1, p2, p3, lengths4(o)), n, w);
    } else {
      store<i32>(w, finalize(murmur2At(data + <usize>s0, l0), n));
      store<i32>(w, finalize(murmur2At(data + <usize>s1, l1), n), 4);
      store<i32>(w, finalize(murmur2At(data + <usize>s2, l2), n), 8);
      store<i32>(w, finalize(murmur2At(data + <usize>s3, l3), n), 12);
    }
  }
  for (; i < count; i++) {
    store<i32>(out + (<usize>i << 2), finalize(murmur2At(data + <usize>keyStart(offsets, i), keyLen(offsets, i)), n));
  }
}

export function hashFixedSimd(data: usize, keyLen: i32, count: i32, n: i32, out: usize): void {
  const w = <usize>keyLen;
  const lens = i32x4.splat(keyLen);
  let i = 0;
  for (; i + 4 <= count; i += 4) {
    const p = data + <usize>i * w;
    store4(hash4Equal(p, p + w, p + 2 * w, p + 3 * w, lens), n, out + (<usize>i << 2));
  }
  for (; i < count; i++) {
    store<i32>(out + (<usize>i << 2), finalize(murmur2At(data + <usize>i * w, keyLen), n));
  }
}
