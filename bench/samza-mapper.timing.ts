// Before/after timing of the `samza` mapper's grouping step, interleaved in one
// process: the object implementation it replaced (test/samza/oracle-plan.ts)
// against calculateJobModel with the flat path (WASM and reference engines).
// Job: STREAMS streams grown from BASE to 2 x BASE partitions, GroupByPartition,
// stateful, previous assignment as the store hands it over (task -> SSP objects).
// Run: npx tsx bench/samza-mapper.timing.ts   (BENCH_STREAMS, BENCH_BASE, BENCH_ROUNDS)
import { calculateJobModel, emptyPrevious, type PreviousState } from '../src/samza/plan.js';
import { SamzaConfig } from '../src/samza/config.js';
import { ssp, type SSP } from '../src/samza/model.js';
import { oracleSamzaGrouping } from '../test/samza/oracle-plan.js';

const STREAMS = Number(process.env.BENCH_STREAMS ?? 1000);
const BASE = Number(process.env.BENCH_BASE ?? 500);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SKIP_OLD = process.env.BENCH_SKIP_OLD === '1';

const names = Array.from({ length: STREAMS }, (_, i) => `kafka.events-${String(i).padStart(4, '0')}`);
const config = new SamzaConfig(
  Object.entries({
    'task.inputs': names.join(','),
    'job.container.count': '50',
    'stores.state.factory': 'org.apache.samza.storage.kv.RocksDbKeyValueStorageEngineFactory',
  }),
);
const taskToSsps = new Map<string, SSP[]>();
for (let p = 0; p < BASE; p++) taskToSsps.set(`Partition ${p}`, names.map((n) => ssp('kafka', n.slice(6), p)));
const previous: PreviousState = { ...emptyPrevious(), taskToSsps };
const job = { config, partitionCounts: new Map(names.map((n) => [n, 2 * BASE] as [string, number])) };

const runs: Record<string, number[]> = { old: [], wasm: [], reference: [] };
const time = (f: () => unknown): number => {
  const t = performance.now();
  f();
  return performance.now() - t;
};
for (let r = 0; r < ROUNDS; r++) {
  if (!SKIP_OLD) runs.old!.push(time(() => oracleSamzaGrouping(job, taskToSsps, Array.from({ length: 50 }, (_, i) => String(i)))));
  runs.wasm!.push(time(() => calculateJobModel(job, previous, { mapper: 'samza', engine: 'wasm' })));
  runs.reference!.push(time(() => calculateJobModel(job, previous, { mapper: 'samza', engine: 'reference' })));
  console.log(`round ${r + 1}: ${Object.entries(runs).map(([k, v]) => `${k} ${v.at(-1)?.toFixed(0) ?? '-'} ms`).join(', ')}`);
}
const median = (v: number[]): number => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)]!;
console.log(`${STREAMS} streams, ${BASE} -> ${2 * BASE} partitions (${(STREAMS * 2 * BASE).toLocaleString('en-US')} SSPs), medians of ${ROUNDS}:`);
for (const [k, v] of Object.entries(runs)) if (v.length > 0) console.log(`  ${k}: ${median(v).toFixed(0)} ms`);
