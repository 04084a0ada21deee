// kafka-streams' own ClientTagAwareStandbyTaskAssignor (4.4.0 from Maven Central, run by
// test/standby/java/StandbyOracle.java) beside assignor's kafka mode on the same clusters, at
// the sizes where Kafka's code finishes in minutes: Kafka's cold first run (a fresh JVM) and
// its JIT-warm median, assignor's median, the ratio, and a check that the placements agree.
// If the Java step fails, the rows say so; none is dropped. Run alone: npx tsx bench/standby-java.ts
import { fileURLToPath } from 'node:url';
import { normalizeCluster, placeCluster, formatTaskId, type ClusterSpec } from '../src/standby/index.js';
import { seededCluster } from '../test/standby/generators.js';
import { oracleClasspath, runKafkaOracle } from '../test/standby/kafka-jar.js';

export interface JavaRow {
  case: string;
  kafkaColdMs: number | null;
  kafkaWarmMs: number | null;
  assignorMs: number;
  ratio: number | null;
  agree: boolean | null;
  note?: string;
}

const SIZES: [tasks: number, clients: number, runs: number][] = [
  [1_000, 100, 7],
  [1_000, 1_000, 5],
  [5_000, 1_000, 2],
];

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}

function assignorPlacements(spec: ClusterSpec): { ms: number; placements: string } {
  const cluster = normalizeCluster(spec);
  const times: number[] = [];
  let last: ReturnType<typeof placeCluster> | undefined;
  for (let r = 0; r < 5; r++) {
    const t = performance.now();
    last = placeCluster(cluster, 'kafka');
    times.push(performance.now() - t);
  }
  const pl = last!;
  const out: [string, string[]][] = [];
  pl.cluster.tasks.forEach((task, t) => {
    const list: string[] = [];
    for (let j = 0; j < pl.width; j++) if (pl.slots[t * pl.width + j]! >= 0) list.push(pl.cluster.clients[pl.slots[t * pl.width + j]!]!.id);
    if (list.length) out.push([formatTaskId(task), list]);
  });
  return { ms: median(times.slice(1)), placements: JSON.stringify(out) };
}

export function javaStandbyRows(): JavaRow[] {
  const rows: JavaRow[] = [];
  let cp: string | undefined;
  let failure: string | undefined;
  try {
    cp = oracleClasspath();
  } catch (e) {
    failure = `Java step failed (compiling the harness): ${(e as Error).message.split('\n')[0]}`;
  }
  for (const [T, C, runs] of SIZES) {
    const spec = seededCluster(11, C, T, 2, [3, 3]);
    const name = `kafka mode, ${T} tasks x 2 standbys, ${C} clients, 3x3 tags`;
    const ours = assignorPlacements(spec);
    if (failure !== undefined) {
      rows.push({ case: name, kafkaColdMs: null, kafkaWarmMs: null, assignorMs: ours.ms, ratio: null, agree: null, note: failure });
      continue;
    }
    try {
      // One JVM per size, so the first run is a cold one.
      const [k] = runKafkaOracle([{ spec }], { timedRuns: runs, cp, maxHeap: '2g' });
      if (k!.error) throw new Error(k!.error);
      const ms = k!.ms!;
      const warm = median(ms.slice(1));
      const theirs = JSON.stringify([...k!.placements].sort((a, b) => {
        const [sa, pa] = a[0].split('_').map(Number) as [number, number];
        const [sb, pb] = b[0].split('_').map(Number) as [number, number];
        return sa - sb || pa - pb;
      }));
      rows.push({ case: name, kafkaColdMs: ms[0]!, kafkaWarmMs: warm, assignorMs: ours.ms, ratio: warm / ours.ms, agree: theirs === ours.placements });
    } catch (e) {
      rows.push({ case: name, kafkaColdMs: null, kafkaWarmMs: null, assignorMs: ours.ms, ratio: null, agree: null, note: `Java step failed: ${(e as Error).message.split('\n')[0]}` });
    }
  }
  return rows;
}

export function javaMarkdown(rows: JavaRow[]): string {
  const f = (x: number | null): string => (x === null ? 'n/a' : x.toFixed(1));
  const lines = ['| case | kafka-streams cold first run ms | kafka-streams JIT-warm median ms | assignor kafka mode median ms | assignor vs the original | same placements |', '| --- | ---: | ---: | ---: | ---: | --- |'];
  for (const r of rows) lines.push(`| ${r.case} | ${f(r.kafkaColdMs)} | ${f(r.kafkaWarmMs)} | ${f(r.assignorMs)} | ${r.ratio === null ? 'n/a' : `${r.ratio.toFixed(0)}x faster`} | ${r.agree === null ? (r.note ?? 'n/a') : r.agree ? 'yes' : 'NO'} |`);
  return lines.join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const rows = javaStandbyRows();
  console.log(javaMarkdown(rows));
  if (rows.some((r) => r.agree === false || r.note)) process.exitCode = 1;
}
