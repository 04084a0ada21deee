// Partition folding for expansion: with a stream's task set fixed at its base
// partition count B, partition p belongs to the task that owned p mod B.
// Inputs are flat: per item a stream index and a partition; per stream a base count.

export function foldPartitions(streams: usize, partitions: usize, count: i32, bases: usize, out: usize): void {
  for (let i = 0; i < count; i++) {
    const o = <usize>i << 2;
    const b = load<u32>(bases + (<usize>load<i32>(streams + o) << 2));
    store<i32>(out + o, <i32>(load<u32>(partitions + o) % b));
  }
}
