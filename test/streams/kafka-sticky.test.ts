// The streams actives against the broker's own assignor: Kafka 4.4.0's StickyTaskAssignor
// (group-coordinator jar, test/streams/java/StreamsStickyOracle.java) on the same random groups.
// On every group assignor keeps at least as many actives in their previous process and is at
// least as balanced (the spread of actives per member), and neither puts a standby with its active.
import { beforeAll, describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { compileJava, runJava } from '../kafka/jvm.js';
import { oracleRecords, parseOracle } from './kafka-oracle.js';
import { assignStreams } from '../../src/streams/assign.js';
import { readStreamsGroup, type StreamsGroupSpec } from '../../src/streams/input.js';
import { randomStreamsGroup, rng } from './generators.js';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const GROUPS = 300;

describe("streams actives against the broker's StickyTaskAssignor (4.4.0)", () => {
  let cp = '';
  beforeAll(() => {
    cp = compileJava('coordinator', [`${HERE}java/StreamsStickyOracle.java`], `${HERE}../kafka/target/streams-oracle`);
  }, 300_000);

  it(`keeps at least as many actives in their process and is at least as balanced, on ${GROUPS} random groups`, () => {
    const rand = rng(31);
    const groups = Array.from({ length: GROUPS }, (_, i) => randomStreamsGroup(rand, i));
    const kafka = parseOracle(runJava(cp, 'StreamsStickyOracle', [], groups.map((g, i) => oracleRecords(`g${i}`, g)).join('')).stdout);
    let better = 0;
    groups.forEach((spec, i) => {
      const group = readStreamsGroup(spec);
      const ours = assignStreams(group, { mode: 'kafka' });
      const theirs = kafka.get(`g${i}`)!;
      const processOf = new Map(group.members.map((m) => [m.id, group.processes[m.process]!.id]));
      const prevProcess = new Map<string, string>();
      for (const p of spec.processes) for (const m of p.members) for (const t of m.active ?? []) prevProcess.set(t, p.id);
      let kafkaKept = 0;
      for (const [m, tasks] of theirs.active) for (const t of tasks) if (prevProcess.get(t) === processOf.get(m)) kafkaKept++;
      const oursKept = ours.totals().keptOnProcess;
      expect(oursKept, `group ${i}: kept in their process`).toBeGreaterThanOrEqual(kafkaKept);
      if (oursKept > kafkaKept) better++;
      const spread = (counts: number[]): number => (counts.length === 0 ? 0 : Math.max(...counts) - Math.min(...counts));
      const kafkaSpread = spread([...theirs.active.values()].map((l) => l.length));
      const oursSpread = spread(ours.members().map((m) => m.active.length));
      expect(oursSpread, `group ${i}: spread of actives per member`).toBeLessThanOrEqual(kafkaSpread);
      // Kafka's standbys never share a process with the task's active; neither do ours.
      for (const answer of [theirs, { active: new Map(ours.members().map((m) => [m.id, m.active])), standby: new Map(ours.members().map((m) => [m.id, m.standby])) }]) {
        const activeProcess = new Map<string, string>();
        for (const [m, tasks] of answer.active) for (const t of tasks) activeProcess.set(t, processOf.get(m)!);
        for (const [m, tasks] of answer.standby) for (const t of tasks) expect(activeProcess.get(t)).not.toBe(processOf.get(m));
      }
    });
    console.log(`streams actives: more kept than Kafka's StickyTaskAssignor on ${better} of ${GROUPS} groups, fewer on none`);
  }, 300_000);
});
