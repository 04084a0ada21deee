// Samza planning benchmark. Three jobs, each with 1,000 input streams that doubled:
//  A. base mapper (default), 5,000 -> 10,000 partitions: 10M SSPs folded onto 5,000 tasks.
//  B. samza mapper (Samza's SSPGrouperProxy + HashSystemStreamPartitionMapper), 500 -> 1,000: 1M SSPs;
//     beside it, Samza's own SSPGrouperProxy + GroupByPartition from the samza-core 1.8.0 jar
//     (test/samza/java/SamzaProxyBench.java, Maven Central): cold first call and JIT-warm median,
//     and a SHA-256 check that both computed the same grouping.
//  C. samza mapper, 5,000 -> 10,000: 10M SSPs, with the previous assignment as the store hands it
//     over today (task -> SSP objects) and in flat form (previousRowsOfGrouping).
// Each whole-plan row (config, SSPs, grouping, changelog, containers, summary; GroupByPartition,
// 50 containers) runs in its own fresh process, so rows do not share a heap: the first plan is the
// cold run, then WARMUPS plans, then the median of RUNS plans is the row's p50 (Samza's side gets
// the same protocol in its JVM); the process's maxRSS is the peak memory. The kernels alone are
// timed in this process. Writes bench/results/samza.json.
// Run: npm run bench:samza
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { calculateJobModel, emptyPrevious, type MapperMode, type PreviousInput } from '../src/samza/plan.js';
import { SamzaConfig } from '../src/samza/config.js';
import { summarize } from '../src/samza/summary.js';
import { jobModelJsonChunks } from '../src/samza/job-model.js';
import { previousRowsOfGrouping } from '../src/samza/previous.js';
import { taskSsps, type Grouping } from '../src/samza/grouping.js';
import { ssp, type SSP } from '../src/samza/model.js';
import { foldPartitions } from '../src/expansion/index.js';
import { loadKernels, type EngineChoice, type SamzaProxyInput } from '../src/engine/kernels.js';
import { compileJava, runJava } from '../test/kafka/jvm.js';
import { byCodeUnits } from '../src/basics.js';

const STREAMS = Number(process.env.BENCH_STREAMS ?? 1000);
const BASE = Number(process.env.BENCH_BASE ?? 5000);
const SAMZA_BASE_1M = Number(process.env.BENCH_SAMZA_BASE ?? 500);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const WARMUPS = Number(process.env.BENCH_WARMUPS ?? 1);
const JAVA_WARMUPS = Number(process.env.BENCH_JAVA_WARMUPS ?? 1);
const JAVA_ROUNDS = Number(process.env.BENCH_JAVA_ROUNDS ?? 3);
const CONTAINERS = 50;

type Case = 'base-10M' | 'samza-1M' | 'samza-10M-objects' | 'samza-10M-flat';

const names = Array.from({ length: STREAMS }, (_, i) => `kafka.events-${String(i).padStart(4, '0')}`);
const config = new SamzaConfig(
  Object.entries({
    'job.name': 'bench',
    'task.inputs': names.join(','),
    'job.container.count': String(CONTAINERS),
    'stores.state.factory': 'org.apache.samza.storage.kv.RocksDbKeyValueStorageEngineFactory',
    'stores.state.changelog': 'kafka.state-changelog',
  }),
);

const jobAt = (partitions: number) => ({ config, partitionCounts: new Map(names.map((n) => [n, partitions] as [string, number])) });

/** The state the base mapper's previous plan (at `base` partitions) left in the store. */
function basePrevious(base: number): PreviousInput {
  const tasks = Array.from({ length: base }, (_, p) => `Partition ${p}`);
  return {
    ...emptyPrevious(),
    baseCounts: new Map(names.map((n) => [n, base] as [string, number])),
    changelog: new Map(tasks.map((t, i) => [t, i] as [string, number])),
    taskContainer: new Map(tasks.map((t, i) => [t, String(i % CONTAINERS)] as [string, string])),
  };
}

/** Samza's previousTaskToSSPAssignment after a plan at `base` partitions: `Partition p` -> partition p of every stream. */
function samzaPrevious(base: number, flat: boolean): PreviousInput {
  const prev = basePrevious(base);
  if (flat) return { ...prev, taskToSsps: previousRowsOfGrouping(calculateJobModel(jobAt(base), emptyPrevious(), { mapper: 'samza' }).grouping) };
  const taskToSsps = new Map<string, SSP[]>();
  for (let p = 0; p < base; p++) taskToSsps.set(`Partition ${p}`, names.map((n) => ssp('kafka', n.slice('kafka.'.length), p)));
  return { ...prev, taskToSsps };
}

function setup(c: Case): { job: ReturnType<typeof jobAt>; previous: PreviousInput; mapper: MapperMode } {
  switch (c) {
    case 'base-10M':
      return { job: jobAt(2 * BASE), previous: basePrevious(BASE), mapper: 'base' };
    case 'samza-1M':
      return { job: jobAt(2 * SAMZA_BASE_1M), previous: samzaPrevious(SAMZA_BASE_1M, false), mapper: 'samza' };
    case 'samza-10M-objects':
      return { job: jobAt(2 * BASE), previous: samzaPrevious(BASE, false), mapper: 'samza' };
    case 'samza-10M-flat':
      return { job: jobAt(2 * BASE), previous: samzaPrevious(BASE, true), mapper: 'samza' };
  }
}

function plan(s: ReturnType<typeof setup>, engine: EngineChoice) {
  const p = calculateJobModel(s.job, s.previous, { engine, mapper: s.mapper });
  summarize(p);
  return p;
}

/** SHA-256 of "task\tsystem.stream#partition/bucket\n" lines, tasks and SSPs in Samza's order (as SamzaProxyBench.java). */
function digest(g: Grouping): string {
  const h = createHash('sha256');
  g.tasks.forEach((t, i) => {
    for (const x of taskSsps(g, i)) h.update(`${t}\t${x.system}.${x.stream}#${x.partition}/${x.keyBucket}\n`);
  });
  return h.digest('hex');
}

interface ChildResult {
  coldMs: number;
  runsMs: number[];
  maxRssMB: number;
  ssps: number;
  tasks: number;
  digest?: string;
}

const child = process.argv.indexOf('--child');
if (child >= 0) {
  // In a fresh process, as SamzaProxyBench does in a fresh JVM: the first (cold) plan, WARMUPS more,
  // then RUNS timed ones; maxRSS covers them all (plus the runtime and the input).
  const c = process.argv[child + 1] as Case;
  const engine = process.argv[child + 2] as EngineChoice;
  const s = setup(c);
  const timed = (): [number, ReturnType<typeof plan>] => {
    const t = performance.now();
    const p = plan(s, engine);
    return [performance.now() - t, p];
  };
  const [coldMs] = timed();
  for (let w = 0; w < WARMUPS; w++) timed();
  const runsMs: number[] = [];
  let last: ReturnType<typeof plan> | undefined;
  for (let r = 0; r < RUNS; r++) {
    const [ms, p] = timed();
    runsMs.push(ms);
    last = p;
  }
  const out: ChildResult = { coldMs, runsMs, maxRssMB: process.resourceUsage().maxRSS / 1024, ssps: last!.grouping.stream.length, tasks: last!.grouping.tasks.length };
  if (c === 'samza-1M') out.digest = digest(last!.grouping);
  process.stdout.write(JSON.stringify(out));
  process.exit(0);
}

const median = (v: readonly number[]): number => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)]!;
const script = fileURLToPath(import.meta.url);

console.log(`samza plans: ${STREAMS} streams, ${CONTAINERS} containers, GroupByPartition; per row a cold plan, ${WARMUPS} warm-up(s), p50 of ${RUNS}; ${cpus().length} CPUs, Node ${process.version}`);

/** Whole-plan rows, each in a fresh process. */
const rows: Record<string, { p50Ms: number; coldMs: number; runsMs: number[]; maxRssMB: number; tasks: number } | { failed: string }> = {};
let ourDigest1M: string | undefined;
const planCases: Array<[Case, EngineChoice]> = [
  // (The 10M rows on the reference engine take tens of seconds each; the objects row runs on WASM only.)
  ['base-10M', 'wasm'],
  ['base-10M', 'reference'],
  ['samza-1M', 'wasm'],
  ['samza-1M', 'reference'],
  ['samza-10M-objects', 'wasm'],
  ['samza-10M-flat', 'wasm'],
  ['samza-10M-flat', 'reference'],
];
for (const [c, engine] of planCases) {
  const key = `${c} ${engine}`;
  const r = spawnSync(process.execPath, [...process.execArgv, script, '--child', c, engine], { encoding: 'utf8', maxBuffer: 1 << 20 });
  if (r.status !== 0) {
    rows[key] = { failed: `exit ${r.status}: ${r.stderr.trim().split('\n').slice(-3).join(' ')}` };
    console.log(`  ${key}: FAILED ${(rows[key] as { failed: string }).failed}`);
    continue;
  }
  const out = JSON.parse(r.stdout) as ChildResult;
  if (c === 'samza-1M' && engine === 'wasm') ourDigest1M = out.digest;
  rows[key] = { p50Ms: median(out.runsMs), coldMs: out.coldMs, runsMs: out.runsMs, maxRssMB: Math.round(out.maxRssMB), tasks: out.tasks };
  console.log(`  ${key}: p50 ${median(out.runsMs).toFixed(0)} ms (runs ${out.runsMs.map((x) => x.toFixed(0)).join(', ')}; cold ${out.coldMs.toFixed(0)}), peak RSS ${Math.round(out.maxRssMB)} MB`);
}

// The kernels alone, on the inputs of A and C, for "what dominates".
const kernelP50: Record<string, number> = {};
function timeKernel(label: string, f: () => unknown): void {
  const runs: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    const t = performance.now();
    f();
    runs.push(performance.now() - t);
  }
  kernelP50[label] = median(runs);
  console.log(`  ${label}: p50 ${median(runs).toFixed(0)} ms`);
}
{
  const n = STREAMS * 2 * BASE;
  const streamIdx = new Int32Array(n);
  const partitions = new Int32Array(n);
  for (let st = 0, i = 0; st < STREAMS; st++) for (let p = 0; p < 2 * BASE; p++, i++) { streamIdx[i] = st; partitions[i] = p; }
  const bases = new Int32Array(STREAMS).fill(BASE);
  for (const engine of ['wasm', 'reference'] as const) timeKernel(`fold kernel (${engine}), A`, () => foldPartitions(streamIdx, partitions, bases, { engine }));
  // C's samza kernel input: previous `Partition q` -> partition q of every stream; rows in SSP order, raw task `Partition p`.
  const prev = previousRowsOfGrouping(calculateJobModel(jobAt(BASE), emptyPrevious(), { mapper: 'samza' }).grouping);
  const taskNames = Array.from({ length: 2 * BASE }, (_, p) => `Partition ${p}`).sort(byCodeUnits);
  const rank = new Map(taskNames.map((t, i) => [t, i] as [string, number]));
  const rowTask = Int32Array.from(partitions, (p) => rank.get(`Partition ${p}`)!);
  const offset = Int32Array.from({ length: STREAMS + 1 }, (_, s) => s * 2 * BASE);
  const input: SamzaProxyInput = {
    prevStream: prev.stream,
    prevStreamToCur: Int32Array.from(prev.streams, (_, i) => i),
    prevPartition: prev.partition,
    prevBucket: prev.bucket,
    prevTask: prev.task,
    prevRank: null,
    prevToCur: Int32Array.from(prev.tasks, (t) => rank.get(t)!),
    limit: new Int32Array(STREAMS).fill(2 * BASE),
    offset,
    width: 1,
    curCount: new Int32Array(STREAMS).fill(2 * BASE),
    exclude: new Int32Array(0),
    stream: streamIdx,
    partition: partitions,
    bucket: null,
    rowTask,
    nTasks: taskNames.length,
  };
  for (const engine of ['wasm', 'reference'] as const) timeKernel(`samza kernel (${engine}), C`, () => loadKernels({ engine }).samzaProxy(input));
}

// B, the original: Samza's own classes on the 1M job, in a JVM of their own.
interface JavaRun {
  coldMs: number;
  warmMs: number[];
  warmMedianMs: number;
  tasks: number;
  sameGrouping: boolean;
}
/** Compiles and runs SamzaProxyBench against the samza-core jar; a failure is reported, never dropped. */
function runSamzaItself(ours: string | undefined): JavaRun | { failed: string } {
  try {
    const source = fileURLToPath(new URL('../test/samza/java/SamzaProxyBench.java', import.meta.url));
    const cp = compileJava('samza', [source], join(tmpdir(), 'assignor-bench-samza-classes'));
    const r = runJava(cp, 'SamzaProxyBench', [String(STREAMS), String(SAMZA_BASE_1M), String(JAVA_WARMUPS), String(JAVA_ROUNDS)], undefined, '8g');
    const out = JSON.parse(r.stdout.trim().split('\n').pop()!) as { coldMs: number; warmMs: number[]; tasks: number; digest: string };
    return { coldMs: out.coldMs, warmMs: out.warmMs, warmMedianMs: median(out.warmMs), tasks: out.tasks, sameGrouping: out.digest === ours };
  } catch (e) {
    return { failed: (e as Error).message.split('\n').slice(0, 3).join(' ') };
  }
}
const java = runSamzaItself(ourDigest1M);
console.log('failed' in java ? `  Samza's own SSPGrouperProxy: FAILED: ${java.failed}` : `  Samza's own SSPGrouperProxy + GroupByPartition: cold ${java.coldMs.toFixed(0)} ms, JIT-warm median ${java.warmMedianMs.toFixed(0)} ms, same grouping: ${java.sameGrouping}`);

// JobModel JSON for all 10M SSPs of A (what `samza plan` prints): timed once, bytes counted, never held whole.
const jsonPlan = plan(setup('base-10M'), 'wasm');
let bytes = 0;
const tj = performance.now();
for (const chunk of jobModelJsonChunks(jsonPlan)) bytes += chunk.length;
const jsonMs = performance.now() - tj;

type Row = (typeof rows)[string];
const ok = (r: Row | undefined): r is Extract<Row, { p50Ms: number }> => r !== undefined && !('failed' in r);

type OriginalRow =
  | { measured: false; why: string }
  | {
      measured: true;
      what: string;
      sameGrouping: boolean;
      assignorWarmMs: number;
      samzaWarmMedianMs: number;
      warmRatio: number;
      assignorColdMs: number;
      samzaColdMs: number;
      coldRatio: number;
      target: string;
      met: boolean;
    };

/** The samza mapper at 1M SSPs against Samza's own classes: warm against warm, cold against cold. */
function originalRow(): OriginalRow {
  const ours = rows['samza-1M wasm'];
  if ('failed' in java) return { measured: false, why: `the Java step failed: ${java.failed}` };
  if (!ok(ours)) return { measured: false, why: `assignor's 1M plan failed: ${ours === undefined ? 'not run' : ours.failed}` };
  return {
    measured: true,
    what: "assignor: the whole plan (calculateJobModel, samza mapper, WASM), p50 and first run in a fresh process; Samza: SSPGrouperProxy.group over GroupByPartition only (the grouping step), JIT-warm median and first call in a fresh JVM; same job, same run",
    sameGrouping: java.sameGrouping,
    assignorWarmMs: ours.p50Ms,
    samzaWarmMedianMs: java.warmMedianMs,
    warmRatio: java.warmMedianMs / ours.p50Ms,
    assignorColdMs: ours.coldMs,
    samzaColdMs: java.coldMs,
    coldRatio: java.coldMs / ours.coldMs,
    target: 'at least 20x (warm)',
    met: java.sameGrouping && java.warmMedianMs / ours.p50Ms >= 20,
  };
}

function target10M(key: string) {
  const r = rows[key];
  if (!ok(r)) return { measured: false, why: r === undefined ? 'not run' : r.failed };
  return { measured: true, planMs: r.p50Ms, peakMB: r.maxRssMB, underMs: 3000, underMB: 2048, met: r.p50Ms < 3000 && r.maxRssMB < 2048 };
}

const samza10M = rows['samza-10M-flat wasm'];
const result = {
  date: new Date().toISOString(),
  machine: { cpus: cpus().length, model: cpus()[0]?.model, node: process.version, loadAverage: (await import('node:os')).loadavg() },
  note: `Every row from this one run. Whole plans: each in a fresh process, the first plan cold, then ${WARMUPS} warm-up(s), then the p50 of ${RUNS}; maxRSS = peak.`,
  jobs: {
    base10M: { streams: STREAMS, partitionsBefore: BASE, partitionsAfter: 2 * BASE, ssps: STREAMS * 2 * BASE, mapper: 'base' },
    samza1M: { streams: STREAMS, partitionsBefore: SAMZA_BASE_1M, partitionsAfter: 2 * SAMZA_BASE_1M, ssps: STREAMS * 2 * SAMZA_BASE_1M, mapper: 'samza' },
    samza10M: { streams: STREAMS, partitionsBefore: BASE, partitionsAfter: 2 * BASE, ssps: STREAMS * 2 * BASE, mapper: 'samza' },
  },
  plans: rows,
  kernelsP50Ms: kernelP50,
  samzaItself: java,
  assignorVsTheOriginal: originalRow(),
  jobModelJson: { megabytes: Math.round(bytes / 1e6), ms: Math.round(jsonMs) },
  targets: {
    base10M: target10M('base-10M wasm'),
    samza10MObjects: target10M('samza-10M-objects wasm'),
    samza10MFlat: target10M('samza-10M-flat wasm'),
  },
  whatDominates: ok(samza10M)
    ? `samza mapper, 10M SSPs (previous flat): the samza kernel (copies in and out of linear memory, the previous-SSP table, one pass over the rows) is ${kernelP50['samza kernel (wasm), C']!.toFixed(0)} of the plan's ${samza10M.p50Ms.toFixed(0)} ms; the rest is the JS passes over 10M rows it shares with the base mapper (enumerating SSPs, raw task per row, the counting sort by task) and reading the 5M previous rows. With the previous assignment as 5M SSP objects, converting them and V8's garbage collector walking them (each time the plan allocates its large arrays) add the difference between the two C rows.`
    : 'samza 10M (flat) not measured',
};
mkdirSync('bench/results', { recursive: true });
writeFileSync('bench/results/samza.json', `${JSON.stringify(result, null, 2)}\n`);

const f = (x: number | undefined) => (x === undefined ? '-' : x.toFixed(0));
const cell = (key: string) => {
  const r = rows[key];
  return r === undefined ? '-' : ok(r) ? f(r.p50Ms) : 'FAILED';
};
const ratio = (key: string) => {
  const w = rows[`${key} wasm`];
  const r = rows[`${key} reference`];
  return ok(w) && ok(r) ? (r.p50Ms / w.p50Ms).toFixed(2) : '-';
};
const rss = (key: string) => {
  const r = rows[key];
  return ok(r) ? String(r.maxRssMB) : '-';
};
function originalTable(): string {
  const o = result.assignorVsTheOriginal;
  const head = `assignor vs the original, samza mapper, ${(STREAMS * 2 * SAMZA_BASE_1M).toLocaleString('en-US')} SSPs (${STREAMS} streams, ${SAMZA_BASE_1M} -> ${2 * SAMZA_BASE_1M}):\n| | assignor (WASM) | Samza 1.8.0 (SSPGrouperProxy + GroupByPartition) | Samza / assignor |\n|---|---|---|---|`;
  if (!o.measured) return `${head}\n| JIT-warm (median) | ${cell('samza-1M wasm')} ms | not measured | - |\n| cold first run | - | not measured | - |\n${o.why}`;
  return `${head}\n| JIT-warm (median) | ${f(o.assignorWarmMs)} ms | ${f(o.samzaWarmMedianMs)} ms | ${o.warmRatio.toFixed(1)}x |\n| cold first run | ${f(o.assignorColdMs)} ms | ${f(o.samzaColdMs)} ms | ${o.coldRatio.toFixed(1)}x |\nsame grouping (SHA-256 of both): ${o.sameGrouping}; target ${o.target}: ${o.met ? 'met' : 'missed'}`;
}
console.log(`
| whole plan | wasm p50 (ms) | reference p50 (ms) | reference/wasm | peak RSS wasm (MB) |
|---|---|---|---|---|
| A. base mapper, 10M SSPs | ${cell('base-10M wasm')} | ${cell('base-10M reference')} | ${ratio('base-10M')} | ${rss('base-10M wasm')} |
| B. samza mapper, 1M SSPs | ${cell('samza-1M wasm')} | ${cell('samza-1M reference')} | ${ratio('samza-1M')} | ${rss('samza-1M wasm')} |
| C. samza mapper, 10M SSPs, previous as 5M SSP objects | ${cell('samza-10M-objects wasm')} | - | - | ${rss('samza-10M-objects wasm')} |
| C. samza mapper, 10M SSPs, previous flat | ${cell('samza-10M-flat wasm')} | ${cell('samza-10M-flat reference')} | ${ratio('samza-10M-flat')} | ${rss('samza-10M-flat wasm')} |

kernels alone (p50 ms): ${Object.entries(kernelP50).map(([k, v]) => `${k} ${f(v)}`).join(', ')}

${originalTable()}

10M targets (under 3000 ms, under 2048 MB): ${Object.entries(result.targets).map(([k, t]) => `${k} ${t.measured ? (t.met ? 'met' : 'missed') : 'not measured'}`).join(', ')}
JobModel JSON of all 10M SSPs (A): ${result.jobModelJson.megabytes} MB in ${result.jobModelJson.ms} ms (streamed in chunks, not part of the plan)
${result.whatDominates}
written: bench/results/samza.json`);
