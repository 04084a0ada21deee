// The whole standby calls of this checkout against an older one, in one process,
// interleaved: placeStandbys from the JSON-shaped object, balanced and in kafka mode,
// at 1M tasks x 10k clients (the benchmark's cluster, bench/standby-whole.ts). Checks that both give the same slots. Not a test.
// Prepare the old checkout once (its generated WASM binaries included):
//   git worktree add --detach /tmp/base <commit> && (cd /tmp/base && npm ci && npm run build:wasm)
// Run: BASE=/tmp/base npx tsx bench/standby-before-after.timing.ts
// (R rounds, default 7; C clients, T tasks; WHICH=obj,kafka). Prints median and min
// of wall and CPU ms per call: CPU is the better guide on a shared machine.
import { benchSpec } from './standby-whole.js';
import * as NEW from '../src/standby/index.js';

type Lib = typeof NEW;
const base = process.env.BASE;
if (base === undefined) throw new Error('set BASE to a checkout of the older commit (see the header)');
const OLD = (await import(`${base}/src/standby/index.ts`)) as Lib;
const C = Number(process.env.C ?? 10_000), T = Number(process.env.T ?? 1_000_000), R = Number(process.env.R ?? 7);
const spec = benchSpec(C, T);
const res = new Map<string, { wall: number[]; cpu: number[] }>();
function run(name: string, f: () => Int32Array): Int32Array {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const out = f();
  const wall = performance.now() - t0;
  const c = process.cpuUsage(c0);
  if (!res.has(name)) res.set(name, { wall: [], cpu: [] });
  res.get(name)!.wall.push(wall);
  res.get(name)!.cpu.push((c.user + c.system) / 1000);
  return out;
}
function same(a: Int32Array, b: Int32Array, what: string): void {
  if (a.length !== b.length || a.some((x, i) => x !== b[i])) throw new Error(`${what}: the two checkouts place differently`);
}
const which = (process.env.WHICH ?? 'obj,kafka').split(',');
for (let r = 0; r < R; r++) {
  // Alternate which goes first, so neither always pays for the other's garbage.
  const pairs: [string, () => Int32Array, () => Int32Array][] = [];
  if (which.includes('obj')) pairs.push(['object call', () => OLD.placeStandbys(spec).slots, () => NEW.placeStandbys(spec).slots]);
  if (which.includes('kafka')) pairs.push(['object call, kafka mode', () => OLD.placeStandbys(spec, { mode: 'kafka' }).slots, () => NEW.placeStandbys(spec, { mode: 'kafka' }).slots]);
  for (const [name, old, now] of pairs) {
    if (r % 2 === 0) same(run(`${name}, before`, old), run(`${name}, after`, now), name);
    else {
      const b = run(`${name}, after`, now);
      same(run(`${name}, before`, old), b, name);
    }
  }
}
const med = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
console.log(`${T} tasks x ${C} clients, balanced unless named, ${R} rounds interleaved; before = ${base}`);
console.log('| call | median wall ms | median CPU ms | min wall ms | min CPU ms |\n| --- | ---: | ---: | ---: | ---: |');
for (const [name, v] of res) console.log(`| ${name} | ${med(v.wall).toFixed(0)} | ${med(v.cpu).toFixed(0)} | ${Math.min(...v.wall).toFixed(0)} | ${Math.min(...v.cpu).toFixed(0)} |`);
