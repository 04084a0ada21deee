// The JobModel JSON writer (jobModelJsonBytes) of this checkout against an older one, in one
// process, interleaved, on the same plan: by default the 1M-task job of the store issue (one stream
// of 1,000,000 partitions, GroupByPartition, 10 containers, a changelog store, 136 MB of JSON), and
// a job with standbys, broadcast inputs and key buckets. Checks that both write the same bytes
// (SHA-256). Not a test.
// Prepare the old checkout once (its generated WASM binaries included):
//   git worktree add --detach /tmp/base <commit> && (cd /tmp/base && npm ci && npm run build:wasm)
// Run: BASE=/tmp/base npx tsx bench/job-model-json-before-after.timing.ts
// (R rounds, default 7; P partitions of the 1M job). Prints median and min of wall and CPU ms per
// whole model: CPU is the better guide on a shared machine.
import { createHash } from 'node:crypto';
import { calculateJobModel, emptyPrevious, type JobModelPlan } from '../src/samza/plan.js';
import { SamzaConfig } from '../src/samza/config.js';
import * as NEW from '../src/samza/job-model.js';

type Writer = (plan: JobModelPlan) => Iterable<Uint8Array>;
const base = process.env.BASE;
if (base === undefined) throw new Error('set BASE to a checkout of the older commit (see the header)');
const OLD = (await import(`${base}/src/samza/job-model.ts`)) as typeof NEW;
const R = Number(process.env.R ?? 7), P = Number(process.env.P ?? 1_000_000);
const STORE = { 'stores.s.factory': 'org.apache.samza.storage.kv.RocksDbKeyValueStorageEngineFactory', 'stores.s.changelog': 'kafka.cl' };

const jobs: [string, Record<string, string>, Record<string, number>][] = [
  [`1 stream x ${P} partitions, 10 containers`, { ...STORE, 'task.inputs': 'kafka.s0', 'job.container.count': '10' }, { 'kafka.s0': P }],
  [
    'standbys x2, broadcast, key buckets (80k tasks)',
    {
      ...STORE,
      'task.inputs': 'kafka.s0,kafka.s1',
      'task.broadcast.inputs': 'kafka.b#[0-2],kafka.s1#3',
      'job.container.count': '7',
      'job.standbytasks.replication.factor': '2',
      'job.elasticity.factor': '2',
    },
    { 'kafka.s0': 20_000, 'kafka.s1': 5_000, 'kafka.b': 4 },
  ],
];

const med = (v: number[]): number => [...v].sort((a, b) => a - b)[v.length >> 1]!;
const min = (v: number[]): number => Math.min(...v);

for (const [label, config, counts] of jobs) {
  const plan = calculateJobModel({ config: new SamzaConfig(Object.entries(config)), partitionCounts: new Map(Object.entries(counts)) }, emptyPrevious());
  const writers: [string, Writer][] = [
    ['old', (p) => OLD.jobModelJsonBytes(p)],
    ['new', (p) => NEW.jobModelJsonBytes(p)],
  ];
  const digests = writers.map(([, w]) => {
    const h = createHash('sha256');
    let bytes = 0;
    for (const piece of w(plan)) {
      h.update(piece);
      bytes += piece.length;
    }
    return `${h.digest('hex')} ${bytes}`;
  });
  if (digests[0] !== digests[1]) throw new Error(`${label}: the writers differ: ${digests.join(' vs ')}`);
  const wall = writers.map(() => [] as number[]);
  const cpu = writers.map(() => [] as number[]);
  for (let r = 0; r < R; r++) {
    for (let x = 0; x < writers.length; x++) {
      const i = (x + r) % writers.length; // alternate which one runs first
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      let bytes = 0;
      for (const piece of writers[i]![1](plan)) bytes += piece.length;
      wall[i]!.push(performance.now() - t0);
      const c = process.cpuUsage(c0);
      cpu[i]!.push((c.user + c.system) / 1000);
      if (`${bytes}` !== digests[0]!.split(' ')[1]) throw new Error('byte count changed between rounds');
    }
  }
  console.log(`${label}: ${Number(digests[0]!.split(' ')[1]) / 1e6} MB, same SHA-256; ${R} rounds`);
  writers.forEach(([name], i) =>
    console.log(`  ${name}: wall median ${med(wall[i]!).toFixed(0)} ms (min ${min(wall[i]!).toFixed(0)}), CPU median ${med(cpu[i]!).toFixed(0)} ms (min ${min(cpu[i]!).toFixed(0)})`),
  );
  console.log(`  old/new: wall ${(med(wall[0]!) / med(wall[1]!)).toFixed(2)}x, CPU ${(med(cpu[0]!) / med(cpu[1]!)).toFixed(2)}x (medians)`);
}
