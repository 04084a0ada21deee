// The broker plugin for streams groups (dev.assignor.broker.StreamsAssignor in
// build/assignor-broker.jar) inside a JVM with the 4.4.0 group coordinator, called as the broker
// calls it (test/streams/java/StreamsPluginDriver.java). Its answer must be Node's preview of it,
// assignStreams(group, { mode: 'tag-aware' }), on random groups, whatever the order the members
// come in; Chicory's interpreter must give the same; and a forced failure must give the broker's
// own StickyTaskAssignor answer (Node's broker mode).
import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { runJava } from '../kafka/jvm.js';
import { pluginDriver } from '../support/plugin-jar.js';
import { assignStreams } from '../../src/streams/assign.js';
import type { StreamsGroupSpec } from '../../src/streams/input.js';
import { rng, randomStreamsGroup } from './generators.js';

const DRIVER = fileURLToPath(new URL('./java/StreamsPluginDriver.java', import.meta.url));

type Mode = 'plugin' | 'interpreter' | 'fallback';
type Members = Record<string, { active: string[]; standby: string[] }>;
interface Answer { members?: Members; error?: string; fallbacks: number }

function run(cases: (StreamsGroupSpec & { mode: Mode })[]): Answer[] {
  return JSON.parse(runJava(pluginDriver(DRIVER), 'StreamsPluginDriver', [], JSON.stringify(cases), '2g').stdout) as Answer[];
}

function preview(g: StreamsGroupSpec, mode: 'tag-aware' | 'broker'): Members {
  return Object.fromEntries(assignStreams(g, { mode }).members().map((m) => [m.id, { active: m.active, standby: m.standby }]));
}

/** The same group with processes and members in another order (the broker lists them in a HashMap's). */
function reordered(g: StreamsGroupSpec, rand: () => number): StreamsGroupSpec {
  const mix = <T>(xs: readonly T[]): T[] => xs.map((x) => [rand(), x] as const).sort((a, b) => a[0] - b[0]).map(([, x]) => x);
  return { ...g, processes: mix(g.processes).map((p) => ({ ...p, members: mix(p.members) })) };
}

describe('the streams broker plugin (assignor-streams)', () => {
  it('answers as Node previews it (tag-aware), whatever the member order, on 150 random groups', () => {
    const rand = rng(1071);
    const groups = Array.from({ length: 150 }, (_, i) => randomStreamsGroup(rand, i, false, i % 3 === 0 ? 3 : 1));
    const answers = run(groups.map((g) => ({ ...reordered(g, rand), mode: 'plugin' as const })));
    let moved = 0;
    groups.forEach((g, i) => {
      const a = answers[i]!;
      expect(a.error, `group ${i}`).toBeUndefined();
      expect(a.fallbacks, `group ${i}`).toBe(0);
      const want = preview(g, 'tag-aware');
      expect(a.members, `group ${i}`).toEqual(want);
      const broker = preview(g, 'broker');
      if (JSON.stringify(broker) !== JSON.stringify(want)) moved++;
    });
    // The kernel did move standbys on a good share of the groups.
    expect(moved).toBeGreaterThan(20);
  }, 300_000);

  it("gives the same in Chicory's interpreter, and the broker's own answer when the kernel is skipped", () => {
    const rand = rng(7);
    const groups = Array.from({ length: 20 }, (_, i) => randomStreamsGroup(rand, i));
    const answers = run([...groups.map((g) => ({ ...g, mode: 'interpreter' as const })), ...groups.map((g) => ({ ...g, mode: 'fallback' as const }))]);
    groups.forEach((g, i) => {
      expect(answers[i]!.members, `group ${i} interpreted`).toEqual(preview(g, 'tag-aware'));
      expect(answers[groups.length + i]!.fallbacks).toBe(1);
      expect(answers[groups.length + i]!.members, `group ${i} fallback`).toEqual(preview(g, 'broker'));
    });
  }, 300_000);

  it("throws only what the broker's assignor throws: tasks and no member", () => {
    const [a] = run([{ subtopologies: [{ id: '0', partitions: 2 }], processes: [], mode: 'plugin' }]);
    expect(a!.error).toBe('No process available to assign active task 0_0.');
  }, 300_000);
});
