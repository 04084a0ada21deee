// Kafka mode = Kafka Streams' own ClientTagAwareStandbyTaskAssignor and
// DefaultStandbyTaskAssignor (kafka-streams 4.4.0 from Maven Central, run by
// test/standby/java/StandbyOracle.java) on random clusters, placement for placement and in
// Kafka's order, on every engine. The real jar is the oracle; the literal model
// (kafka-literal.ts) stays as a fast, JVM-free check of the same claim.
import { describe, expect } from 'vitest';
import { placeStandbys, formatTaskId, type ClusterSpec } from '../../src/standby/index.js';
import { command, itNeeds } from '../support/components.js';
import { runKafkaOracle, type OracleCluster } from './kafka-jar.js';
import { skewedCluster } from './generators.js';

const ENGINES = ['reference', 'wasm-scalar', 'wasm-simd'] as const;
const itJvm = itNeeds(command('java', 'apt-get install openjdk-17-jdk-headless'), command('javac', 'apt-get install openjdk-17-jdk-headless'), command('mvn', 'apt-get install maven'));
/** ASSIGNOR_LONG=1 runs ten times as many clusters. */
const COUNT = process.env.ASSIGNOR_LONG ? 6000 : 600;

/** The clusters: mostly small and skewed, some with hundreds of tasks (the fallback's HashMap grows), some unguarded X04 calls. */
function clusters(): OracleCluster[] {
  const out: OracleCluster[] = [];
  for (let i = 0; i < COUNT; i++) {
    const big = i % 50 === 49;
    const spec = skewedCluster(0x5eed + i, { maxClients: big ? 120 : 40, maxTasks: big ? 700 : 40, maxStandbys: 4, existing: i % 3 === 0, unowned: i % 4 === 0 });
    if (i % 25 === 7) out.push({ spec: { ...spec, numStandbys: 0 }, guard: false });
    else out.push({ spec });
  }
  return out;
}

function ours(spec: ClusterSpec, guard: boolean, engine: (typeof ENGINES)[number]): { assignor: string; exact: boolean; placements: [string, string[]][] } {
  const pl = placeStandbys(spec, { mode: 'kafka', engine, zeroStandbyGuard: guard });
  const placements: [string, string[]][] = [];
  const W = pl.width;
  pl.cluster.tasks.forEach((task, t) => {
    const list: string[] = [];
    for (let j = 0; j < W; j++) if (pl.slots[t * W + j]! >= 0) list.push(pl.cluster.clients[pl.slots[t * W + j]!]!.id);
    if (list.length) placements.push([formatTaskId(task), list]);
  });
  return { assignor: pl.assignor, exact: pl.orderExact, placements };
}

describe('kafka mode = kafka-streams 4.4.0 itself', () => {
  itJvm(`${COUNT} random clusters, one JVM, every placement in Kafka's order, on every engine`, () => {
    const input = clusters();
    const kafka = runKafkaOracle(input);
    let placed = 0;
    for (let i = 0; i < input.length; i++) {
      const { spec, guard = true } = input[i]!;
      const k = kafka[i]!;
      expect(k.error, `Kafka threw on cluster ${i}`).toBeUndefined();
      // Kafka's placements by task, in Kafka's order within each task.
      const want = JSON.stringify({ cluster: i, placements: [...k.placements].sort(byTask) });
      for (const engine of ENGINES) {
        const o = ours(spec, guard, engine);
        if (k.assignor !== 'none') expect(o.assignor, `cluster ${i}`).toBe(k.assignor);
        // The fallback order is exact for all of these (a treeified HashMap bucket needs >= 9 colliding tasks; docs/standby.md).
        expect(o.exact, `cluster ${i}`).toBe(true);
        const got = JSON.stringify({ cluster: i, placements: o.placements });
        if (got !== want) expect({ engine, ...JSON.parse(got) }, `reproducer: ${JSON.stringify(spec)} guard ${guard}`).toEqual({ engine, ...JSON.parse(want) });
      }
      for (const list of k.placements.values()) placed += list.length;
    }
    // The sample means something: both assignors, the X04 call, thousands of placements.
    const count = (a: string): number => kafka.filter((k) => k.assignor === a).length;
    expect(count('ClientTagAwareStandbyTaskAssignor')).toBeGreaterThan(input.length / 3);
    expect(count('DefaultStandbyTaskAssignor')).toBeGreaterThan(input.length / 10);
    expect(count('none')).toBeGreaterThan(input.length / 20);
    expect(input.filter((c, i) => c.guard === false && kafka[i]!.placements.size > 0).length).toBeGreaterThan(0);
    expect(placed).toBeGreaterThan(input.length * 10);
  }, 300_000);
});

function byTask(a: [string, string[]], b: [string, string[]]): number {
  const [sa, pa] = a[0].split('_').map(Number) as [number, number];
  const [sb, pb] = b[0].split('_').map(Number) as [number, number];
  return sa - sb || pa - pb;
}
