// `hashVar` / `hashFixed`: the best kernel this build has. The SIMD module
// (built with --enable simd) runs the i32x4 kernels; the scalar module never
// compiles them (ASC_FEATURE_SIMD is a compile-time constant).
import { hashVarScalar, hashFixedScalar } from './murmur2';
import { hashVarSimd, hashFixedSimd } from './simd';
import { javaUtf8Keys } from './utf8';

export function hashVar(data: usize, offsets: usize, count: i32, n: i32, out: usize): void {
  if (ASC_FEATURE_SIMD) hashVarSimd(data, offsets, count, n, out);
  else hashVarScalar(data, offsets, count, n, out);
}

export function hashFixed(data: usize, keyLen: i32, count: i32, n: i32, out: usize): void {
  if (ASC_FEATURE_SIMD) hashFixedSimd(data, keyLen, count, n, out);
  else hashFixedScalar(data, keyLen, count, n, out);
}

/**
 * One run of string keys: `buffers` holds two addresses, the run's UTF-16 units and the room
 * for its bytes (data); offsets[0 .. count] hold cumulative unit counts. Encodes each key as
 * Java's UTF-8 into data (offsets become byte offsets) and hashes them into out, as hashVar
 * does. Returns the bytes written (equal to the units when the run was ASCII).
 */
export function hashUtf16Run(buffers: usize, offsets: usize, count: i32, n: i32, out: usize): i32 {
  const units = <usize>load<u32>(buffers), data = <usize>load<u32>(buffers, 4);
  const bytes = javaUtf8Keys(units, offsets, count, data);
  hashVar(data, offsets, count, n, out);
  return bytes;
}
