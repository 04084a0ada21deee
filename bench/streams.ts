// Streams groups (issue 31): assignStreams against Kafka 4.4.0's broker-side StickyTaskAssignor
// (test/streams/java/StreamsStickyOracle.java, one JVM), on one group of TASKS tasks (10
// subtopologies, the even ones stateful) and MEMBERS members (4 per process), processes tagged
// over 3 zones x 3 clusters, one standby per stateful task. Two rebalances, each strategy from its
// own previous answer: the first assignment, one process leaving (killed), and the same process
// back (its members with new ids and no tasks, reporting the state left on its disk as offsets).
// Reports per strategy: the time (cold, then the median of RUNS), actives kept in their process,
// the spread of actives per member, and per stateful task the tag spread of its copies (distinct
// zones and clusters over the active's and the standbys' processes) against Kafka's, task by task.
//
// Then inside one JVM (bench/java/StreamsPluginTiming.java): the broker plugin assignor-streams
// against StickyTaskAssignor on the first group, cold then the median of RUNS, Chicory's compiler.
// Last, 500 small random groups (test/streams/generators.ts, seed 9): per stateful task, each mode's
// tag spread against the broker's (the report's againstBroker), summed.
//
//   npx tsx bench/streams.ts [tasks members runs]      (default 10000 1000 5)
import { fileURLToPath } from 'node:url';
import { compileJava, runJava } from '../test/kafka/jvm.js';
import { assignStreams } from '../src/streams/assign.js';
import type { StreamsGroupSpec, StreamsMemberSpec } from '../src/streams/input.js';
import { oracleRecords, parseOracle } from '../test/streams/kafka-oracle.js';
import { median } from './group-consumer.js';
import { pluginDriver } from '../test/support/plugin-jar.js';
import { randomStreamsGroup, rng } from '../test/streams/generators.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const [TASKS, MEMBERS, RUNS] = process.argv.slice(2).map(Number) as [number?, number?, number?];
const T = TASKS ?? 10_000;
const M = MEMBERS ?? 1_000;
const R = RUNS ?? 5;
const PER_PROCESS = 4;
const ZONES = ['z1', 'z2', 'z3'];
const CLUSTERS = ['c1', 'c2', 'c3'];

interface Answer {
  /** member id -> tasks */
  active: Map<string, string[]>;
  standby: Map<string, string[]>;
}

const RESTARTED = 7;

/** gone: process RESTARTED is away; disk: the answer whose tasks RESTARTED's new members report as offsets. */
function group(previous: Answer | null, step: { gone?: boolean; disk?: Answer }): StreamsGroupSpec {
  const subtopologies = Array.from({ length: 10 }, (_, s) => ({ id: String(s), partitions: Math.ceil(T / 10), stateful: s % 2 === 0 }));
  const P = Math.ceil(M / PER_PROCESS);
  const processes = Array.from({ length: P }, (_, q) => q).filter((q) => !(step.gone && q === RESTARTED)).map((q) => {
    const id = `00000000-0000-4000-8000-${q.toString(16).padStart(12, '0')}`;
    const tags = { zone: ZONES[q % 3]!, cluster: CLUSTERS[Math.floor(q / 3) % 3]! };
    const ids = Array.from({ length: PER_PROCESS }, (_, i) => `m-${q}-${i}`);
    if (q !== RESTARTED || step.disk === undefined) {
      return { id, tags, members: ids.map((m): StreamsMemberSpec => ({ id: m, active: previous?.active.get(m) ?? [], standby: previous?.standby.get(m) ?? [] })) };
    }
    const disk = step.disk;
    const onDisk = Object.fromEntries(ids.flatMap((m) => [...(disk.active.get(m) ?? []), ...(disk.standby.get(m) ?? [])]).map((t) => [t, 1000]));
    return { id, tags, members: ids.map((m) => ({ id: `${m}-restarted`, offsets: onDisk })) };
  });
  return { numStandbys: 1, tagKeys: ['zone', 'cluster'], subtopologies, processes };
}

function timeOurs(g: StreamsGroupSpec, mode: 'balanced' | 'tag-aware'): { ms: number[]; answer: Answer } {
  const ms: number[] = [];
  let result = assignStreams(g, { mode });
  for (let r = 0; r <= R; r++) {
    const t0 = performance.now();
    result = assignStreams(g, { mode });
    ms.push(performance.now() - t0);
  }
  const members = result.members();
  return { ms, answer: { active: new Map(members.map((m) => [m.id, m.active])), standby: new Map(members.map((m) => [m.id, m.standby])) } };
}

function timeKafka(cp: string, g: StreamsGroupSpec): { ms: number[]; answer: Answer } {
  const out = runJava(cp, 'StreamsStickyOracle', [], `time ${R}\n${oracleRecords('g', g)}`, '4g').stdout;
  const answer = parseOracle(out).get('g')!;
  const ms = out.split('\n').find((l) => l.startsWith('ms '))!.split(' ').slice(1).map(Number);
  return { ms, answer };
}

/** Per stateful task: distinct zones and clusters over its copies' processes. */
function spreads(g: StreamsGroupSpec, a: Answer): Map<string, [number, number]> {
  const tagsOf = new Map<string, { zone: string; cluster: string }>();
  for (const p of g.processes) for (const m of p.members) tagsOf.set(m.id, p.tags as { zone: string; cluster: string });
  const copies = new Map<string, string[]>();
  for (const list of [a.active, a.standby]) for (const [m, tasks] of list) for (const t of tasks) copies.set(t, [...(copies.get(t) ?? []), m]);
  const out = new Map<string, [number, number]>();
  const stateful = new Set(g.subtopologies.filter((s) => s.stateful).map((s) => s.id));
  for (const [t, ms] of copies) {
    if (!stateful.has(t.slice(0, t.lastIndexOf('_')))) continue;
    out.set(t, [new Set(ms.map((m) => tagsOf.get(m)!.zone)).size, new Set(ms.map((m) => tagsOf.get(m)!.cluster)).size]);
  }
  return out;
}

/** Actives in the same process as in the previous answer (member ids are m-<process>-<i>, also after a restart). */
function kept(previous: Answer | null, a: Answer): number {
  if (previous === null) return 0;
  const processOf = (m: string): string => m.split('-')[1]!;
  const before = new Map<string, string>();
  for (const [m, tasks] of previous.active) for (const t of tasks) before.set(t, processOf(m));
  let n = 0;
  for (const [m, tasks] of a.active) for (const t of tasks) if (before.get(t) === processOf(m)) n++;
  return n;
}

const STEPS = ['first assignment', 'one process leaves', 'it comes back'] as const;

/** One strategy through the three steps, each from its own previous answer. */
function run(time: (g: StreamsGroupSpec) => { ms: number[]; answer: Answer }): { g: StreamsGroupSpec; ms: number[]; answer: Answer; previous: Answer | null }[] {
  const out: { g: StreamsGroupSpec; ms: number[]; answer: Answer; previous: Answer | null }[] = [];
  for (const step of STEPS) {
    const previous = out.length === 0 ? null : out[out.length - 1]!.answer;
    const g = group(previous, { gone: step === 'one process leaves', disk: step === 'it comes back' ? out[0]!.answer : undefined });
    out.push({ g, previous, ...time(g) });
  }
  return out;
}

function main(): void {
  const cp = compileJava('coordinator', [`${ROOT}test/streams/java/StreamsStickyOracle.java`], `${ROOT}test/kafka/target/streams-oracle`);
  const kafka = run((g) => timeKafka(cp, g));
  const lines = [
    `${T} tasks (10 subtopologies, 5 stateful), ${M} members in ${Math.ceil(M / PER_PROCESS)} processes, 3 zones x 3 clusters, 1 standby; cold, then the median of ${R}`,
    '',
    "| rebalance | assignor mode | Kafka StickyTaskAssignor ms (cold) | assignor ms (cold) | actives kept in their process, Kafka / assignor | active spread per member, Kafka / assignor | stateful tasks: assignor's tag spread better / equal / worse than Kafka's |",
    '|---|---|---:|---:|---:|---:|---:|',
  ];
  const spread = (a: Answer): number => {
    const counts = [...a.active.values()].map((l) => l.length);
    return Math.max(...counts) - Math.min(...counts);
  };
  const f = (ms: number[]): string => `${median(ms.slice(1)).toFixed(1)} (${ms[0]!.toFixed(0)})`;
  for (const mode of ['balanced', 'tag-aware'] as const) {
    const ours = run((g) => timeOurs(g, mode));
    STEPS.forEach((step, i) => {
      const o = ours[i]!;
      const k = kafka[i]!;
      const so = spreads(o.g, o.answer);
      const sk = spreads(k.g, k.answer);
      let better = 0, equal = 0, worse = 0;
      for (const [t, [z, c]] of so) {
        const [kz, kc] = sk.get(t)!;
        const d = z !== kz ? z - kz : c - kc;
        if (d > 0) better++;
        else if (d === 0) equal++;
        else worse++;
      }
      lines.push(`| ${step} | ${mode} | ${f(k.ms)} | ${f(o.ms)} | ${kept(k.previous, k.answer)} / ${kept(o.previous, o.answer)} | ${spread(k.answer)} / ${spread(o.answer)} | ${better} / ${equal} / ${worse} |`);
    });
  }
  console.log(lines.join('\n'));
  console.log(`\n${jvmTable()}`);
  console.log(`\n${smallGroups()}`);
}

/** againstBroker summed over 500 small random groups, per mode. */
function smallGroups(): string {
  const lines = ['500 random groups of 1 to 8 processes (seed 9), stateful tasks against the broker\'s answer:', '', '| mode | wider | equal | narrower |', '|---|---:|---:|---:|'];
  for (const mode of ['balanced', 'kafka', 'tag-aware'] as const) {
    const rand = rng(9);
    const sum = { better: 0, equal: 0, worse: 0 };
    for (let i = 0; i < 500; i++) {
      const r = assignStreams(randomStreamsGroup(rand, i), { mode }).report().againstBroker;
      if (r !== null) for (const k of ['better', 'equal', 'worse'] as const) sum[k] += r[k];
    }
    lines.push(`| ${mode} | ${sum.better} | ${sum.equal} | ${sum.worse} |`);
  }
  return lines.join('\n');
}

/** The plugin against the broker's class in one JVM (first group, no previous assignment). */
function jvmTable(): string {
  const cp = pluginDriver(`${ROOT}bench/java/StreamsPluginTiming.java`);
  const out = runJava(cp, 'StreamsPluginTiming', [String(T), String(M), String(R)], undefined, '4g').stdout.split('\n');
  const row = (name: string): string => {
    const f = out.find((l) => l.startsWith(`${name} `))!.split(' ');
    const ms = f.slice(1, f.indexOf('spread')).map(Number);
    return `| ${name} | ${median(ms.slice(1)).toFixed(1)} (${ms[0]!.toFixed(0)}) | ${f[f.indexOf('spread') + 1]} |`;
  };
  if (!out.includes('fallbacks 0')) throw new Error(`the plugin fell back: ${out.join(' / ')}`);
  return ['inside one JVM, the first assignment:', '', '| assignor | ms (cold) | stateful tasks with the standby in another zone and cluster |', '|---|---:|---:|', row('sticky'), row('assignor-streams')].join('\n');
}

main();
