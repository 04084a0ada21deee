// Whole calls at 1M tasks x 10k clients (issue 11, item 5): placeStandbys from
// the JSON-shaped object, and the cold CLI (a spawned node) on a 1M-task file
// writing its JSON report to disk.
// The CLI row needs dist/ (npm run build). Called from standby.bench.ts;
// standalone: npx tsx bench/standby-whole.ts (BENCH_TASKS, BENCH_CLIENTS, ROUNDS,
// CLI_ROUNDS); npx tsx bench/standby-whole.ts --write FILE writes the cluster file.
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { normalizeCluster, placeStandbys, type ClusterSpec } from '../src/standby/index.js';
import { flatten } from '../src/standby/problem.js';
import { normalizeObjects } from '../src/standby/input.js';
import { javaHashMapOrderOf } from '../src/standby/hash-order.js';
import { loadKernels } from '../src/engine/kernels.js';
import { KAFKA_TAG_AWARE, NEED_EXACT } from '../src/engine/abi.js';

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

export interface WholeRow {
  case: string;
  /** Median wall ms, and the median CPU ms of this process (in-process rows) or of the child (CLI, when /usr/bin/time is there). */
  p50ms: number;
  cpuMs?: number;
  targetMs: number;
  met: boolean;
  note: string;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

function timed(fn: () => void): { wall: number; cpu: number } {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  fn();
  const wall = performance.now() - t0;
  const c = process.cpuUsage(c0);
  return { wall, cpu: (c.user + c.system) / 1000 };
}

/**
 * The two whole-call rows at C clients x T tasks x 2 standbys (balanced, the default): `rounds`
 * object calls (medians of wall and CPU time, against the 1 s target), then `cliRounds` cold CLI runs.
 */
export function wholeRows(C: number, T: number, rounds = 5, cliRounds = 3): WholeRow[] {
  const spec = benchSpec(C, T);
  const obj: { wall: number; cpu: number }[] = [];
  const phases = { normalize: [] as number[], objectReader: [] as number[], flatten: [] as number[], order: [] as number[], kernel: [] as number[], kafkaPhase: [] as number[] };
  const kernels = loadKernels({});
  for (let r = 0; r < rounds; r++) {
    obj.push(timed(() => void placeStandbys(spec)));
    // Where the object call's time goes (CPU ms): normalizing, flattening (columns -> the kernel's
    // problem), the fallback's HashMap order, the balanced kernel itself and, inside it, Kafka's
    // placement that balanced starts from.
    let cluster = normalizeCluster(spec);
    phases.normalize.push(timed(() => void (cluster = normalizeCluster(spec))).cpu);
    // The object reader alone, which normalizeCluster leaves to input its columnar reader refuses.
    phases.objectReader.push(timed(() => void normalizeObjects(spec)).cpu);
    let flat = flatten(cluster, 'balanced', true);
    phases.flatten.push(timed(() => void (flat = flatten(cluster, 'balanced', true))).cpu);
    let order: Int32Array = new Int32Array(0);
    phases.order.push(timed(() => void (order = javaHashMapOrderOf(flat.subtopologies, flat.partitions).order)).cpu);
    phases.kernel.push(timed(() => void kernels.standbyBalanced(flat.problem, KAFKA_TAG_AWARE, order)).cpu);
    // The part of the kernel that is Kafka's own placement (balanced's first phase, alone).
    phases.kafkaPhase.push(timed(() => void kernels.standbyKafka(flat.problem, KAFKA_TAG_AWARE | NEED_EXACT, order)).cpu);
  }
  const rows: WholeRow[] = [];
  const o = median(obj.map((x) => x.wall));
  const phase = `CPU: normalize ${median(phases.normalize).toFixed(0)} ms (the object reader alone: ${median(phases.objectReader).toFixed(0)} ms), flatten ${median(phases.flatten).toFixed(0)} ms, HashMap order ${median(phases.order).toFixed(0)} ms, balanced kernel (${kernels.name}) ${median(phases.kernel).toFixed(0)} ms (of which Kafka's placement, alone: ${median(phases.kafkaPhase).toFixed(0)} ms); the rest of the wall is garbage collection and copies; walls ${obj.map((x) => x.wall.toFixed(0)).join(' ')}`;
  rows.push({ case: `placeStandbys(JSON-shaped object), ${T} tasks x ${C} clients, balanced, whole call`, p50ms: o, cpuMs: median(obj.map((x) => x.cpu)), targetMs: 1000, met: o < 1000, note: phase });
  rows.push(cliRow(spec, T, cliRounds));
  return rows;
}

/** `assignor standby` from a cold start (a spawned node on dist/) on a T-task file, JSON report to a file on disk. */
function cliRow(spec: ClusterSpec, T: number, rounds: number): WholeRow {
  const cli = new URL('../dist/cli/main.js', import.meta.url).pathname;
  const name = `assignor standby, cold CLI, ${T}-task file -> JSON report on disk`;
  if (!existsSync(cli)) return { case: name, p50ms: NaN, targetMs: 5000, met: false, note: 'dist/cli/main.js missing: run npm run build first' };
  const dir = mkdtempSync(join(tmpdir(), 'standby-bench-'));
  try {
    const input = join(dir, 'cluster.json');
    writeFileSync(input, JSON.stringify(spec));
    const walls: number[] = [];
    const cpus: number[] = [];
    const rss: number[] = [];
    let bytes = 0;
    const gnuTime = existsSync('/usr/bin/time');
    for (let r = 0; r < rounds; r++) {
      const out = openSync(join(dir, 'report.json'), 'w');
      const t0 = performance.now();
      const args = [cli, 'standby', '--input', input];
      const res = gnuTime
        ? spawnSync('/usr/bin/time', ['-f', '%U %S %M', process.execPath, ...args], { stdio: ['ignore', out, 'pipe'] })
        : spawnSync(process.execPath, args, { stdio: ['ignore', out, 'pipe'] });
      walls.push(performance.now() - t0);
      closeSync(out);
      if (res.status !== 0) return { case: name, p50ms: NaN, targetMs: 5000, met: false, note: `the CLI failed: ${res.stderr.toString().trim().split('\n').at(-1)}` };
      if (gnuTime) {
        const [u, sy, m] = res.stderr.toString().trim().split('\n').at(-1)!.split(' ').map(Number);
        cpus.push((u! + sy!) * 1000);
        rss.push(m! / 1024);
      }
      bytes = statSync(join(dir, 'report.json')).size;
    }
    const w = median(walls);
    const extra = gnuTime ? `, CPU ${median(cpus).toFixed(0)} ms, peak RSS ${median(rss).toFixed(0)} MB` : '';
    const phases = cliPhases(input, join(dir, 'phases.json'), rounds);
    return { case: name, p50ms: w, ...(gnuTime ? { cpuMs: median(cpus) } : {}), targetMs: 5000, met: w < 5000, note: `walls ${walls.map((x) => x.toFixed(0)).join(' ')}; report ${(bytes / 1e6).toFixed(0)} MB${extra}; input file ${(statSync(input).size / 1e6).toFixed(0)} MB; ${phases}` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Where a cold run's time goes: the CLI's steps in a fresh node each round (dist/), CPU ms per step:
 * reading the file (JSON.parse, then normalizeCluster), placing, and writing the report to a file.
 */
function cliPhases(input: string, out: string, rounds: number): string {
  const dist = new URL('../dist/', import.meta.url).href;
  const script = `
    import { readFileSync, openSync, writeSync, closeSync } from 'node:fs';
    const { normalizeCluster } = await import('${dist}standby/normalize.js');
    const { placeCluster } = await import('${dist}standby/place.js');
    const { reportJson } = await import('${dist}standby/report-json.js');
    const cpu = () => { const c = process.cpuUsage(); return (c.user + c.system) / 1000; };
    const t0 = cpu();
    const bytes = readFileSync(${JSON.stringify(input)});
    const cluster = normalizeCluster(JSON.parse(bytes.toString('utf8')));
    const t1 = cpu();
    const pl = placeCluster(cluster, 'balanced');
    const t2 = cpu();
    const fd = openSync(${JSON.stringify(out)}, 'w');
    let writing = 0;
    for (const piece of reportJson(pl, pl.kafka(), 4 << 20, undefined, { reuse: true })) { const w0 = cpu(); writeSync(fd, piece); writing += cpu() - w0; }
    closeSync(fd);
    const t3 = cpu();
    console.log(JSON.stringify({ read: t1 - t0, place: t2 - t1, report: t3 - t2, writing }));`;
  const runs: Record<string, number>[] = [];
  for (let r = 0; r < rounds; r++) {
    const res = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    if (res.status !== 0) return `phases failed: ${res.stderr.trim().split('\n').at(-1)}`;
    runs.push(JSON.parse(res.stdout) as Record<string, number>);
  }
  const m = (k: string): string => median(runs.map((x) => x[k]!)).toFixed(0);
  return `cold CPU by step (medians, one node a round): read ${m('read')} ms (JSON.parse, then normalizeCluster), place ${m('place')} ms, report ${m('report')} ms (of which writing ${m('writing')} ms)`;
}

export function wholeMarkdown(rows: WholeRow[]): string {
  const lines = ['| whole call | p50 wall ms | CPU ms | target | met | what dominates / notes |', '| --- | ---: | ---: | ---: | --- | --- |'];
  for (const r of rows) lines.push(`| ${r.case} | ${r.p50ms.toFixed(0)} | ${r.cpuMs === undefined ? '-' : r.cpuMs.toFixed(0)} | < ${r.targetMs} ms | ${r.met ? 'met' : 'MISSED'} | ${r.note} |`);
  return lines.join('\n');
}

if (process.argv[2] === '--write') {
  writeFileSync(process.argv[3]!, JSON.stringify(benchSpec(Number(process.env.C ?? 10_000), Number(process.env.T ?? 1_000_000))));
} else if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(wholeMarkdown(wholeRows(Number(process.env.BENCH_CLIENTS ?? 10_000), Number(process.env.BENCH_TASKS ?? 1_000_000), Number(process.env.ROUNDS ?? 5), Number(process.env.CLI_ROUNDS ?? 3))));
}
