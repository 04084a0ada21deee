// `hashVar` / `hashFixed`: the best kernel this build has. The SIMD module
// (built with --enable simd) runs the i32x4 kernels; the scalar module never
// compiles them (ASC_FEATURE_SIMD is a compile-time constant).
import { hashVarScalar, hashFixedScalar } from './murmur2';
import { hashVarSimd, hashFixedSimd } from './simd';

export function hashVar(data: usize, offsets: usize, count: i32, n: i32, out: usize): void {
  if (ASC_FEATURE_SIMD) hashVarSimd(data, offsets, count, n, out);
  else hashVarScalar(data, offsets, count, n, out);
}

export function hashFixed(data: usize, keyLen: i32, count: i32, n: i32, out: usize): void {
  if (ASC_FEATURE_SIMD) hashFixedSimd(data, keyLen, count, n, out);
  else hashFixedScalar(data, keyLen, count, n, out);
}
