// fast-check generators and a seeded generator for standby clusters.
import fc from 'fast-check';
import type { ClientSpec, ClusterSpec } from '../../src/standby/index.js';

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
