// `assignor streams`, run as a user would (the built dist/ binary): the JSON shape, --explain,
// --html, and bad input as one line naming the place, exit 2.
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli } from '../helpers.js';

const EXAMPLE = readFileSync(new URL('../../examples/streams-group.json', import.meta.url), 'utf8');

function streams(args: string[], input: unknown = EXAMPLE) {
  return cli(['streams', '--input', '-', ...args], typeof input === 'string' ? input : JSON.stringify(input));
}

describe('assignor streams', () => {
  it('prints { mode, numStandbys, tagKeys, totals, againstBroker, members } for the example, every task once', () => {
    const r = streams([]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(Object.keys(out)).toEqual(['mode', 'numStandbys', 'tagKeys', 'totals', 'againstBroker', 'members']);
    expect(out.mode).toBe('balanced');
    const actives = out.members.flatMap((m: { active: string[] }) => m.active).sort();
    expect(actives).toEqual(['0_0', '0_1', '0_2', '0_3', '0_4', '0_5', '1_0', '1_1', '1_2']);
    expect(out.totals).toMatchObject({ tasks: 9, statefulTasks: 6, previouslyOwned: 9, keptOnProcess: 8, standbysAskedFor: 6, standbys: 6, standbysUnplaced: 0 });
    // Nine tasks on seven members: two run two, the rest one.
    expect(out.members.map((m: { active: string[] }) => m.active.length).sort()).toEqual([1, 1, 1, 1, 1, 2, 2]);
  });

  it('--mode kafka keeps no previous standby, as Kafka keeps none', () => {
    const out = JSON.parse(streams(['--mode', 'kafka']).stdout);
    expect(out.mode).toBe('kafka');
    expect(out.totals.standbysKept).toBe(0);
    expect(out.totals.standbys).toBe(6);
  });

  it('--mode broker answers as the broker; balanced compares itself with it task by task', () => {
    const zones = readFileSync(new URL('../../examples/streams-zones.json', import.meta.url), 'utf8');
    const broker = JSON.parse(streams(['--mode', 'broker'], zones).stdout);
    expect(broker.mode).toBe('broker');
    expect(broker.againstBroker).toBeNull();
    const balanced = JSON.parse(streams([], zones).stdout);
    // The broker's tag-blind standbys share a zone or a cluster with their active on 4 of 12 tasks.
    expect(balanced.againstBroker).toEqual({ better: 4, equal: 8, worse: 0 });
  });

  it('--explain lists every process and member; --html writes a page', () => {
    const dir = mkdtempSync(join(tmpdir(), 'streams-cli-'));
    const r = streams(['--explain', '--html', join(dir, 'r.html')]);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^streams group: 9 tasks \(6 stateful\), 7 members in 4 processes, mode balanced\n/);
    expect(r.stdout).toContain('  member d-1: active [');
    expect(readFileSync(join(dir, 'r.html'), 'utf8')).toContain('<title>assignor streams report</title>');
  });

  const ONE = (member: unknown) => ({ subtopologies: [{ id: '0', partitions: 2 }], processes: [{ id: 'p', members: [member] }] });
  it.each([
    ['a malformed task id', ONE({ id: 'm', active: ['0-1'] }), 'task id "0-1" is not <subtopology>_<partition> (at processes[0].members[0].active[0])'],
    ['a process without members', { subtopologies: [], processes: [{ id: 'p', members: [] }] }, 'process "p" has no members; a process runs tasks on its members (at processes[0].members)'],
    ['tasks and no process', { subtopologies: [{ id: '0', partitions: 2 }], processes: [] }, 'no member to run task 0_0: the group has no processes (at processes)'],
    ['an unknown field', { subtopologies: [], processes: [], extra: 1 }, 'unknown field "extra" in the group; fields: subtopologies, processes, numStandbys, tagKeys (at extra)'],
    ['a member twice', { subtopologies: [], processes: [{ id: 'p', members: [{ id: 'm' }] }, { id: 'q', members: [{ id: 'm' }] }] }, 'member "m" is listed twice (at processes[1])'],
    ['a subtopology twice', { subtopologies: [{ id: '1', partitions: 1 }, { id: '1', partitions: 2 }], processes: [] }, 'subtopology "1" is listed twice (at subtopologies[1].id)'],
    ['a partition count of 0', { subtopologies: [{ id: '0', partitions: 0 }], processes: [] }, 'partitions must be an integer in [1, 2147483647], got 0 (at subtopologies[0].partitions)'],
    ['six tag keys', { subtopologies: [], processes: [], tagKeys: ['a', 'b', 'c', 'd', 'e', 'f'] }, 'tagKeys has 6 keys; Kafka allows at most 5 (at tagKeys)'],
    ['a fractional offset', ONE({ id: 'm', offsets: { '0_1': 1.5 } }), 'offset sum must be an integer, got 1.5 (at processes[0].members[0].offsets["0_1"])'],
    ['a negative standby count', { subtopologies: [], processes: [], numStandbys: -1 }, 'numStandbys must be an integer in [0, 2147483647], got -1 (at numStandbys)'],
  ])('%s: exit 2 with one line', (_, input, line) => {
    const r = streams([], input);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`assignor: ${line}\n`);
  });
});
