// Whole calls at 1M tasks x 10k clients (issue 11, item 5): placeStandbys from
// the JSON-shaped object, the columnar call on the same cluster, and the cold
// CLI (a spawned node) on a 1M-task file writing its JSON report to disk.
// Called from standby.bench.ts; standalone: npx tsx bench/standby-whole.ts
// (also writes the cluster file: npx tsx bench/standby-whole.ts --write FILE).
import { writeFileSync } from 'node:fs';
import type { ClusterSpec } from '../src/standby/index.js';

/** The benchmark's cluster as plain JSON-shaped data: UUID clients tagged cluster x zone (3 x 3), 1-4 threads, tasks of 8 subtopologies on random clients. */
export function benchSpec(C: number, T: number, S = 2): ClusterSpec {
  let seed = 0x9e3779b9;
  const rnd = (): number => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return seed >>> 0;
  };
  const clients: { id: string; tags: Record<string, string>; capacity: number; active: string[] }[] = [];
  for (let c = 0; c < C; c++) {
    const hex = (rnd().toString(16) + rnd().toString(16) + rnd().toString(16) + rnd().toString(16)).padEnd(32, '0').slice(0, 32);
    const id = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
    clients.push({ id, tags: { cluster: `cluster-${rnd() % 3}`, zone: `eu-central-1${'abc'[rnd() % 3]}` }, capacity: 1 + (rnd() % 4), active: [] });
  }
  const tasks: string[] = [];
  const per = Math.ceil(T / 8);
  for (let t = 0; t < T; t++) {
    const id = `${Math.floor(t / per)}_${t % per}`;
    tasks.push(id);
    clients[rnd() % C]!.active.push(id);
  }
  return { clients, tasks, numStandbys: S, tagKeys: ['cluster', 'zone'] };
}

if (process.argv[2] === '--write') {
  writeFileSync(process.argv[3]!, JSON.stringify(benchSpec(Number(process.env.C ?? 10_000), Number(process.env.T ?? 1_000_000))));
}
