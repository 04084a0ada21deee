// fast-check generators and a seeded generator for standby clusters.
import fc from 'fast-check';
import type { ClientSpec, ClusterSpec } from '../../src/standby/input.js';

export interface GenOptions {
  maxClients?: number;
  maxTasks?: number;
  maxStandbys?: number;
  /** Allow clients that lack a configured key. */
  missingKeys?: boolean;
  existing?: boolean;
}

/** A random cluster: UUID or plain ids, up to 3 keys of 1..3 values, capacities 1..3, actives spread at random. */
export function arbCluster(o: GenOptions = {}): fc.Arbitrary<ClusterSpec> {
  const maxC = o.maxClients ?? 9;
  const maxT = o.maxTasks ?? 14;
  return fc
    .record({
      keys: fc.integer({ min: 0, max: 3 }),
      valueCounts: fc.array(fc.integer({ min: 1, max: 3 }), { minLength: 3, maxLength: 3 }),
      clients: fc.integer({ min: 1, max: maxC }),
      tasks: fc.integer({ min: 0, max: maxT }),
      standbys: fc.integer({ min: 0, max: o.maxStandbys ?? 4 }),
      seed: fc.integer(),
      uuids: fc.boolean(),
    })
    .chain((r) =>
      fc.record({
        r: fc.constant(r),
        ids: r.uuids ? fc.uniqueArray(fc.uuid(), { minLength: r.clients, maxLength: r.clients, selector: (s) => s.toLowerCase() }) : fc.constant(Array.from({ length: r.clients }, (_, i) => `c${i}`)),
        tags: fc.array(fc.array(fc.integer({ min: o.missingKeys ? -1 : 0, max: 2 }), { minLength: 3, maxLength: 3 }), { minLength: r.clients, maxLength: r.clients }),
        caps: fc.array(fc.integer({ min: 1, max: 3 }), { minLength: r.clients, maxLength: r.clients }),
        owners: fc.array(fc.integer({ min: o.missingKeys ? -1 : 0, max: r.clients - 1 }), { minLength: r.tasks, maxLength: r.tasks }),
        stateless: fc.array(fc.integer({ min: 0, max: 2 }), { minLength: r.clients, maxLength: r.clients }),
        extra: fc.array(fc.integer({ min: -1, max: o.existing ? r.clients - 1 : -1 }), { minLength: r.tasks, maxLength: r.tasks }),
      }),
    )
    .map(({ r, ids, tags, caps, owners, stateless, extra }) => {
      const keyNames = ['zone', 'cluster', 'rack'].slice(0, r.keys);
      const clients: ClientSpec[] = ids.map((id, c) => {
        const t: Record<string, string> = {};
        keyNames.forEach((k, i) => {
          const v = tags[c]![i]!;
          if (v >= 0) t[k] = `${k}${v % r.valueCounts[i]!}`;
        });
        const active: string[] = [];
        for (let s = 0; s < stateless[c]!; s++) active.push(`9_${c * 3 + s}`);
        return { id, tags: t, capacity: caps[c]!, active };
      });
      const tasks: string[] = [];
      owners.forEach((owner, i) => {
        const task = `${i % 3}_${Math.floor(i / 3)}`;
        tasks.push(task);
        if (owner >= 0) clients[owner]!.active!.push(task);
        const e = extra[i]!;
        if (e >= 0 && e !== owner) (clients[e]!.standby ??= []).push(task);
      });
      return { clients, tasks, numStandbys: r.standbys, tagKeys: keyNames };
    });
}

/** Deterministic pseudo-random numbers (mulberry32). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** C clients over a grid of tag values (e.g. [3, 3] = cluster x zone), T tasks dealt round-robin. */
export function seededCluster(seed: number, C: number, T: number, S: number, grid: number[]): ClusterSpec {
  const rand = rng(seed);
  const keys = ['cluster', 'zone', 'rack', 'row', 'pod'].slice(0, grid.length);
  const clients: ClientSpec[] = [];
  for (let c = 0; c < C; c++) {
    const tags: Record<string, string> = {};
    keys.forEach((k, i) => (tags[k] = `${k}-${Math.floor(rand() * grid[i]!)}`));
    const hex = Math.floor(rand() * 0xffffffff).toString(16).padStart(8, '0');
    clients.push({ id: `${hex}-0000-4000-8000-${c.toString(16).padStart(12, '0')}`, tags, capacity: 1 + Math.floor(rand() * 3), active: [] });
  }
  const tasks: string[] = [];
  for (let t = 0; t < T; t++) {
    const id = `${t % 8}_${Math.floor(t / 8)}`;
    tasks.push(id);
    clients[Math.floor(rand() * C)]!.active!.push(id);
  }
  return { clients, tasks, numStandbys: S, tagKeys: keys };
}

export interface SkewOptions {
  maxClients?: number;
  maxTasks?: number;
  /** numStandbys is drawn from 0..maxStandbys (default 3). */
  maxStandbys?: number;
  minKeys?: number;
  /** Tag keys are drawn from minKeys..maxKeys (default 0..3). */
  maxKeys?: number;
  /** Existing standbys in the clients' `standby` lists. */
  existing?: boolean;
  /** Stateful tasks no client runs. */
  unowned?: boolean;
}

/**
 * A seeded random cluster of the shapes that make placement hard: a value held by one client
 * only, keys with one value, clients lacking keys, capacities 1..8, more standbys than distinct
 * values, a tag key no one configured, stateless actives, UUIDs sharing their first half (the
 * signed tie-break on both halves). Every id is a lowercase UUID (Kafka's ProcessId).
 */
export function skewedCluster(seed: number, o: SkewOptions = {}): ClusterSpec {
  const rand = rng(seed);
  const int = (lo: number, hi: number): number => lo + Math.floor(rand() * (hi - lo + 1));
  const pick = <T>(xs: readonly T[]): T => xs[int(0, xs.length - 1)]!;
  const maxC = o.maxClients ?? 40;
  const C = pick(['small', 'small', 'mid', 'large'] as const) === 'small' ? int(1, 8) : rand() < 0.6 ? int(2, Math.min(30, maxC)) : int(2, maxC);
  const K = int(o.minKeys ?? 0, o.maxKeys ?? 3);
  const names = ['zone', 'cluster', 'rack', 'host', 'row'];
  for (let i = names.length - 1; i > 0; i--) {
    const j = int(0, i);
    [names[i], names[j]] = [names[j]!, names[i]!];
  }
  const keys = names.slice(0, K);
  const hex = (n: number): string => Array.from({ length: n }, () => '0123456789abcdef'[int(0, 15)]).join('');
  const sharedHalf = `${hex(8)}-${hex(4)}-${hex(4)}`;
  const ids = new Set<string>();
  while (ids.size < C) ids.add(`${rand() < 0.3 ? sharedHalf : `${hex(8)}-${hex(4)}-${hex(4)}`}-${hex(4)}-${hex(12)}`);
  const capStyle = pick(['one', 'random', 'tiers'] as const);
  const clients: ClientSpec[] = [...ids].map((id) => ({
    id,
    tags: {},
    capacity: capStyle === 'one' ? 1 : capStyle === 'random' ? int(1, 8) : pick([1, 8]),
    active: [],
  }));
  for (const key of keys) {
    const n = pick([1, 2, 2, 3, 3, 4, 6]);
    const style = n > 1 && rand() < 0.35 ? 'rare' : 'uniform';
    const missing = pick([0, 0, 0, 0.1, 0.3]);
    const rare = int(0, C - 1);
    clients.forEach((c, i) => {
      if (rand() < missing) return;
      const v = style === 'rare' ? (i === rare ? 0 : int(1, n - 1)) : int(0, n - 1);
      (c.tags as Record<string, string>)[key] = `${key}-${v}`;
    });
  }
  // A tag no one configured: Kafka counts it but never uses it.
  if (K > 0 && K < 5 && rand() < 0.2) for (const c of clients) if (rand() < 0.7) (c.tags as Record<string, string>)[names[K]!] = `x${int(0, 2)}`;
  const T = int(0, o.maxTasks ?? 40);
  const tasks: string[] = [];
  const subtopologies = int(1, 4);
  for (let i = 0; i < T; i++) {
    const task = `${i % subtopologies}_${Math.floor(i / subtopologies)}`;
    tasks.push(task);
    const owner = o.unowned && rand() < 0.06 ? -1 : int(0, C - 1);
    if (owner >= 0) clients[owner]!.active!.push(task);
    if (o.existing && C > 1 && rand() < 0.12) {
      const e = int(0, C - 1);
      if (e !== owner) (clients[e]!.standby ??= []).push(task);
    }
  }
  const stateless = rand() < 0.3;
  if (stateless) clients.forEach((c, i) => { for (let s = int(0, 2); s > 0; s--) c.active!.push(`9_${i * 3 + s}`); });
  return { clients, tasks, numStandbys: int(0, o.maxStandbys ?? 3), tagKeys: keys };
}
