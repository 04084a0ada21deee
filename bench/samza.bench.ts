// Samza planning benchmark: a job with 1,000 input streams whose partition
// counts doubled (5,000 -> 10,000 each), i.e. 10 million SSPs folded onto
// 5,000 tasks by the base mapper, grouped into 50 containers. The whole plan
// (config, SSP enumeration, fold, task index, per-task layout, changelog,
// containers, summary) on the WASM and reference engines; p50 of 3 runs.
// Peak memory: each engine's plan once more in a child process, maxRSS.
// Writes bench/results/samza.json. Run: npm run bench:samza
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Bench } from 'tinybench';
import { calculateJobModel, emptyPrevious, type PreviousState } from '../src/samza/plan.js';
import { SamzaConfig } from '../src/samza/config.js';
import { summarize } from '../src/samza/summary.js';
import { jobModelJsonChunks } from '../src/samza/job-model.js';
import { foldPartitions } from '../src/expansion/index.js';
import type { EngineChoice } from '../src/engine/kernels.js';

const STREAMS = Number(process.env.BENCH_STREAMS ?? 1000);
const BASE = Number(process.env.BENCH_BASE ?? 5000);
const CONTAINERS = 50;

function setup() {
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
  // The state the previous plan (at BASE partitions) left in the coordinator store.
  const tasks = Array.from({ length: BASE }, (_, p) => `Partition ${p}`);
  const previous: PreviousState = {
    ...emptyPrevious(),
    baseCounts: new Map(names.map((n) => [n, BASE] as [string, number])),
    changelog: new Map(tasks.map((t, i) => [t, i] as [string, number])),
    taskContainer: new Map(tasks.map((t, i) => [t, String(i % CONTAINERS)] as [string, string])),
  };
  const job = { config, partitionCounts: new Map(names.map((n) => [n, 2 * BASE] as [string, number])) };
  return { job, previous };
}

function plan(engine: EngineChoice, s: ReturnType<typeof setup>) {
  const p = calculateJobModel(s.job, s.previous, { engine });
  summarize(p);
  return p;
}

const child = process.argv.indexOf('--child');
if (child >= 0) {
  // One whole plan in a fresh process: its maxRSS is the plan's peak memory (plus the runtime's baseline).
  const engine = process.argv[child + 1] as EngineChoice;
  const s = setup();
  const t = performance.now();
  const p = plan(engine, s);
  const ms = performance.now() - t;
  process.stdout.write(JSON.stringify({ ms, maxRssMB: process.resourceUsage().maxRSS / 1024, ssps: p.grouping.stream.length, tasks: p.grouping.tasks.length }));
  process.exit(0);
}

const s = setup();
const ssps = STREAMS * 2 * BASE;
console.log(`samza plan: ${STREAMS} streams, ${BASE} -> ${2 * BASE} partitions each = ${ssps.toLocaleString('en-US')} SSPs, ${CONTAINERS} containers; ${cpus().length} CPUs, Node ${process.version}`);

const bench = new Bench({ time: 0, iterations: 3, warmupIterations: 0 });
for (const engine of ['wasm', 'reference'] as const) bench.add(`plan (${engine})`, () => void plan(engine, s), { async: false });

// The fold kernel alone on the same 10M (stream, partition) pairs, for "what dominates".
const streamIdx = new Int32Array(ssps);
const partitions = new Int32Array(ssps);
for (let st = 0, i = 0; st < STREAMS; st++) for (let p = 0; p < 2 * BASE; p++, i++) { streamIdx[i] = st; partitions[i] = p; }
const bases = new Int32Array(STREAMS).fill(BASE);
for (const engine of ['wasm', 'reference'] as const) bench.add(`fold kernel only (${engine})`, () => void foldPartitions(streamIdx, partitions, bases, { engine }), { async: false });

await bench.run();
const p50: Record<string, number> = {};
for (const task of bench.tasks) {
  const r = task.result;
  if (r.state !== 'completed') throw new Error(`${task.name}: ${r.state}`);
  p50[task.name] = r.latency.p50;
}

// JobModel JSON for all 10M SSPs (what `samza plan` prints): timed once, bytes counted, never held whole.
const jsonPlan = plan('wasm', s);
let bytes = 0;
const tj = performance.now();
for (const chunk of jobModelJsonChunks(jsonPlan)) bytes += chunk.length;
const jsonMs = performance.now() - tj;

const script = fileURLToPath(import.meta.url);
const peak: Record<string, { ms: number; maxRssMB: number }> = {};
for (const engine of ['wasm', 'reference'] as const) {
  const r = spawnSync(process.execPath, [...process.execArgv, script, '--child', engine], { encoding: 'utf8', maxBuffer: 1 << 20 });
  if (r.status !== 0) throw new Error(`child ${engine} failed: ${r.stderr}`);
  peak[engine] = JSON.parse(r.stdout);
}

const result = {
  date: new Date().toISOString(),
  machine: { cpus: cpus().length, model: cpus()[0]?.model, node: process.version },
  note: 'Measured on a shared 2-core machine while other engineers ran tests and benchmarks: timings are noisy (contention).',
  job: { streams: STREAMS, partitionsBefore: BASE, partitionsAfter: 2 * BASE, ssps, tasks: BASE, containers: CONTAINERS, grouper: 'GroupByPartition', mapper: 'base' },
  planP50Ms: { wasm: p50['plan (wasm)'], reference: p50['plan (reference)'] },
  planRatioReferenceOverWasm: p50['plan (reference)']! / p50['plan (wasm)']!,
  foldKernelP50Ms: { wasm: p50['fold kernel only (wasm)'], reference: p50['fold kernel only (reference)'] },
  foldRatioReferenceOverWasm: p50['fold kernel only (reference)']! / p50['fold kernel only (wasm)']!,
  peakRssMB: { wasm: Math.round(peak.wasm!.maxRssMB), reference: Math.round(peak.reference!.maxRssMB) },
  singlePlanInFreshProcessMs: { wasm: Math.round(peak.wasm!.ms), reference: Math.round(peak.reference!.ms) },
  jobModelJson: { megabytes: Math.round(bytes / 1e6), ms: Math.round(jsonMs) },
  targets: { planUnderMs: 3000, peakUnderMB: 2048 },
  whatDominates: '',
};
{
  const rest = result.planP50Ms.wasm! - result.foldKernelP50Ms.wasm!;
  result.whatDominates =
    `Of the ${result.planP50Ms.wasm!.toFixed(0)} ms WASM plan, the fold call is ${result.foldKernelP50Ms.wasm!.toFixed(0)} ms ` +
    '(the copies into and out of linear memory and the modulo loop, which also validates each item). ' +
    `The other ~${rest.toFixed(0)} ms are the JS passes over 10M rows: enumerating (stream, partition), row -> task index, and the counting-sort permutation by task. ` +
    'Task names, changelog and container assignment are per task (5,000) and negligible. So WASM only speeds up the fold, and the whole plan only slightly.';
}
mkdirSync('bench/results', { recursive: true });
writeFileSync('bench/results/samza.json', `${JSON.stringify(result, null, 2)}\n`);

const f = (x: number | undefined) => (x === undefined ? '-' : x.toFixed(0));
console.log(`| step | wasm p50 (ms) | reference p50 (ms) | reference/wasm |
|---|---|---|---|
| whole plan | ${f(result.planP50Ms.wasm)} | ${f(result.planP50Ms.reference)} | ${result.planRatioReferenceOverWasm.toFixed(2)} |
| fold kernel only | ${f(result.foldKernelP50Ms.wasm)} | ${f(result.foldKernelP50Ms.reference)} | ${result.foldRatioReferenceOverWasm.toFixed(2)} |

peak RSS of one whole plan in a fresh process: wasm ${result.peakRssMB.wasm} MB, reference ${result.peakRssMB.reference} MB
JobModel JSON of all ${ssps.toLocaleString('en-US')} SSPs: ${result.jobModelJson.megabytes} MB in ${result.jobModelJson.ms} ms (streamed in chunks, not part of the plan)
${result.whatDominates}
written: bench/results/samza.json`);
