// Kafka mode's standbys against Kafka Streams' classic ClientTagAwareStandbyTaskAssignor
// (kafka-streams 4.4.0, driven by test/standby/java/StandbyOracle.java) on the same actives: one
// client per process (its members are its threads), the same tag keys, the same stateful tasks. On
// random groups every task gets exactly the processes Kafka gives it.
import { describe, expect, it } from 'vitest';
import { runKafkaOracle } from '../standby/kafka-jar.js';
import { assignStreams } from '../../src/streams/assign.js';
import { clusterOf } from '../../src/streams/cluster.js';
import { readStreamsGroup, subtopologyOf } from '../../src/streams/input.js';
import { rng, randomStreamsGroup } from './generators.js';

const GROUPS = 200;

describe("streams standbys, kafka mode, against Kafka's ClientTagAwareStandbyTaskAssignor (4.4.0)", () => {
  it(`places every standby on the process Kafka picks, on ${GROUPS} random groups`, () => {
    const rand = rng(708);
    const groups = Array.from({ length: GROUPS }, (_, i) => readStreamsGroup(randomStreamsGroup(rand, i, true)));
    const ours = groups.map((g) => assignStreams(g, { mode: 'kafka' }));
    const kafka = runKafkaOracle(groups.map((g, i) => ({ spec: clusterOf(g, ours[i]!.activeOwner, []) })));
    let placed = 0;
    groups.forEach((g, i) => {
      const want = kafka[i]!;
      expect(want.error, `group ${i}`).toBeUndefined();
      const got = new Map<string, string[]>();
      ours[i]!.standbyTasks.forEach((tasks, m) => {
        for (const t of tasks) {
          const s = subtopologyOf(g, t);
          const id = `${s.engineId}_${t - s.firstTask}`;
          got.set(id, [...(got.get(id) ?? []), g.processes[g.members[m]!.process]!.id]);
        }
      });
      for (const [task, processes] of want.placements) {
        expect(new Set(got.get(task) ?? []), `group ${i} task ${task}`).toEqual(new Set(processes));
        placed += processes.length;
      }
      expect([...got.values()].flat().length, `group ${i}: standbys in all`).toBe([...want.placements.values()].flat().length);
    });
    expect(placed).toBeGreaterThan(GROUPS);
  }, 300_000);
});
