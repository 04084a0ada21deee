// Balanced against kafka mode on the same inputs (issue 12): tasks whose tag spread is better,
// equal or worse than Kafka's, and each mode's standby-count spread (most - fewest standbys on
// a client) and load spread (most - least (active + standby) / capacity), mean and max over the
// clusters. Run alone: npx tsx bench/standby-quality.ts; the standby benchmark calls it too.
import { fileURLToPath } from 'node:url';
import { normalizeCluster, placeCluster, type Cluster } from '../src/standby/index.js';
import { compareWithKafka } from '../src/standby/totals.js';
import { seededCluster, skewedCluster } from '../test/standby/generators.js';

export interface QualityRow {
  inputs: string;
  clusters: number;
  tasks: { better: number; equal: number; worse: number };
  countSpread: { balanced: { mean: number; max: number }; kafka: { mean: number; max: number } };
  loadSpread: { balanced: { mean: number; max: number }; kafka: { mean: number; max: number } };
  /** Clusters where balanced's count or load spread is above Kafka's (the guarantee says 0). */
  clustersWorse: number;
}

export function quality(inputs: string, clusters: Cluster[]): QualityRow {
  const row: QualityRow = {
    inputs,
    clusters: clusters.length,
    tasks: { better: 0, equal: 0, worse: 0 },
    countSpread: { balanced: { mean: 0, max: 0 }, kafka: { mean: 0, max: 0 } },
    loadSpread: { balanced: { mean: 0, max: 0 }, kafka: { mean: 0, max: 0 } },
    clustersWorse: 0,
  };
  for (const cl of clusters) {
    const c = compareWithKafka(placeCluster(cl, 'balanced'), placeCluster(cl, 'kafka'));
    row.tasks.better += c.tasks.better;
    row.tasks.equal += c.tasks.equal;
    row.tasks.worse += c.tasks.worse;
    for (const m of ['balanced', 'kafka'] as const) {
      row.countSpread[m].mean += c[m].countSpread / clusters.length;
      row.countSpread[m].max = Math.max(row.countSpread[m].max, c[m].countSpread);
      row.loadSpread[m].mean += c[m].loadSpread / clusters.length;
      row.loadSpread[m].max = Math.max(row.loadSpread[m].max, c[m].loadSpread);
    }
    if (c.balanced.countSpread > c.kafka.countSpread || c.balanced.loadSpread > c.kafka.loadSpread + 1e-9) row.clustersWorse++;
  }
  return row;
}

/** Random skewed clusters (test/standby/generators.ts), no existing standbys: the class the guarantee covers. */
export function skewedInputs(n: number): Cluster[] {
  return Array.from({ length: n }, (_, i) => normalizeCluster(skewedCluster(0xbe7c + i, { maxClients: 40, maxTasks: 60, minKeys: 1, maxKeys: 3, unowned: true })));
}

export function qualityMarkdown(rows: QualityRow[]): string {
  const f = (x: number): string => (Number.isInteger(x) ? String(x) : x.toFixed(2));
  const lines = [
    '| inputs | clusters | tasks better / equal / worse than kafka | count spread mean (max): balanced / kafka | load spread mean (max): balanced / kafka | clusters with a wider spread than kafka |',
    '| --- | ---: | --- | --- | --- | ---: |',
  ];
  for (const r of rows) {
    const cs = r.countSpread;
    const ls = r.loadSpread;
    lines.push(`| ${r.inputs} | ${r.clusters} | ${r.tasks.better} / ${r.tasks.equal} / ${r.tasks.worse} | ${f(cs.balanced.mean)} (${cs.balanced.max}) / ${f(cs.kafka.mean)} (${cs.kafka.max}) | ${f(ls.balanced.mean)} (${f(ls.balanced.max)}) / ${f(ls.kafka.mean)} (${f(ls.kafka.max)}) | ${r.clustersWorse} |`);
  }
  return lines.join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const n = Number(process.env.BENCH_QUALITY_CLUSTERS ?? 500);
  const mid = normalizeCluster(seededCluster(7, 1_000, 20_000, 2, [3, 3]));
  console.log(qualityMarkdown([quality('seededCluster(7, 1000 clients, 20000 tasks, 2 standbys, 3x3)', [mid]), quality(`random skewed clusters (0xbe7c + i)`, skewedInputs(n))]));
}
