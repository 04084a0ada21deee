// i32x4 murmur2: four keys hashed side by side, one lane each. Lanes run in
// lockstep over the blocks all four keys have; 4-block strides load one v128
// per key and transpose, single blocks are gathered. Keys of equal length
// (fixed-width batches, or ids like `user-1234567`) finish in the vector too;
// otherwise each lane finishes its own remaining blocks and tail in scalar code.
import { finalize, finishFrom, murmur2At } from './murmur2';

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
@inline function tailBits(t: usize, rem: i32): u32 {
  let x: u32 = 0;
  if (rem == 3) x ^= <u32>load<u8>(t, 2) << 16;
  if (rem >= 2) x ^= <u32>load<u8>(t, 1) << 8;
  if (rem >= 1) x ^= <u32>load<u8>(t);
  return x;
}

// @ts-ignore: decorator
@inline function hash4(p0: usize, p1: usize, p2: usize, p3: usize,
  l0: i32, l1: i32, l2: i32, l3: i32, n: i32, out: usize): void {
  let h = v128.xor(i32x4.splat(<i32>SEED), i32x4.replace_lane(i32x4.replace_lane(
    i32x4.replace_lane(i32x4.splat(l0), 1, l1), 2, l2), 3, l3));
  let common = min(min(l0, l1), min(l2, l3)) >> 2;
  let off: usize = 0;
  let b = 0;
  for (; b + 4 <= common; b += 4) {
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
  for (; b < common; b++) {
    let k = i32x4.splat(load<i32>(p0 + off));
    k = i32x4.replace_lane(k, 1, load<i32>(p1 + off));
    k = i32x4.replace_lane(k, 2, load<i32>(p2 + off));
    k = i32x4.replace_lane(k, 3, load<i32>(p3 + off));
    h = mixV(h, k);
    off += 4;
  }
  if (l0 == l1 && l0 == l2 && l0 == l3) {
    const rem = l0 & 3;
    if (rem != 0) {
      let t = i32x4.splat(<i32>tailBits(p0 + off, rem));
      t = i32x4.replace_lane(t, 1, <i32>tailBits(p1 + off, rem));
      t = i32x4.replace_lane(t, 2, <i32>tailBits(p2 + off, rem));
      t = i32x4.replace_lane(t, 3, <i32>tailBits(p3 + off, rem));
      h = i32x4.mul(v128.xor(h, t), i32x4.splat(<i32>M));
    }
    h = v128.xor(h, i32x4.shr_u(h, 13));
    h = i32x4.mul(h, i32x4.splat(<i32>M));
    h = v128.xor(h, i32x4.shr_u(h, 15));
    store<i32>(out, finalize(<u32>i32x4.extract_lane(h, 0), n));
    store<i32>(out, finalize(<u32>i32x4.extract_lane(h, 1), n), 4);
    store<i32>(out, finalize(<u32>i32x4.extract_lane(h, 2), n), 8);
    store<i32>(out, finalize(<u32>i32x4.extract_lane(h, 3), n), 12);
  } else {
    store<i32>(out, finalize(finishFrom(<u32>i32x4.extract_lane(h, 0), p0, l0, common), n));
    store<i32>(out, finalize(finishFrom(<u32>i32x4.extract_lane(h, 1), p1, l1, common), n), 4);
    store<i32>(out, finalize(finishFrom(<u32>i32x4.extract_lane(h, 2), p2, l2, common), n), 8);
    store<i32>(out, finalize(finishFrom(<u32>i32x4.extract_lane(h, 3), p3, l3, common), n), 12);
  }
}

export function hashVarSimd(data: usize, offsets: usize, count: i32, n: i32, out: usize): void {
  let i = 0;
  for (; i + 4 <= count; i += 4) {
    const o = offsets + (<usize>i << 2);
    const s0 = load<i32>(o), s1 = load<i32>(o, 4), s2 = load<i32>(o, 8);
    const s3 = load<i32>(o, 12), s4 = load<i32>(o, 16);
    hash4(data + <usize>s0, data + <usize>s1, data + <usize>s2, data + <usize>s3,
      s1 - s0, s2 - s1, s3 - s2, s4 - s3, n, out + (<usize>i << 2));
  }
  for (; i < count; i++) {
    const o = offsets + (<usize>i << 2);
    const s = load<i32>(o);
    store<i32>(out + (<usize>i << 2), finalize(murmur2At(data + <usize>s, load<i32>(o, 4) - s), n));
  }
}

export function hashFixedSimd(data: usize, keyLen: i32, count: i32, n: i32, out: usize): void {
  const w = <usize>keyLen;
  let i = 0;
  for (; i + 4 <= count; i += 4) {
    const p = data + <usize>i * w;
    hash4(p, p + w, p + 2 * w, p + 3 * w, keyLen, keyLen, keyLen, keyLen, n, out + (<usize>i << 2));
  }
  for (; i < count; i++) {
    store<i32>(out + (<usize>i << 2), finalize(murmur2At(data + <usize>i * w, keyLen), n));
  }
}
