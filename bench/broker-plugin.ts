// The broker plugin (jvm/, build/assignor-broker.jar) against the 4.4.0 broker's UniformAssignor,
// side by side in one JVM per cell (bench/java/PluginTiming.java), on the grid of
// bench/group-consumer.ts: 1,000 and 10,000 members, 100,000 and 500,000 partitions (100 topics of
// 1,000, 1,000 of 500), homogeneous and heterogeneous, full, one member joins, one member leaves.
// The plugin runs its WebAssembly planner through Chicory, compiled to bytecode and (on the cells
// of 1,000 members and 100,000 partitions only, where it finishes in reasonable time) interpreted.
// Time: the first call in the JVM (cold), WARMUPS untimed calls, the median of RUNS timed calls
// (the interpreter: 1 warm-up, 3 runs). Both sides are timed from a GroupSpec built outside the timing,
// in a JVM whose heap is committed and touched at start (see main).
//
//   npx tsx bench/broker-plugin.ts                          every cell
//   BENCH_GRID_CELLS=10k/500k npx tsx bench/broker-plugin.ts
//   BENCH_INTERPRETER=all|none                              interpreter on every cell / on none
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { classpath, runJava } from '../test/kafka/jvm.js';
import { JAVA_HEAP, median, topicIdsText } from './group-consumer.js';

const WARMUPS = 3;
const RUNS = 5;
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const JAR = `${ROOT}build/assignor-broker.jar`;

interface Step {
  assignor: 'uniform' | 'compiled' | 'interpreted';
  step: string;
  ms: number[];
  moved: number | null;
  spread: number;
  fallbacks: number;
}

interface Row {
  cell: string;
  subscription: string;
  kind: string;
  steps: Map<string, Step>;
}

function harness(): string {
  if (!existsSync(JAR)) execFileSync('npm', ['run', 'build:jvm'], { cwd: ROOT, stdio: ['ignore', 2, 'inherit'] });
  const out = `${ROOT}jvm/target/bench-driver`;
  const cp = `${JAR}:${classpath('coordinator')}`;
  execFileSync('javac', ['-nowarn', '-encoding', 'UTF-8', '-cp', cp, '-d', out, `${ROOT}bench/java/ConsumerAssignorTiming.java`, `${ROOT}bench/java/PluginTiming.java`], { stdio: ['ignore', 'inherit', 'inherit'] });
  return `${out}:${cp}`;
}

function main(): void {
  const cp = harness();
  // The whole heap committed and touched at start, as a broker runs (Kafka's scripts set -Xms to
  // -Xmx): without it the first touches of fresh heap pages land in the timed calls, and a cell
  // moved 30-100% between runs on this machine (homogeneous full at 10k/500k: 585 and 272 ms).
  process.env.JAVA_TOOL_OPTIONS = `-Xms${JAVA_HEAP} -XX:+AlwaysPreTouch`;
  const pick = process.env.BENCH_GRID_CELLS?.split(',');
  const interpreter = process.env.BENCH_INTERPRETER ?? 'small';
  const rows: Row[] = [];
  for (const M of [1000, 10000]) {
    for (const [T, P] of [[100, 1000], [1000, 500]] as const) {
      const cell = `${M / 1000}k/${(T * P) / 1000}k`;
      if (pick !== undefined && !pick.includes(cell)) continue;
      const ids = topicIdsText(Array.from({ length: T }, (_, t) => `topic-${t}`));
      // The interpreter took 2 s per call at 1k / 100k and 19-46 s at 10k / 100k (one run, 2 busy cores): small cell only.
      const withInterpreter = interpreter === 'all' || (interpreter === 'small' && M === 1000 && T * P <= 100_000);
      for (const subscription of ['homogeneous', 'heterogeneous']) {
        for (const kind of ['full', 'join', 'leave']) {
          const assignors = ['uniform', 'compiled', ...(withInterpreter ? ['interpreted'] : [])].join(',');
          const stdout = runJava(cp, 'PluginTiming', [String(M), String(T), String(P), subscription, kind, String(WARMUPS), String(RUNS), assignors, '1', '3'], ids, JAVA_HEAP).stdout;
          const steps = new Map<string, Step>();
          for (const line of stdout.split('\n')) {
            if (!line.startsWith('{')) continue;
            const s = JSON.parse(line) as Step;
            if (s.fallbacks !== 0) throw new Error(`${cell} ${subscription} ${kind}: the plugin fell back ${s.fallbacks} times`);
            steps.set(s.assignor, s);
          }
          rows.push({ cell, subscription, kind, steps });
          const show = (s: Step | undefined): string => (s === undefined ? '-' : `${median(s.ms.slice(1)).toFixed(1)} ms (cold ${s.ms[0]!.toFixed(0)}), moved ${s.moved ?? '-'}, spread ${s.spread}`);
          console.log(`${cell} ${subscription} ${kind}: uniform ${show(steps.get('uniform'))}; plugin ${show(steps.get('compiled'))}; interpreted ${show(steps.get('interpreted'))}`);
        }
      }
    }
  }
  console.log(`\n${table(rows)}`);
  if (interpreter === 'small') console.log('\nInterpreter: the 1k / 100k cells only (BENCH_INTERPRETER=all for every cell); 1 warm-up, median of 3.');
}

function table(rows: readonly Row[]): string {
  const f = (x: number): string => x.toLocaleString('en-US', { maximumFractionDigits: 1, minimumFractionDigits: 1 });
  const ms = (s: Step | undefined): number => (s === undefined ? NaN : median(s.ms.slice(1)));
  const cellText = (s: Step | undefined): string => (s === undefined ? 'not run' : `${f(ms(s))} (${f(s.ms[0]!)})`);
  const ratio = (a: Step | undefined, b: Step | undefined): string => (a === undefined || b === undefined ? '' : `${(ms(a) / ms(b)).toFixed(2)}x`);
  const moved = (s: Step | undefined): string => (s?.moved === null || s === undefined ? '–' : s.moved.toLocaleString('en-US'));
  const lines = [
    '| members / partitions | subscriptions | rebalance | uniform ms (cold) | plugin compiled ms (cold) | compiled / uniform | plugin interpreted ms (cold) | interpreted / uniform | moved uniform / plugin | spread uniform / plugin |',
    '|---|---|---|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of rows) {
    const u = r.steps.get('uniform');
    const c = r.steps.get('compiled');
    const i = r.steps.get('interpreted');
    lines.push(`| ${r.cell} | ${r.subscription} | ${r.kind} | ${cellText(u)} | ${cellText(c)} | ${ratio(c, u)} | ${cellText(i)} | ${ratio(i, u)} | ${moved(u)} / ${moved(c)} | ${u?.spread ?? ''} / ${c?.spread ?? ''} |`);
  }
  return lines.join('\n');
}

main();
