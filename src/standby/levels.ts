// The KIP's three preference levels, read off the key masks the kernels return
// (bit k set = the standby differs on key k from every copy placed before it):
//   absolute - differs on every configured key
//   partial  - differs on some keys
//   least    - differs on none (placed by load alone)
// With no configured keys every standby is 'untagged'.
export type Level = 'absolute' | 'partial' | 'least';
export type TaskLevel = Level | 'untagged' | 'none';

export const LEVELS: readonly Level[] = ['absolute', 'partial', 'least'];

export function levelOf(mask: number, keys: number): Level | 'untagged' {
  if (keys === 0) return 'untagged';
  if (mask === (1 << keys) - 1) return 'absolute';
  return mask === 0 ? 'least' : 'partial';
}

const RANK: Record<TaskLevel, number> = { absolute: 3, partial: 2, least: 1, untagged: 0, none: -1 };

/** The lower of two levels (a task's level is that of its worst standby). */
export function lowerLevel(a: TaskLevel, b: TaskLevel): TaskLevel {
  return RANK[a] <= RANK[b] ? a : b;
}

export function levelRank(l: TaskLevel): number {
  return RANK[l];
}

/** Names of the keys set in `mask`, in precedence order. */
export function keysOf(mask: number, tagKeys: readonly string[]): string[] {
  return tagKeys.filter((_, k) => (mask >>> k) & 1);
}
