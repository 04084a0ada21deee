// `assignor group`, run as a user would (the built dist/ binary): the JSON shape, bad input as one
// line and exit 2, --explain, and the --html page rendered in headless Chromium.
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli } from '../helpers.js';
import { command, itNeeds } from '../support/components.js';

const chromium = command('chromium', 'apt-get install chromium');

const GROUP = {
  topics: [{ name: 'orders', partitions: 6, racks: [['r1'], ['r2'], ['r1'], ['r2'], ['r1'], ['r2']] }, { name: 'pay', partitions: 2 }],
  members: [
    { id: 'm2', topics: ['orders', 'pay'], rack: 'r2', owned: { orders: [0, 1, 2, 3], pay: [0, 1] }, generation: 4 },
    { id: 'm1', topics: ['orders'], rack: 'r1', owned: { orders: [4, 5, 9] }, generation: 4 },
    { id: 'idle', topics: ['other'] },
  ],
};

function group(args: string[], input: unknown = GROUP) {
  return cli(['group', '--input', '-', ...args], typeof input === 'string' ? input : JSON.stringify(input));
}

describe('assignor group', () => {
  it('prints { protocol, strategy, assignment, report }: every member, topics and partitions ascending', () => {
    const r = group(['--strategy', 'range']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(Object.keys(out)).toEqual(['protocol', 'strategy', 'assignment', 'report']);
    // Kafka's range with racks: m1 (r1) takes r1's partitions 0, 2, 4 first; m2 the rest.
    expect(out).toMatchObject({ protocol: 'classic', strategy: 'range', assignment: { idle: {}, m1: { orders: [0, 2, 4] }, m2: { orders: [1, 3, 5], pay: [0, 1] } } });
    expect(out.report).toMatchObject({ partitions: 8, kept: 5, moved: 3, placed: 0, rackMatched: 6, missingTopics: ['other'], balance: { min: 3, max: 5, spread: 2 } });
    expect(r.stdout.endsWith('}\n')).toBe(true);
  });
  it('sticky is the default and keeps what balance allows', () => {
    const out = JSON.parse(group([]).stdout);
    expect(out.strategy).toBe('sticky');
    expect(out.report.kept).toBeGreaterThanOrEqual(6);
    expect(out.assignment.m2.pay).toEqual([0, 1]);
  });
  it.each([
    ['bad JSON', '{"topics": [', /^assignor: stdin is not valid JSON: .* \(at line 1, column 13\)\n$/],
    ['a duplicate member id', { topics: [], members: [{ id: 'a', topics: [] }, { id: 'a', topics: [] }] }, /^assignor: duplicate member id "a" \(at members\[1\]\.id\)\n$/],
    ['a partition count of 0', { topics: [{ name: 't', partitions: 0 }], members: [] }, /^assignor: a partition count must be an integer in \[1, 2147483647\], got 0 \(at topics\[0\]\.partitions\)\n$/],
    ['a partition count of 2^31', { topics: [{ name: 't', partitions: 2 ** 31 }], members: [] }, /^assignor: .* got 2147483648 \(at topics\[0\]\.partitions\)\n$/],
    ['members not a list', { topics: [], members: 'm1' }, /^assignor: members must be a list, got "m1" \(at members\)\n$/],
  ])('%s: exit 2 with one line', (_, input, line) => {
    const r = group([], input);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(line);
  });
  it('an unknown strategy: exit 2, naming the choices', () => {
    const r = group(['--strategy', 'cooperative-sticky']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/sticky, range, round-robin/);
  });
  it('--protocol consumer: the broker\'s uniform by default, range on request, the JSON shape unchanged', () => {
    const uniform = JSON.parse(group(['--protocol', 'consumer']).stdout);
    expect(uniform).toMatchObject({ protocol: 'consumer', strategy: 'uniform' });
    // Heterogeneous uniform keeps every current partition, then evens out the members' totals:
    // m2 (6 partitions) gives its highest of orders, 3 then 2, to m1 (2).
    expect(uniform.assignment).toEqual({ idle: {}, m1: { orders: [2, 3, 4, 5] }, m2: { orders: [0, 1], pay: [0, 1] } });
    const range = JSON.parse(group(['--protocol', 'consumer', '--strategy', 'range']).stdout);
    expect(range.assignment).toEqual({ idle: {}, m1: { orders: [0, 1, 2] }, m2: { orders: [3, 4, 5], pay: [0, 1] } });
    expect(group(['--protocol', 'consumer', '--explain']).stdout).toMatch(/^consumer protocol, strategy uniform: 8 partitions of 2 topics over 3 members\n[^]*topic orders: id [A-Za-z0-9_-]{22} \(derived from the name\)\n/);
  });
  it.each([
    [['--protocol', 'kip-848'], /^assignor: --protocol must be one of classic, consumer, got "kip-848" \(at --protocol\)\n$/],
    [['--protocol', 'consumer', '--strategy', 'round-robin'], /^assignor: --strategy must be one of uniform, range, sticky with --protocol consumer, got "round-robin" \(at --strategy\)\n$/],
    [['--strategy', 'uniform'], /^assignor: --strategy must be one of sticky, range, round-robin with --protocol classic, got "uniform" \(at --strategy\)\n$/],
  ])('%j: exit 2 with one line', (args, line) => {
    const r = group(args);
    expect([r.status, r.stdout]).toEqual([2, '']);
    expect(r.stderr).toMatch(line);
  });
  it.each([
    ['too short', 'abc', /a topic id is 22 characters/],
    ['not base64url', 'AAAAAAAAAAAAAAAAAAAA+A', /URL-safe base64/],
    ['not as Kafka prints it', 'AAAAAAAAAAAAAAAAAAAAAB', /last 4 bits are zero/],
    ['reserved', 'AAAAAAAAAAAAAAAAAAAAAA', /reserved ids/],
  ])('a malformed topic id (%s): exit 2 with one line naming the place', (_, id, message) => {
    const r = group(['--protocol', 'consumer'], { topics: [{ name: 't', partitions: 1, id }], members: [] });
    expect([r.status, r.stdout]).toEqual([2, '']);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).toMatch(/ \(at topics\[0\]\.id\)\n$/);
    expect(r.stderr.split('\n')).toHaveLength(2);
  });
  it('--explain says what moved and why', () => {
    const r = group(['--strategy', 'round-robin', '--explain']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^strategy round-robin: 8 partitions of 2 topics over 3 members\n/);
    expect(r.stdout).toMatch(/moved orders\[0\]: m2 -> m1: round-robin ignores ownership/);
    expect(r.stdout).toContain('topic other is subscribed but has no metadata: ignored, as Kafka does');
    expect(r.stdout).toContain('  idle: 0 partitions\n');
    const sticky = group(['--explain']).stdout;
    expect(sticky).toMatch(/moved orders\[\d\]: m2 -> m1: m2 held 4 partitions of orders, more than its share of at most 3/);
  });
  itNeeds(chromium)('--html writes a page that Chromium renders: members by topics, counts, moved partitions and rack matches marked, markup kept as text', () => {
    const dir = mkdtempSync(join(tmpdir(), 'group-html-'));
    const file = join(dir, 'g.html');
    const evil = { ...GROUP, members: [...GROUP.members, { id: '<img src=x onerror=alert(1)>', topics: ['pay'] }] };
    const r = group(['--strategy', 'range', '--html', file], evil);
    expect(r.status).toBe(0);
    expect(readFileSync(file, 'utf8')).not.toMatch(/https?:\/\//); // self-contained
    const dom = spawnSync(chromium.path, ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--dump-dom', `file://${file}`], { encoding: 'utf8', timeout: 60_000 }).stdout;
    const table = /<table class="group">([\s\S]*?)<\/table>/.exec(dom)![1]!;
    expect(table.match(/<tr/g)!.length).toBe(5); // header + 4 members
    // m1 on r1: 0, 2, 4 are on its rack; 0..3 were m2's, so 0 and 2 moved to it.
    const m1 = /<tr data-member="m1">([\s\S]*?)<\/tr>/.exec(table)![1]!;
    expect(m1).toContain('<td class="n">3</td>');
    expect(m1).toContain('<span class="moved rack">0</span> <span class="moved rack">2</span> <span class="rack">4</span>');
    expect(dom).not.toContain('<img');
    expect(dom).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(dom).toMatch(/rack matches 6 of 8/);
  }, 60_000);
});
