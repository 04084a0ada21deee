// Kafka Streams' own standby assignors (kafka-streams from Maven Central, driven by
// test/standby/java/StandbyOracle.java) as an oracle: encode clusters, run them all in one JVM,
// read back each cluster's placements in the order Kafka made them. Used by the differential
// test and the benchmark.
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { classpath, compileJava, runJava } from '../kafka/jvm.js';
import type { ClusterSpec } from '../../src/standby/index.js';

const HERE = fileURLToPath(new URL('.', import.meta.url));
export const ORACLE_SOURCE = join(HERE, 'java', 'StandbyOracle.java');
const ORACLE_CLASSES = join(HERE, '..', 'kafka', 'target', 'standby-oracle');
/** Written by classpath('kafka'), anew whenever test/kafka/pom.xml changes. */
const CLASSPATH_FILE = join(HERE, '..', 'kafka', 'target', 'classpath.txt');
const MAIN = 'org.apache.kafka.streams.processor.internals.assignment.StandbyOracle';

export interface OracleCluster {
  spec: ClusterSpec;
  /** false: call the assignor even when numStandbys = 0 (quirk X04, the unguarded path). */
  guard?: boolean;
}

export interface OracleResult {
  /** The assignor Kafka's factory chose ('none' when the guard returned first), or the error it threw. */
  assignor: string;
  error?: string;
  /** Task id -> standby process ids, in the order Kafka placed them. */
  placements: Map<string, string[]>;
  /** With timing: wall ms of each run (first = cold). */
  ms?: number[];
}

const enc = (s: string): string => encodeURIComponent(s);

function tagsOf(c: ClusterSpec['clients'][number]): [string, string][] {
  if (c.tags === undefined) return [];
  return c.tags instanceof Map ? [...c.tags] : Object.entries(c.tags);
}

/** The harness's line format (see StandbyOracle.java). Only `tags`-form clients with UUID ids. */
export function encodeClusters(clusters: OracleCluster[], timedRuns = 0): string {
  const out: string[] = [];
  if (timedRuns > 0) out.push(`time ${timedRuns}`);
  clusters.forEach(({ spec, guard }, i) => {
    out.push(`cluster c${i} ${spec.numStandbys ?? 0} ${guard === false ? 0 : 1}`);
    out.push(['keys', ...(spec.tagKeys ?? []).map(enc)].join(' '));
    for (const c of spec.clients) {
      if (c.properties !== undefined) throw new Error('the oracle takes clients with tags, not properties');
      out.push(['client', c.id, String(c.capacity ?? 1), ...tagsOf(c).map(([k, v]) => `${enc(k)}=${enc(v)}`)].join(' '));
      if (c.active?.length) out.push(['active', ...c.active].join(' '));
      if (c.standby?.length) out.push(['standby', ...c.standby].join(' '));
    }
    const stateful = spec.tasks ?? [...new Set(spec.clients.flatMap((c) => [...(c.active ?? []), ...(c.standby ?? [])]))];
    if (stateful.length) out.push(['tasks', ...stateful].join(' '));
    out.push('end');
  });
  return `${out.join('\n')}\n`;
}

export function parseResults(text: string, count: number): OracleResult[] {
  const results: OracleResult[] = [];
  let cur: OracleResult | null = null;
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const f = line.split(' ');
    if (f[0] === 'cluster') cur = { assignor: f[2]!, placements: new Map() };
    else if (f[0] === 'p') {
      const list = cur!.placements.get(f[1]!) ?? [];
      list.push(f[2]!);
      cur!.placements.set(f[1]!, list);
    } else if (f[0] === 'ms') cur!.ms = f.slice(1).map(Number);
    else if (f[0] === 'end') results.push(cur!);
    else if (f[0] === 'error') results.push({ assignor: 'error', error: f.slice(2).join(' '), placements: new Map() });
    else throw new Error(`unexpected oracle output: ${line}`);
  }
  if (results.length !== count) throw new Error(`the oracle answered ${results.length} of ${count} clusters`);
  return results;
}

/**
 * Compiles the harness when its class file is missing or older than the source or the Kafka
 * classpath (a new Kafka version in test/kafka/pom.xml), and returns the classpath to run it with.
 */
export function oracleClasspath(): string {
  const cp = classpath('kafka');
  const cls = join(ORACLE_CLASSES, ...MAIN.split('.')) + '.class';
  const built = existsSync(cls) ? statSync(cls).mtimeMs : -1;
  if (built >= statSync(ORACLE_SOURCE).mtimeMs && built >= statSync(CLASSPATH_FILE).mtimeMs) return `${ORACLE_CLASSES}:${cp}`;
  return compileJava('kafka', [ORACLE_SOURCE], ORACLE_CLASSES);
}

/** Runs every cluster through Kafka's classes in one JVM. */
export function runKafkaOracle(clusters: OracleCluster[], opts: { timedRuns?: number; maxHeap?: string; cp?: string } = {}): OracleResult[] {
  const cp = opts.cp ?? oracleClasspath();
  const dir = mkdtempSync(join(tmpdir(), 'standby-oracle-'));
  try {
    const file = join(dir, 'out.txt');
    runJava(cp, MAIN, [file], encodeClusters(clusters, opts.timedRuns ?? 0), opts.maxHeap ?? '1g');
    return parseResults(readFileSync(file, 'utf8'), clusters.length);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
