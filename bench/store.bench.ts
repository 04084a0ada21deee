// Coordinator store benchmark (issue 10 item 4, issue 14 defect 8).
//
// 1. A 10M-SSP job model written to and re-read from the file store: the samza benchmark's job
//    (1,000 streams x 10,000 partitions = 10,000,000 SSPs, base mapper, GroupByPartition: 10,000
//    tasks, 50 containers).
//    Each measurement runs in a fresh child process, so its maxRSS is that step's peak memory.
//      write:  the first store cycle on an empty store (plan + compare + one batch), and the
//              batch write alone (encode, write, fsync, commit marker, fsync, apply).
//      read:   open (replay the log) and read everything the cycle reads (readPrevious).
//      replan: open + an unchanged cycle (nothing to write) + close.
// 2. `assignor samza plan --store` end to end (the CLI, stdout to /dev/null) re-planning an
//    unchanged 1M-SSP job: 100 streams x 10,000 partitions (10,000 tasks), and 1 stream x
//    1,000,000 partitions (1,000,000 tasks, the hardest shape for the per-task records).
// Medians of ROUNDS runs. Writes bench/results/store.json. Run: npm run bench:store
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SamzaConfig } from '../src/samza/config.js';
import { readPrevious, runCycle } from '../src/samza/cycle.js';
import { CoordinatorStore } from '../src/store/index.js';

const STREAMS = Number(process.env.BENCH_STREAMS ?? 1000);
const PARTITIONS = Number(process.env.BENCH_PARTITIONS ?? 10_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONTAINERS = 50;
/** The job's size as the rows name it (10M by default). */
const SIZE = `${(STREAMS * PARTITIONS) / 1e6}M`;

function bigJob() {
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
  return { config, partitionCounts: new Map(names.map((n) => [n, PARTITIONS] as [string, number])) };
}

const rssMB = (): number => Math.round(process.resourceUsage().maxRSS / 1024);
/** CPU time of this process so far (user + system, every thread: GC helpers count), ms. On a loaded machine it says more than wall time. */
const cpuMs = (): number => {
  const u = process.cpuUsage();
  return Math.round((u.user + u.system) / 1000);
};

const child = process.argv.indexOf('--child');
if (child >= 0) {
  const what = process.argv[child + 1];
  const dir = process.argv[child + 2]!;
  const job = bigJob();
  const t0 = performance.now();
  const c0 = cpuMs();
  if (what === 'write') {
    const store = CoordinatorStore.open(dir);
    let writeMs = 0;
    const write = store.commit.bind(store);
    store.commit = (records, ssps) => {
      const t = performance.now();
      write(records, ssps);
      writeMs += performance.now() - t;
    };
    const r = runCycle(store, job);
    store.close();
    const ms = performance.now() - t0;
    process.stdout.write(JSON.stringify({ ms, cpuMs: cpuMs() - c0, writeMs, records: r.recordsWritten, ssps: r.plan.grouping.stream.length, fileBytes: statSync(join(dir, 'coordinator.log')).size, rssMB: rssMB() }));
  } else if (what === 'read') {
    const store = CoordinatorStore.open(dir, { readOnly: true });
    const openMs = performance.now() - t0;
    const snap = readPrevious(store);
    const ms = performance.now() - t0;
    process.stdout.write(JSON.stringify({ ms, cpuMs: cpuMs() - c0, openMs, rows: snap.assignment.table.live, rssMB: rssMB() }));
    store.close();
  } else {
    const store = CoordinatorStore.open(dir);
    const r = runCycle(store, job);
    store.close();
    process.stdout.write(JSON.stringify({ ms: performance.now() - t0, cpuMs: cpuMs() - c0, records: r.recordsWritten, rssMB: rssMB() }));
  }
  process.exit(0);
}

const script = fileURLToPath(import.meta.url);
const root = fileURLToPath(new URL('..', import.meta.url));
function runChild(what: string, dir: string): Record<string, number> {
  const r = spawnSync(process.execPath, [...process.execArgv, script, '--child', what, dir], { encoding: 'utf8', maxBuffer: 1 << 20 });
  if (r.status !== 0) throw new Error(`child ${what} failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as Record<string, number>;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

const ssps = STREAMS * PARTITIONS;
console.log(`store: ${STREAMS} streams x ${PARTITIONS} partitions = ${ssps.toLocaleString('en-US')} SSPs, ${ROUNDS} rounds; ${cpus().length} CPUs, Node ${process.version}`);
const base = mkdtempSync(join(tmpdir(), 'assignor-store-bench-'));
const runs: Record<string, Array<Record<string, number>>> = { write: [], read: [], replan: [] };
try {
  for (let round = 0; round < ROUNDS; round++) {
    const dir = join(base, `r${round}`);
    runs.write!.push(runChild('write', dir));
    runs.read!.push(runChild('read', dir));
    runs.replan!.push(runChild('replan', dir));
    rmSync(dir, { recursive: true, force: true });
    const last = (w: string): Record<string, number> => runs[w]!.at(-1)!;
    console.log(
      `round ${round + 1} (wall / CPU): write ${last('write').ms!.toFixed(0)} / ${last('write').cpuMs} ms, read ${last('read').ms!.toFixed(0)} / ${last('read').cpuMs} ms, ` +
        `unchanged replan ${last('replan').ms!.toFixed(0)} / ${last('replan').cpuMs} ms; load average ${loadavg()[0]!.toFixed(1)}`,
    );
  }
} finally {
  rmSync(base, { recursive: true, force: true });
}
const med = (what: string, field: string): number => median(runs[what]!.map((r) => r[field]!));

// The CLI, end to end, on three 1M-SSP shapes (1,000, 10,000 and 1,000,000 tasks), CLI_ROUNDS
// re-plans each (more than ROUNDS: a re-plan is a couple of seconds, and this VM's speed moves).
const CLI_ROUNDS = 5;
// The CLI's CPU time (user + system) and peak memory, reported by a preload on exit (a child's rusage is not in spawnSync's result).
const CPU_PRELOAD = `process.on('exit', () => { const u = process.cpuUsage(); require('fs').writeSync(2, '\\nBENCH_CPU ' + Math.round((u.user + u.system) / 1000) + ' ' + Math.round(process.resourceUsage().maxRSS / 1024) + '\\n'); });`;
function cliReplan(name: string, streams: number, partitions: number): { name: string; firstMs: number; replanMs: number[]; medianMs: number; replanCpuMs: number[]; medianCpuMs: number; peakRssMB: number; logBytes: number } {
  const dir = mkdtempSync(join(tmpdir(), 'assignor-store-cli-'));
  try {
    const names = Array.from({ length: streams }, (_, i) => `kafka.s${i}`);
    const jobFile = join(dir, 'job.json');
    writeFileSync(
      jobFile,
      JSON.stringify({
        config: { 'task.inputs': names.join(','), 'job.container.count': '10', 'stores.s.factory': 'org.apache.samza.storage.kv.RocksDbKeyValueStorageEngineFactory', 'stores.s.changelog': 'kafka.cl' },
        partitions: Object.fromEntries(names.map((s) => [s, partitions])),
      }),
    );
    const store = join(dir, 'store');
    const preload = join(dir, 'cpu-report.cjs');
    writeFileSync(preload, CPU_PRELOAD);
    const run = (): { ms: number; cpuMs: number; rssMB: number } => {
      const t = performance.now();
      const r = spawnSync(process.execPath, ['--require', preload, join(root, 'dist/cli/main.js'), 'samza', 'plan', '--job', jobFile, '--store', store, '--quiet'], { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
      const ms = performance.now() - t;
      if (r.status !== 0) throw new Error(`samza plan failed: ${r.stderr}`);
      const m = /BENCH_CPU (\d+) (\d+)/.exec(r.stderr);
      return { ms, cpuMs: m ? Number(m[1]) : Number.NaN, rssMB: m ? Number(m[2]) : Number.NaN };
    };
    const first = run();
    const replans = Array.from({ length: CLI_ROUNDS }, run);
    const replanMs = replans.map((r) => r.ms);
    const replanCpuMs = replans.map((r) => r.cpuMs);
    return {
      name,
      firstMs: Math.round(first.ms),
      replanMs: replanMs.map(Math.round),
      medianMs: Math.round(median(replanMs)),
      replanCpuMs,
      medianCpuMs: Math.round(median(replanCpuMs)),
      peakRssMB: median(replans.map((r) => r.rssMB)),
      logBytes: statSync(join(store, 'coordinator.log')).size,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
const cliRows = [
  cliReplan('1,000 streams x 1,000 partitions (1,000 tasks)', 1_000, 1_000),
  cliReplan('100 streams x 10,000 partitions (10,000 tasks)', 100, 10_000),
  cliReplan('1 stream x 1,000,000 partitions (1,000,000 tasks)', 1, 1_000_000),
];
for (const c of cliRows) {
  console.log(`samza plan --store, unchanged re-plan, ${c.name}: median ${c.medianMs} ms wall, ${c.medianCpuMs} ms CPU, peak ${c.peakRssMB} MB (runs ${c.replanMs.join(', ')}; first plan ${c.firstMs} ms; log ${c.logBytes} bytes)`);
}

const result = {
  date: new Date().toISOString(),
  machine: { cpus: cpus().length, model: cpus()[0]?.model, node: process.version },
  note: 'Measured on a shared 2-core machine while other engineers ran tests and benchmarks: wall timings are noisy (contention); cpuMs (user + system of the process) is the steadier figure.',
  loadAverageAtEnd: loadavg(),
  job: { streams: STREAMS, partitions: PARTITIONS, ssps, tasks: PARTITIONS, containers: CONTAINERS, grouper: 'GroupByPartition', mapper: 'base' },
  tenMillion: {
    writeCycleMs: Math.round(med('write', 'ms')),
    writeCycleCpuMs: med('write', 'cpuMs'),
    writeBatchMs: Math.round(med('write', 'writeMs')),
    writePeakRssMB: med('write', 'rssMB'),
    logBytes: med('write', 'fileBytes'),
    recordsWritten: med('write', 'records'),
    reopenAndReadMs: Math.round(med('read', 'ms')),
    reopenAndReadCpuMs: med('read', 'cpuMs'),
    reopenMs: Math.round(med('read', 'openMs')),
    readPeakRssMB: med('read', 'rssMB'),
    unchangedReplanMs: Math.round(med('replan', 'ms')),
    unchangedReplanCpuMs: med('replan', 'cpuMs'),
    replanPeakRssMB: med('replan', 'rssMB'),
    runs,
  },
  cliUnchangedReplan: cliRows,
  targets: { writeUnderMs: 3000, reopenAndReadUnderMs: 2000, peakUnderMB: 2048, unchangedReplan1MUnderMs: 2000 },
};
console.log(JSON.stringify({ ...result, tenMillion: { ...result.tenMillion, runs: undefined } }, null, 2));
// Each target beside its median, met or missed (the targets: 10M write < 3 s, reopen and read
// < 2 s, peak < 2 GB; unchanged 1M-SSP re-plan <= 2 s).
const t = result.targets;
const tm = result.tenMillion;
const rows: Array<[string, number, number, string]> = [
  [`${SIZE} write: first cycle (plan + compare + one batch), wall`, tm.writeCycleMs, t.writeUnderMs, 'ms'],
  [`${SIZE} write: first cycle, CPU`, tm.writeCycleCpuMs, t.writeUnderMs, 'ms'],
  [`${SIZE} write: the batch alone, wall`, tm.writeBatchMs, t.writeUnderMs, 'ms'],
  [`${SIZE} reopen and read, wall`, tm.reopenAndReadMs, t.reopenAndReadUnderMs, 'ms'],
  [`${SIZE} reopen and read, CPU`, tm.reopenAndReadCpuMs, t.reopenAndReadUnderMs, 'ms'],
  [`${SIZE} peak memory, write`, tm.writePeakRssMB, t.peakUnderMB, 'MB'],
  [`${SIZE} peak memory, read`, tm.readPeakRssMB, t.peakUnderMB, 'MB'],
  [`${SIZE} peak memory, unchanged re-plan`, tm.replanPeakRssMB, t.peakUnderMB, 'MB'],
  ...cliRows.flatMap((c): Array<[string, number, number, string]> => [
    [`CLI unchanged re-plan, ${c.name}, wall`, c.medianMs, t.unchangedReplan1MUnderMs, 'ms'],
  ]),
];
for (const [what, v, target, unit] of rows) {
  console.log(`${what}: median ${v} ${unit}, target < ${target} ${unit}: ${v < target ? 'met' : 'MISSED'} (${(v / target).toFixed(2)}x the target)`);
}
// The re-plan target is the time a user waits (wall). CPU time also counts the garbage collector's
// helper threads running beside the main one, so it is reported, not held to the target.
for (const c of cliRows) console.log(`CLI unchanged re-plan, ${c.name}, CPU (reported): median ${c.medianCpuMs} ms`);
const out = fileURLToPath(new URL('./results/', import.meta.url));
mkdirSync(out, { recursive: true });
writeFileSync(join(out, 'store.json'), `${JSON.stringify(result, null, 2)}\n`);
