// The arena: every facade call resets it, then allocates its inputs and outputs.
// With the stub runtime this is a bump allocator, so memory grows to the largest
// single call and then stays flat however many calls follow.

export function alloc(bytes: i32): usize {
  return heap.alloc(<usize>bytes);
}

export function reset(): void {
  heap.reset();
}

/** 1 when this module was compiled with SIMD, 0 otherwise. */
export function simdEnabled(): i32 {
  return ASC_FEATURE_SIMD ? 1 : 0;
}
