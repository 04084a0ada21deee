// Linear-memory helpers shared by the group kernels: i32 arrays by pointer, and scratch from the
// arena (reset per call; not zeroed, so scratch is filled here).

// @ts-ignore: decorator
@inline export function ld(p: usize, i: i32): i32 {
  return load<i32>(p + (<usize>i << 2));
}
// @ts-ignore: decorator
@inline export function st(p: usize, i: i32, v: i32): void {
  store<i32>(p + (<usize>i << 2), v);
}
// @ts-ignore: decorator
@inline export function inc(p: usize, i: i32): void {
  const a = p + (<usize>i << 2);
  store<i32>(a, load<i32>(a) + 1);
}
// @ts-ignore: decorator
@inline export function dec(p: usize, i: i32): void {
  const a = p + (<usize>i << 2);
  store<i32>(a, load<i32>(a) - 1);
}

/** n i32 (at least one) from the arena, contents undefined: for arrays written before they are read. */
export function unfilled(n: i32): usize {
  return heap.alloc(<usize>(n > 0 ? n : 1) << 2);
}

/** n i32 (at least one) from the arena, every one set to fill. */
export function scratch(n: i32, fill: i32): usize {
  const m: i32 = n > 0 ? n : 1;
  const bytes = <usize>m << 2;
  const p = heap.alloc(bytes);
  if (fill == 0) memory.fill(p, 0, bytes);
  else for (let i = 0; i < m; i++) st(p, i, fill);
  return p;
}
