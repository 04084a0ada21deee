// Kafka coordinator store at scale: a job model of BENCH_SSPS SSPs (default 10,000,000: 1,000 input
// streams x 10,000 partitions folded onto 5,000 tasks, plus the per-task records) written to a new
// topic as ONE transaction (one Samza record per SSP), then read back by a fresh process (the replay
// a restarted coordinator does). Each phase runs in its own child process, so its maxRSS is its peak
// memory. Single runs (a 10M write takes minutes); BENCH_RUNS=3 for medians at smaller sizes.
// Needs a broker: KAFKA_BROKERS, or one is started (test/kafka/broker.ts) and stopped afterwards.
// Writes bench/results/kafka-store.json. Run: npm run build && npx tsx bench/kafka-store.bench.ts
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KafkaCoordinatorStore } from '../src/store/kafka-store.js';
import type { StoreRecord, SspRows } from '../src/store/backend.js';

const SSPS = Number(process.env.BENCH_SSPS ?? 10_000_000);
const STREAMS = Number(process.env.BENCH_STREAMS ?? 1000);
const TASKS = Number(process.env.BENCH_TASKS ?? 5000);
const RUNS = Number(process.env.BENCH_RUNS ?? 1);

/** The model's records: per-task types (changelog, container, mode) as records, the SSP assignment as columns. */
function model(): { records: StoreRecord[]; ssps: SspRows } {
  const per = Math.ceil(SSPS / STREAMS);
  const streams = Array.from({ length: STREAMS }, (_, i) => ({ system: 'kafka', stream: `events-${String(i).padStart(4, '0')}` }));
  const lists = Array.from({ length: TASKS }, (_, t) => JSON.stringify([`Partition ${t}`]));
  const stream = new Int32Array(SSPS);
  const partition = new Int32Array(SSPS);
  const list = new Int32Array(SSPS);
  for (let i = 0; i < SSPS; i++) {
    stream[i] = Math.floor(i / per);
    partition[i] = i % per;
    list[i] = (i % per) % TASKS;
  }
  const records: StoreRecord[] = [];
  for (let t = 0; t < TASKS; t++) {
    const task = `Partition ${t}`;
    records.push({ type: 'set-changelog', key: task, value: { Partition: String(t) } });
    records.push({ type: 'set-task-container-assignment', key: task, value: { containerId: String(t % 50) } });
    records.push({ type: 'set-task-mode-assignment', key: task, value: { taskMode: 'Active' } });
  }
  return { records, ssps: { streams, lists, n: SSPS, stream, partition, bucket: null, list } };
}

async function childMain(phase: string, location: string): Promise<void> {
  const t0 = performance.now();
  if (phase === 'write') {
    const m = model();
    const built = performance.now();
    const store = await KafkaCoordinatorStore.open(location, { transactionTimeoutMs: 900_000 });
    const opened = performance.now();
    await store.commit(m.records, m.ssps);
    const committed = performance.now();
    const w = store.written;
    await store.close();
    out({ phase, buildMs: built - t0, openMs: opened - built, commitMs: committed - opened, records: w.records, bytes: w.bytes });
  } else {
    const store = await KafkaCoordinatorStore.open(location, { readOnly: true, readStallTimeoutMs: 600_000 });
    const read = performance.now();
    const a = store.sspAssignment();
    const r = store.openReport;
    const live = store.size;
    const probe = a.find('kafka', `events-${String(STREAMS - 1).padStart(4, '0')}`, (SSPS - 1) % Math.ceil(SSPS / STREAMS), -1);
    await store.close();
    out({ phase, readMs: read - t0, records: r.records, bytes: r.bytes, liveKeys: live, sspRows: a.live, probeFound: probe >= 0 });
  }
}

function out(o: Record<string, unknown>): void {
  process.stdout.write(JSON.stringify({ ...o, maxRssMB: Math.round(process.resourceUsage().maxRSS / 1024) }));
}

function child(phase: string, location: string): Record<string, number | boolean | string> {
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--max-old-space-size=8192', fileURLToPath(import.meta.url), '--child', phase, location], { encoding: 'utf8', maxBuffer: 1 << 24 });
  if (r.status !== 0) throw new Error(`${phase} failed (${r.status}): ${r.stderr}`);
  return JSON.parse(r.stdout) as Record<string, number | boolean | string>;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

async function main(): Promise<void> {
  let brokers = process.env.KAFKA_BROKERS;
  let dir: string | undefined;
  const { startBroker, stopBroker } = await import('../test/kafka/broker.js');
  if (brokers === undefined || brokers === '') {
    dir = mkdtempSync(join(tmpdir(), 'assignor-bench-kafka-'));
    brokers = (await startBroker({ dir, timeoutMs: 400_000 })).brokers;
  }
  try {
    console.log(`kafka store: ${SSPS.toLocaleString('en-US')} SSPs (${STREAMS} streams, ${TASKS} tasks) + ${3 * TASKS} per-task records, one transaction; ${cpus().length} CPUs, Node ${process.version}, broker ${brokers}`);
    const writes: Array<Record<string, number | boolean | string>> = [];
    const reads: Array<Record<string, number | boolean | string>> = [];
    for (let run = 0; run < RUNS; run++) {
      const location = `kafka://${brokers}/bench-coordinator-${process.pid}-${run}`;
      const w = child('write', location);
      const r = child('read', location);
      if (r.sspRows !== SSPS || r.probeFound !== true) throw new Error(`read back ${String(r.sspRows)} SSP rows, expected ${SSPS}`);
      console.log(`run ${run + 1}: write ${((w.commitMs as number) / 1000).toFixed(1)} s (${w.records} records, ${((w.bytes as number) / 2 ** 20).toFixed(0)} MiB, peak ${w.maxRssMB} MB); read ${((r.readMs as number) / 1000).toFixed(1)} s (peak ${r.maxRssMB} MB)`);
      writes.push(w);
      reads.push(r);
    }
    const result = {
      date: new Date().toISOString(),
      ssps: SSPS,
      streams: STREAMS,
      tasks: TASKS,
      runs: RUNS,
      writeMs: median(writes.map((w) => w.commitMs as number)),
      writeRecords: writes[0]!.records,
      writeMiB: Math.round((writes[0]!.bytes as number) / 2 ** 20),
      writeRecordsPerSec: Math.round((writes[0]!.records as number) / (median(writes.map((w) => w.commitMs as number)) / 1000)),
      writePeakMB: median(writes.map((w) => w.maxRssMB as number)),
      readMs: median(reads.map((r) => r.readMs as number)),
      readRecordsPerSec: Math.round((reads[0]!.records as number) / (median(reads.map((r) => r.readMs as number)) / 1000)),
      readPeakMB: median(reads.map((r) => r.maxRssMB as number)),
      raw: { writes, reads },
    };
    console.table([{ write_s: result.writeMs / 1000, write_rec_per_s: result.writeRecordsPerSec, write_peak_MB: result.writePeakMB, read_s: result.readMs / 1000, read_rec_per_s: result.readRecordsPerSec, read_peak_MB: result.readPeakMB, MiB: result.writeMiB }]);
    mkdirSync(join(fileURLToPath(new URL('.', import.meta.url)), 'results'), { recursive: true });
    writeFileSync(join(fileURLToPath(new URL('.', import.meta.url)), 'results', 'kafka-store.json'), `${JSON.stringify(result, null, 2)}\n`);
  } finally {
    if (dir !== undefined) await stopBroker(dir, { graceMs: 30_000, remove: true });
  }
}

const i = process.argv.indexOf('--child');
if (i >= 0) await childMain(process.argv[i + 1]!, process.argv[i + 2]!);
else await main();
