// Partition folding for expansion: with a stream's task set fixed at its base
// partition count B, partition p belongs to the task that owned p mod B.
// Inputs are flat: per item a stream index and a partition; per stream a base count.
// The kernel also validates its input (the JS side would otherwise need its own
// pass over millions of items): it returns the index of the first item whose
// stream index is out of range or whose partition is negative, or -1.
// The folded partitions overwrite `partitions` (each is read before it is written).

export function foldPartitions(streams: usize, partitions: usize, count: i32, bases: usize, nBases: i32): i32 {
  for (let i = 0; i < count; i++) {
    const o = <usize>i << 2;
    const s = load<i32>(streams + o);
    const p = load<i32>(partitions + o);
    if (<u32>s >= <u32>nBases || p < 0) return i;
    store<i32>(partitions + o, <i32>(<u32>p % load<u32>(bases + (<usize>s << 2))));
  }
  return -1;
}
