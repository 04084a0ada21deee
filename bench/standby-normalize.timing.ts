// Times normalizeCluster against the previous implementation (input-reference.ts) on
// the benchmark's input (UUID clients tagged cluster x zone, 1-4 threads, tasks of 8
// subtopologies on random clients), old and new interleaved, input rebuilt per run.
// Not a test. Run: npx tsx bench/standby-normalize.timing.ts
// (T=tasks C=clients RUNS=runs per implementation; defaults 1000000 10000 5).
import { type ClusterSpec } from '../src/standby/input.js';
import { normalizeCluster as NEW } from '../src/standby/normalize.js';
import { normalizeCluster as OLD } from '../test/standby/input-reference.js';
const T = Number(process.env.T ?? 1_000_000), C = Number(process.env.C ?? 10_000);
let seed = 0x9e3779b9;
function rnd(): number { seed ^= seed << 13; seed ^= seed >>> 17; seed ^= seed << 5; return seed >>> 0; }
function spec(): ClusterSpec {
  seed = 0x9e3779b9;
  const clients: { id: string; tags: Record<string, string>; capacity: number; active: string[] }[] = [];
  for (let c = 0; c < C; c++) {
    const hex = (rnd().toString(16) + rnd().toString(16) + rnd().toString(16) + rnd().toString(16)).padEnd(32, '0').slice(0, 32);
    const id = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
    clients.push({ id, tags: { cluster: `cluster-${rnd() % 3}`, zone: `eu-central-1${'abc'[rnd() % 3]}` }, capacity: 1 + (rnd() % 4), active: [] as string[] });
  }
  const tasks: string[] = [];
  const per = Math.ceil(T / 8);
  for (let t = 0; t < T; t++) { const id = `${Math.floor(t / per)}_${t % per}`; tasks.push(id); clients[rnd() % C]!.active.push(id); }
  return { clients, tasks, numStandbys: 2, tagKeys: ['cluster', 'zone'] };
}
const runs = Number(process.env.RUNS ?? 5);
const tOld: number[] = [], tNew: number[] = [];
const med = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]!.toFixed(0);
for (let r = 0; r < runs; r++) {
  for (const [name, f, ts] of [['old', OLD, tOld], ['new', NEW, tNew]] as const) {
    let s = spec();
    const t0 = performance.now();
    f(s);
    (ts as number[]).push(performance.now() - t0);
    s = null as unknown as ClusterSpec;
  }
}
console.log(`${T} tasks x ${C} clients, ${runs} runs each, interleaved`);
console.log('old (913ba93) ms', tOld.map((x) => x.toFixed(0)).join(' '), 'median', med(tOld));
console.log('new ms', tNew.map((x) => x.toFixed(0)).join(' '), 'median', med(tNew));
