// A literal model of Kafka's own data structures, used as a test oracle and in
// the benchmark: ConstrainedPrioritySet = a binary-heap PriorityQueue ordered by
// (double load, ProcessId), offer() removing a queued client with a linear
// search first, poll() popping heads until one qualifies and re-offering the
// rejected ones; the tag-aware assignor re-offers every client for every task
// and keeps usedEntries as (key, value) -> client sets. Written from the
// behaviour documented in docs/standby.md (no Kafka code). Clients are indices in ProcessId
// order, so comparing indices is comparing ProcessIds.
import type { Cluster } from '../../src/standby/input.js';
import { formatTaskId } from '../../src/standby/task-id.js';
import { javaHashMapOrder } from '../../src/standby/hash-order.js';

class PriorityQueue {
  readonly a: number[] = [];
  constructor(private readonly less: (x: number, y: number) => boolean) {}
  add(x: number): void {
    this.a.push(x);
    this.up(this.a.length - 1);
  }
  private up(i: number): void {
    const x = this.a[i]!;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.less(x, this.a[p]!)) break;
      this.a[i] = this.a[p]!;
      i = p;
    }
    this.a[i] = x;
  }
  private down(i: number): number {
    const n = this.a.length;
    const x = this.a[i]!;
    for (;;) {
      let c = 2 * i + 1;
      if (c >= n) break;
      if (c + 1 < n && this.less(this.a[c + 1]!, this.a[c]!)) c++;
      if (!this.less(this.a[c]!, x)) break;
      this.a[i] = this.a[c]!;
      i = c;
    }
    this.a[i] = x;
    return i;
  }
  /** java.util.PriorityQueue.removeAt. */
  removeAt(i: number): number {
    const x = this.a[i]!;
    const last = this.a.pop()!;
    if (i < this.a.length) {
      this.a[i] = last;
      if (this.down(i) === i) this.up(i);
    }
    return x;
  }
  /** remove(Object): a linear indexOf, as in Java. */
  remove(x: number): void {
    const i = this.a.indexOf(x);
    if (i >= 0) this.removeAt(i);
  }
  get size(): number {
    return this.a.length;
  }
}

/**
 * Returns, per task (sorted order), the standby clients in placement order. With
 * `tagPhase`, also records per task how many of them the tag phase placed (the rest
 * came from the fallback).
 */
export function kafkaLiteral(cluster: Cluster, zeroGuard = true, tagPhase?: number[]): number[][] {
  const C = cluster.clients.length;
  const T = cluster.tasks.length;
  const S = cluster.numStandbys;
  const keys = new Set(cluster.tagKeys);
  const index = new Map(cluster.tasks.map((t, i) => [formatTaskId(t), i]));
  const count = cluster.clients.map((c) => c.active.length + c.standby.length);
  const holds = cluster.clients.map((c) => new Set([...c.active, ...c.standby].map((t) => index.get(formatTaskId(t))).filter((i) => i !== undefined)));
  const activeOf = new Int32Array(T).fill(-1);
  cluster.clients.forEach((c, ci) => c.active.forEach((t) => {
    const i = index.get(formatTaskId(t));
    if (i !== undefined) activeOf[i] = ci;
  }));
  const out: number[][] = Array.from({ length: T }, () => []);
  if (S === 0 && zeroGuard) return out;
  const load = (c: number): number => count[c]! / cluster.clients[c]!.capacity;
  const pq = new PriorityQueue((x, y) => load(x) < load(y) || (load(x) === load(y) && x < y));
  const queued = new Set<number>();
  const offer = (c: number): void => {
    if (queued.has(c)) pq.remove(c);
    pq.add(c);
    queued.add(c);
  };
  const poll = (task: number, ok: (c: number) => boolean): number => {
    const rejected: number[] = [];
    let found = -1;
    while (pq.size > 0) {
      const c = pq.removeAt(0);
      queued.delete(c);
      if (!holds[c]!.has(task) && ok(c)) {
        found = c;
        break;
      }
      rejected.push(c);
    }
    for (const c of rejected) offer(c);
    return found;
  };
  const assign = (task: number, c: number): void => {
    holds[c]!.add(task);
    count[c]!++;
    out[task]!.push(c);
  };
  const remaining = new Int32Array(T).fill(S);
  const defaultLoop = (task: number): void => {
    while (remaining[task]! > 0) {
      const c = poll(task, () => true);
      if (c < 0) break;
      assign(task, c);
      remaining[task]!--;
      offer(c);
    }
  };

  if (cluster.tagKeys.length === 0) {
    for (let c = 0; c < C; c++) offer(c);
    for (let t = 0; t < T; t++) defaultLoop(t);
    return out;
  }
  // Tag statistics over all clients and all their keys.
  const keyValues = new Map<string, Set<string>>();
  const entryClients = new Map<string, Set<number>>();
  const entry = (k: string, v: string): string => JSON.stringify([k, v]);
  cluster.clients.forEach((cl, c) => {
    for (const [k, v] of cl.tags) {
      if (!keyValues.has(k)) keyValues.set(k, new Set());
      keyValues.get(k)!.add(v);
      const e = entry(k, v);
      if (!entryClients.has(e)) entryClients.set(e, new Set());
      entryClients.get(e)!.add(c);
    }
  });
  for (let t = 0; t < T; t++) {
    const a = activeOf[t]!;
    if (a < 0) continue;
    for (let c = 0; c < C; c++) offer(c); // every client, every task: the O(C^2) refresh
    let usedCount = 1;
    let rem = remaining[t]!;
    const used = new Map<string, Set<number>>();
    let last = a;
    do {
      for (const [k, v] of cluster.clients[last]!.tags) {
        if (!keys.has(k)) continue;
        if (keyValues.get(k)!.size <= usedCount) {
          for (const e of [...used.keys()]) if (JSON.parse(e)[0] === k) used.delete(e);
        } else used.set(entry(k, v), entryClients.get(entry(k, v))!);
      }
      const c = poll(t, (x) => [...used.values()].every((set) => !set.has(x)));
      if (c < 0) break;
      assign(t, c);
      if (tagPhase) tagPhase[t] = (tagPhase[t] ?? 0) + 1;
      usedCount++;
      rem--;
      last = c;
    } while (rem > 0);
    remaining[t] = rem;
  }
  for (let c = 0; c < C; c++) offer(c);
  for (const t of javaHashMapOrder(cluster.tasks).order) if (remaining[t]! > 0) defaultLoop(t);
  return out;
}
