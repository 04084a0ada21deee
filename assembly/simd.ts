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

/** Runs `blocks` common blocks of four keys through the vector state h. */
// @ts-ignore: decorator
@inline function blocks4(h: v128, p0: usize, p1: usize, p2: usize, p3: usize, blocks: i32): v128 {
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
  return h;
}

/**
 * Four keys with the same block count: all blocks, tails and the final mix in
 * the vector. o0..o3 are the output addresses (lanes may come from anywhere).
 */
// @ts-ignore: decorator
@inline function hash4Equal(p0: usize, p1: usize, p2: usize, p3: usize,
  l0: i32, l1: i32, l2: i32, l3: i32, n: i32,
  o0: usize, o1: usize, o2: usize, o3: usize): void {
  let h = v128.xor(i32x4.splat(<i32>SEED), lanes(l0, l1, l2, l3));
  const blocks = l0 >> 2;
  h = blocks4(h, p0, p1, p2, p3, blocks);
  const off = <usize>(blocks << 2);
  const r0 = l0 & 3, r1 = l1 & 3, r2 = l2 & 3, r3 = l3 & 3;
  if ((r0 | r1 | r2 | r3) != 0) {
    h = tail4(h, lanes(tailBits(p0 + off, r0), tailBits(p1 + off, r1), tailBits(p2 + off, r2), tailBits(p3 + off, r3)), r0, r1, r2, r3);
  }
  store4(h, n, o0, o1, o2, o3);
}

/** Mixes in four tail words (each holding only its key's r bytes); the multiply happens only in lanes that have a tail. */
// @ts-ignore: decorator
@inline function tail4(h: v128, tails: v128, r0: i32, r1: i32, r2: i32, r3: i32): v128 {
  h = v128.xor(h, tails);
  const hasTail = i32x4.ne(lanes(r0, r1, r2, r3), i32x4.splat(0));
  return v128.bitselect(i32x4.mul(h, i32x4.splat(<i32>M)), h, hasTail);
}

/** murmur2's final mix of four lanes, stored as partitions at o0..o3. */
// @ts-ignore: decorator
@inline function store4(h: v128, n: i32, o0: usize, o1: usize, o2: usize, o3: usize): void {
  h = v128.xor(h, i32x4.shr_u(h, 13));
  h = i32x4.mul(h, i32x4.splat(<i32>M));
  h = v128.xor(h, i32x4.shr_u(h, 15));
  store<i32>(o0, finalize(<u32>i32x4.extract_lane(h, 0), n));
  store<i32>(o1, finalize(<u32>i32x4.extract_lane(h, 1), n));
  store<i32>(o2, finalize(<u32>i32x4.extract_lane(h, 2), n));
  store<i32>(o3, finalize(<u32>i32x4.extract_lane(h, 3), n));
}

/** Bytes 0..r-1 of a little-endian word (r = 0..3): what tailBits reads. */
// @ts-ignore: decorator
@inline function tailMask(r: i32): i32 {
  return (1 << (r << 3)) - 1;
}

/**
 * hash4Equal for four keys of under 16 bytes with the same block count, when 16
 * bytes can be read from each start without leaving the batch's data: one v128
 * load per key, transposed, gives every block and the tail word of all four
 * lanes at once (instead of one scalar load and lane insert per block and lane).
 */
// @ts-ignore: decorator
@inline function hash4Short(p0: usize, p1: usize, p2: usize, p3: usize,
  l0: i32, l1: i32, l2: i32, l3: i32, n: i32,
  o0: usize, o1: usize, o2: usize, o3: usize): void {
  const a = v128.load(p0), bb = v128.load(p1), c = v128.load(p2), d = v128.load(p3);
  const t0 = v128.shuffle<i32>(a, bb, 0, 4, 1, 5);
  const t1 = v128.shuffle<i32>(a, bb, 2, 6, 3, 7);
  const t2 = v128.shuffle<i32>(c, d, 0, 4, 1, 5);
  const t3 = v128.shuffle<i32>(c, d, 2, 6, 3, 7);
  const c0 = v128.shuffle<i32>(t0, t2, 0, 1, 4, 5); // block 0 of each key
  const c1 = v128.shuffle<i32>(t0, t2, 2, 3, 6, 7);
  const c2 = v128.shuffle<i32>(t1, t3, 0, 1, 4, 5);
  const c3 = v128.shuffle<i32>(t1, t3, 2, 3, 6, 7);
  let h = v128.xor(i32x4.splat(<i32>SEED), lanes(l0, l1, l2, l3));
  const blocks = l0 >> 2;
  let tail = c0;
  if (blocks >= 1) { h = mixV(h, c0); tail = c1; }
  if (blocks >= 2) { h = mixV(h, c1); tail = c2; }
  if (blocks >= 3) { h = mixV(h, c2); tail = c3; }
  const r0 = l0 & 3, r1 = l1 & 3, r2 = l2 & 3, r3 = l3 & 3;
  if ((r0 | r1 | r2 | r3) != 0) {
    h = tail4(h, v128.and(tail, lanes(tailMask(r0), tailMask(r1), tailMask(r2), tailMask(r3))), r0, r1, r2, r3);
  }
  store4(h, n, o0, o1, o2, o3);
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
    if (((l0 ^ l1) | (l0 ^ l2) | (l0 ^ l3)) >>> 2 == 0 && l0 < 16 && s3 + 16 <= end) {
      hash4Short(data + <usize>s0, data + <usize>s1, data + <usize>s2, data + <usize>s3, l0, l1, l2, l3, n, w, w + 4, w + 8, w + 12);
    } else if (((l0 ^ l1) | (l0 ^ l2) | (l0 ^ l3)) >>> 2 == 0) {
      hash4Equal(data + <usize>s0, data + <usize>s1, data + <usize>s2, data + <usize>s3, l0, l1, l2, l3, n, w, w + 4, w + 8, w + 12);
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
  let i = 0;
  for (; i + 4 <= count; i += 4) {
    const p = data + <usize>i * w;
    const o = out + (<usize>i << 2);
    hash4Equal(p, p + w, p + 2 * w, p + 3 * w, keyLen, keyLen, keyLen, keyLen, n, o, o + 4, o + 8, o + 12);
  }
  for (; i < count; i++) {
    store<i32>(out + (<usize>i << 2), finalize(murmur2At(data + <usize>i * w, keyLen), n));
  }
}
