// Issue 34: bounded work and honest errors for groups. A group above the documented limit is
// refused up front (never an exhausted heap), claims are ignored whatever their number, and every
// input question has one answer: null is absent, an empty instance id is refused as Kafka does, a
// previous count above the count is refused.
import { describe, expect, it } from 'vitest';
import { assignGroup, type GroupStrategy } from '../../src/group/index.js';
import { GROUP_MAX_PARTITIONS } from '../../src/group/input.js';
import { runCli } from '../../src/cli/main.js';
import { caught, cli } from '../helpers.js';

const STRATEGIES: GroupStrategy[] = ['sticky', 'range', 'round-robin'];
const HUGE = { topics: [{ name: 'big', partitions: 2147483647 }], members: [{ id: 'm1', topics: ['big'] }] };

function group(args: string[], input: unknown) {
  return cli(['group', '--input', '-', ...args], typeof input === 'string' ? input : JSON.stringify(input));
}

/** Runs `assignor group` in this process (no process start-up in the timing); stderr as text. */
async function groupInProcess(args: string[], input: unknown): Promise<{ code: number; stderr: string; ms: number }> {
  const { writeFileSync, mkdtempSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { tmpdir } = await import('node:os');
  const file = join(mkdtempSync(join(tmpdir(), 'assignor-limits-')), 'group.json');
  writeFileSync(file, JSON.stringify(input));
  let stderr = '';
  const write = process.stderr.write.bind(process.stderr);
  process.stderr.write = ((chunk: string | Uint8Array) => {
    stderr += String(chunk);
    return true;
  }) as typeof process.stderr.write;
  const t0 = performance.now();
  try {
    const code = await runCli(['group', '--input', file, ...args]);
    return { code, stderr, ms: performance.now() - t0 };
  } finally {
    process.stderr.write = write;
  }
}

/** Two subscribed topics of `a` and `b` partitions, and one nobody subscribes (it does not count). */
const sized = (a: number, b: number) => ({
  topics: [{ name: 'x', partitions: a }, { name: 'unread', partitions: 5000 }, { name: 'y', partitions: b }],
  members: [{ id: 'm1', topics: ['x', 'y'] }, { id: 'm2', topics: ['y'] }],
});

describe('the partition limit', () => {
  it('refuses a group at 2^31 - 1 partitions in under a second, one line naming the limit and the flag', async () => {
    for (const strategy of STRATEGIES) {
      const r = await groupInProcess(['--strategy', strategy], HUGE);
      expect(r.code).toBe(2);
      expect(r.ms).toBeLessThan(1000);
      expect(r.stderr).toBe(
        `assignor: the subscribed topics hold 2147483647 partitions, more than the limit of ${GROUP_MAX_PARTITIONS} (raise it with --max-partitions) (at topics[0].partitions)\n`,
      );
    }
    const spawned = group([], HUGE);
    expect(spawned.status).toBe(2);
    expect(spawned.stderr.trimEnd().split('\n')).toHaveLength(1);
  });

  it('the library refuses it the same way before any work, naming its option', () => {
    const t0 = performance.now();
    const e = caught(() => assignGroup(HUGE, { strategy: 'range' }));
    expect(performance.now() - t0).toBeLessThan(1000);
    expect([e.code, e.path]).toEqual(['E_TOO_LARGE', 'topics[0].partitions']);
    expect(e.message).toMatch(/more than the limit of 50000000 \(raise it with the maxPartitions option\)$/);
  });

  it('at the limit every strategy assigns; one partition past it is refused, naming the topic that passes it', () => {
    for (const strategy of STRATEGIES) {
      const r = assignGroup(sized(600, 400), { strategy, maxPartitions: 1000 });
      expect(r.report.partitions).toBe(1000);
      const e = caught(() => assignGroup(sized(600, 401), { strategy, maxPartitions: 1000 }));
      expect([e.code, e.path, e.message]).toEqual(['E_TOO_LARGE', 'topics[2].partitions', 'the subscribed topics hold 1001 partitions, more than the limit of 1000 (raise it with the maxPartitions option)']);
    }
  });

  it('--max-partitions sets it on the command line: at the limit exit 0, past it exit 2 in one line', () => {
    const at = group(['--max-partitions', '1000', '--strategy', 'range'], sized(600, 400));
    expect(at.stderr).toBe('');
    expect(JSON.parse(at.stdout).report.partitions).toBe(1000);
    const past = group(['--max-partitions', '1000'], sized(601, 400));
    expect(past.status).toBe(2);
    expect(past.stderr).toBe('assignor: the subscribed topics hold 1001 partitions, more than the limit of 1000 (raise it with --max-partitions) (at topics[2].partitions)\n');
    const bad = group(['--max-partitions', '0'], sized(1, 1));
    expect(bad.stderr).toBe('assignor: --max-partitions must be an integer in [1, 9007199254740991], got 0 (at --max-partitions)\n');
  });

  it('a bad maxPartitions is E_RANGE naming the option', () => {
    for (const v of [0, 1.5, -1, Number.NaN, '10']) {
      expect(caught(() => assignGroup(sized(1, 1), { maxPartitions: v as number })).path).toBe('options.maxPartitions');
    }
  });
});

describe('claims of partitions that do not exist', () => {
  it('are ignored and counted, whatever their number (2^31 - 1 included), by every strategy', () => {
    const spec = { topics: [{ name: 't', partitions: 3 }], members: [{ id: 'm', topics: ['t'], owned: { t: [2147483647, 1, 3, 2147483646] } }] };
    for (const strategy of STRATEGIES) {
      const r = assignGroup(spec, { strategy });
      expect(r.assignment.get('m')!.get('t')).toEqual([0, 1, 2]);
      expect(r.report.ignoredClaims).toBe(3);
      expect(r.report.placed + r.report.kept).toBe(3);
    }
    const c = group([], { topics: [{ name: 't', partitions: 3 }], members: [{ id: 'm', topics: ['t'], owned: { t: [2147483647] } }] });
    expect(c.stderr).toBe('');
    expect(JSON.parse(c.stdout).report.ignoredClaims).toBe(1);
  });

  it('also counts claims of topics without metadata and of topics the member does not subscribe', () => {
    const spec = { topics: [{ name: 't', partitions: 2 }, { name: 'u', partitions: 2 }], members: [{ id: 'm', topics: ['t'], owned: { t: [0], u: [0, 1], gone: [5] } }] };
    expect(assignGroup(spec).report.ignoredClaims).toBe(3);
  });

  it('a claim above 2^31 - 1 or negative is still refused: no partition number is written so', () => {
    for (const p of [2147483648, -1]) {
      const e = caught(() => assignGroup({ topics: [{ name: 't', partitions: 3 }], members: [{ id: 'm', topics: ['t'], owned: { t: [p] } }] }));
      expect([e.code, e.path]).toEqual(['E_RANGE', 'members[0].owned["t"][0]']);
    }
  });
});

describe('one rule per input question', () => {
  const member = (extra: object) => ({ topics: [{ name: 't', partitions: 2 }], members: [{ id: 'm', topics: ['t'], ...extra }] });

  it('null is the same as absent for every optional member field, generation included', () => {
    const plain = assignGroup(member({}), { strategy: 'range' }).report;
    expect(assignGroup(member({ generation: null, owned: null, rack: null, instanceId: null }), { strategy: 'range' }).report).toEqual(plain);
    expect(assignGroup(member({ owned: { t: [0] }, generation: null })).group.members[0]!.generation).toBe(0);
    expect(assignGroup({ topics: [{ name: 't', partitions: 2, previousPartitions: null }], members: [] }).group.topics.get('t')!.previous).toBe(0);
  });

  it('an empty instance id is refused with Kafka\'s text (JoinGroupRequest.validateGroupInstanceId)', () => {
    const e = caught(() => assignGroup(member({ instanceId: '' })));
    expect([e.code, e.path, e.message]).toEqual(['E_INPUT', 'members[0].instanceId', "Group instance id is illegal, it can't be empty"]);
  });

  it('previousPartitions above partitions is refused (Kafka cannot remove partitions); equal is no growth', () => {
    const e = caught(() => assignGroup({ topics: [{ name: 't', partitions: 4, previousPartitions: 5 }], members: [] }));
    expect([e.code, e.path]).toEqual(['E_RANGE', 'topics[0].previousPartitions']);
    expect(e.message).toBe('a previous partition count must be at most the partition count 4 (Kafka cannot remove partitions), got 5');
    expect(assignGroup({ topics: [{ name: 't', partitions: 4, previousPartitions: 4 }], members: [] }).report.growth).toEqual([]);
  });

  it('the member-shape error lists every field, instanceId included', () => {
    expect(caught(() => assignGroup({ topics: [], members: [7] })).message).toBe('a member must be an object { id, topics, rack?, instanceId?, owned?, generation? }, got 7');
  });
});

describe('every group refusal is one line that says where', () => {
  it.each([
    ['no topics', {}, '(at topics)'],
    ['members not a list', { topics: [], members: 'm1' }, '(at members)'],
    ['a bad generation', { topics: [], members: [{ id: 'm', topics: [], generation: -1 }] }, '(at members[0].generation)'],
    ['bad JSON', '{"topics": [1,,2]}', '(at line 1, column 15)'],
    ['JSON on a later line', '{\n  "topics": [],\n  "members": [}\n', '(at line 3, column 15)'],
  ])('%s', (_, input, where) => {
    const r = group([], input);
    expect(r.status).toBe(2);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(r.stderr.trimEnd().endsWith(where)).toBe(true);
  });

  it('an argument error names its flag', () => {
    expect(cli(['group', '--input', '-', '--strategy', 'x']).stderr).toMatch(/ \(at --strategy\)\n$/);
  });

  it('binary input: line and column, a short excerpt with every byte outside printable ASCII escaped', () => {
    const bytes = Buffer.concat([Buffer.from('{"topics":'), Buffer.from([0x00, 0x1b, 0x5b, 0x32, 0x4a, 0xff, 0xfe, 0x07]), Buffer.alloc(5000, 0x41)]);
    const r = cli(['group', '--input', '-'], bytes);
    expect(r.status).toBe(2);
    const line = r.stderr.trimEnd();
    expect(line.split('\n')).toHaveLength(1);
    expect(line).toMatch(/^assignor: stdin is not valid JSON: expected a JSON value, got '\\u0000' near "\{\\"topics\\":\\u0000\\u001b\[2J/);
    expect(line).toMatch(/\(at line 1, column 11\)$/);
    expect(/^[\x20-\x7e…]*$/.test(line)).toBe(true); // nothing raw: no escape sequence reaches the terminal
    expect(line.length).toBeLessThan(200);
  });
});

describe('byte-order marks: one rule for every command that reads JSON', () => {
  const BOM = '\ufeff';
  const inputs: [string, string[], string][] = [
    ['group', ['group', '--input', '-'], '{"topics":[],"members":[]}'],
    ['channels validate', ['channels', 'validate', '-', '--partitions', '2'], '{"channels":[[0],[1]]}'],
    ['channels expand', ['channels', 'expand', '-', '--partitions', '4'], '{"partitions":2,"channels":[[0],[1]]}'],
    ['channels rewidth', ['channels', 'rewidth', '-', '--width', '1'], '{"partitions":2,"channels":[[0],[1]]}'],
    ['standby', ['standby', '--input', '-'], '{"clients":[{"id":"a"}],"numStandbys":0}'],
  ];
  it.each(inputs)('%s: skipped at the start, refused (with line and column) anywhere else', (_, args, text) => {
    const plain = cli(args, text);
    const marked = cli(args, `${BOM}${text}`);
    expect(marked.stderr).toBe(plain.stderr);
    expect(marked.stdout).toBe(plain.stdout);
    const inside = cli(args, ` ${BOM}${text}`);
    expect(inside.status).toBe(2);
    expect(inside.stderr).toMatch(/is not valid JSON: expected a JSON value, got '\\ufeff' .*\(at line 1, column 2\)\n$/);
  });
});
