// Streams property validation with Kafka's texts and order, task/client id
// parsing, and cluster.json errors that name the place in the input.
import { describe, expect, it } from 'vitest';
import { AssignorError } from '../../src/errors.js';
import { parseStreamsProperties, placeStandbys, normalizeCluster, parseTaskId, formatTaskId, compareProcessKeys } from '../../src/standby/index.js';
import { compareTaskIds } from '../../src/standby/task-id.js';
import { processKey } from '../../src/standby/process-id.js';

function err(f: () => unknown): AssignorError {
  try {
    f();
  } catch (e) {
    if (e instanceof AssignorError) return e;
    throw e;
  }
  throw new Error('expected an AssignorError');
}

describe('parseStreamsProperties (Kafka texts)', () => {
  it('reads tags, the ordered key list and the standby count', () => {
    const c = parseStreamsProperties({ 'client.tag.zone': 'eu-1a', 'client.tag.cluster': 'k1', 'rack.aware.assignment.tags': 'zone, cluster', 'num.standby.replicas': '2' });
    expect([...c.clientTags]).toEqual([['zone', 'eu-1a'], ['cluster', 'k1']]);
    expect(c.rackAwareAssignmentTags).toEqual(['zone', 'cluster']);
    expect(c.numStandbyReplicas).toBe(2);
  });
  it('accepts .properties text and Maps', () => {
    const c = parseStreamsProperties('# comment\nclient.tag.zone = a\nrack.aware.assignment.tags=zone\nnum.standby.replicas: 1\n');
    expect(c.clientTags.get('zone')).toBe('a');
    expect(c.numStandbyReplicas).toBe(1);
    expect(parseStreamsProperties(new Map([['client.tag.__proto__', 'x']])).clientTags.get('__proto__')).toBe('x');
  });
  it('defaults: no tags, no standbys', () => {
    expect(parseStreamsProperties({})).toEqual({ clientTags: new Map(), rackAwareAssignmentTags: [], numStandbyReplicas: 0 });
  });
  it('more than 5 client tags', () => {
    const props: Record<string, string> = {};
    for (let i = 0; i < 6; i++) props[`client.tag.k${i}`] = 'v';
    expect(err(() => parseStreamsProperties(props)).message).toBe('At most 5 client tags can be specified using client.tag. prefix.');
  });
  it('more than 5 configured keys fails at parse time, before the client-tag checks (as in Kafka StreamsConfigTest)', () => {
    const props: Record<string, string> = { 'rack.aware.assignment.tags': 'a,b,c,d,e,f' };
    for (let i = 0; i < 6; i++) props[`client.tag.k${i}`] = 'v';
    expect(err(() => parseStreamsProperties(props)).message).toBe('Invalid value [a, b, c, d, e, f] for configuration rack.aware.assignment.tags: exceeds maximum list size of [5].');
  });
  it('a configured key without a client tag', () => {
    const e = err(() => parseStreamsProperties({ 'client.tag.zone': 'a', 'rack.aware.assignment.tags': 'zone,cluster' }));
    expect(e.message).toBe("Invalid value [zone, cluster] for configuration rack.aware.assignment.tags: Contains invalid value [cluster] which doesn't have corresponding tag set via [client.tag.] prefix.");
    expect(e.code).toBe('E_CONFIG');
  });
  it('key and value lengths: 20 and 30 UTF-16 units are fine, one more is not', () => {
    expect(() => parseStreamsProperties({ [`client.tag.${'k'.repeat(20)}`]: 'v'.repeat(30) })).not.toThrow();
    expect(err(() => parseStreamsProperties({ [`client.tag.${'k'.repeat(21)}`]: 'v' })).message).toBe(`Invalid value ${'k'.repeat(21)} for configuration client.tag.: Tag key exceeds maximum length of 20.`);
    expect(err(() => parseStreamsProperties({ 'client.tag.zone': 'v'.repeat(31) })).message).toBe(`Invalid value ${'v'.repeat(31)} for configuration client.tag.: Tag value exceeds maximum length of 30.`);
    // An astral character is two UTF-16 units, as Java's String.length() counts.
    expect(() => parseStreamsProperties({ 'client.tag.zone': '😀'.repeat(15) })).not.toThrow();
    expect(err(() => parseStreamsProperties({ 'client.tag.zone': `${'😀'.repeat(15)}x` })).message).toMatch(/Tag value exceeds maximum length of 30\.$/);
  });
  it('the configured-key check runs before the length checks', () => {
    const e = err(() => parseStreamsProperties({ [`client.tag.${'k'.repeat(21)}`]: 'v', 'rack.aware.assignment.tags': 'zone' }));
    expect(e.message).toMatch(/Contains invalid value \[zone\]/);
  });
  it('num.standby.replicas must be an INT; it is parsed before the tag list', () => {
    expect(err(() => parseStreamsProperties({ 'num.standby.replicas': 'two' })).message).toBe('Invalid value two for configuration num.standby.replicas: Not a number of type INT');
    expect(err(() => parseStreamsProperties({ 'num.standby.replicas': 'x', 'rack.aware.assignment.tags': 'a,b,c,d,e,f' })).message).toMatch(/num\.standby\.replicas/);
    expect(parseStreamsProperties({ 'num.standby.replicas': ' 3 ' }).numStandbyReplicas).toBe(3);
    expect(err(() => parseStreamsProperties({ 'num.standby.replicas': '-1' })).message).toMatch(/must be >= 0/);
  });
  it('values that are neither strings nor numbers are refused, not turned into "[object Object]"', () => {
    expect(err(() => parseStreamsProperties({ 'rack.aware.assignment.tags': { zone: 1 } })).message).toBe('Invalid value {"zone":1} for configuration rack.aware.assignment.tags: Expected a comma separated list.');
    expect(err(() => parseStreamsProperties({ 'rack.aware.assignment.tags': ['zone', {}] })).message).toBe('rack.aware.assignment.tags[1] must be a string, got {}');
    expect(err(() => parseStreamsProperties({ 'num.standby.replicas': { n: 1 } })).message).toBe('Invalid value {"n":1} for configuration num.standby.replicas: Not a number of type INT');
    const e = err(() => parseStreamsProperties({ 'client.tag.zone': { a: 1 } }));
    expect(e.message).toBe('client.tag.zone must be a string, got {"a":1}');
    expect(e.path).toBe('client.tag.zone');
    expect(err(() => parseStreamsProperties({ 'client.tag.zone': null })).message).toMatch(/must be a string, got null/);
    // Numbers and booleans are converted, as Java's toString() would.
    expect(parseStreamsProperties({ 'client.tag.zone': 3, 'rack.aware.assignment.tags': ['zone'] }).clientTags.get('zone')).toBe('3');
    // In cluster.json, with the place named.
    const spec = { properties: { 'rack.aware.assignment.tags': { x: 1 } }, clients: [{ id: 'a' }] };
    expect(err(() => placeStandbys(spec)).path).toBe('properties["rack.aware.assignment.tags"]');
    const spec2 = { properties: { 'rack.aware.assignment.tags': 'zone' }, clients: [{ id: 'a', properties: { 'client.tag.zone': ['z1'] } }] };
    const e2 = err(() => placeStandbys(spec2));
    expect(e2.path).toBe('clients[0].properties');
    expect(e2.message).toBe('client.tag.zone must be a string, got ["z1"]');
  });
  it('an empty tag list means no tags', () => {
    expect(parseStreamsProperties({ 'rack.aware.assignment.tags': '  ' }).rackAwareAssignmentTags).toEqual([]);
  });
});

describe('cluster input errors name the place', () => {
  const base = () => ({ clients: [{ id: 'a', tags: { zone: 'z1' }, active: ['0_0'] }, { id: 'b', tags: { zone: 'z2' } }], numStandbys: 1, tagKeys: ['zone'] });
  it('too long tag value -> clients[1].tags.zone', () => {
    const spec = base();
    spec.clients[1]!.tags.zone = 'z'.repeat(31);
    const e = err(() => placeStandbys(spec));
    expect(e.path).toBe('clients[1].tags.zone');
    expect(e.message).toMatch(/Tag value exceeds maximum length of 30/);
  });
  it('bad task id, duplicate ids, double actives, bad capacity', () => {
    const s1 = base();
    s1.clients[0]!.active = ['0-0'];
    expect(err(() => placeStandbys(s1)).path).toBe('clients[0].active[0]');
    const s2 = base();
    s2.clients[1]!.id = 'a';
    expect(err(() => placeStandbys(s2)).path).toBe('clients[1].id');
    const s3 = base();
    (s3.clients[1] as { active?: string[] }).active = ['0_0'];
    expect(err(() => placeStandbys(s3)).message).toMatch(/active on two clients/);
    const s4 = { ...base(), clients: [{ id: 'a', capacity: 0 }] };
    expect(err(() => placeStandbys(s4)).path).toBe('clients[0].capacity');
  });
  it('task ids spelled differently are one task in every check (interned, compared by identity)', () => {
    expect(err(() => normalizeCluster({ clients: [{ id: 'a', active: ['1_2', '01_2'] }] }))).toMatchObject({ message: 'task 1_2 is listed twice', path: 'clients[0].active[1]' });
    expect(err(() => normalizeCluster({ clients: [{ id: 'a', active: ['01_2'] }, { id: 'b', active: ['1_02'] }] }))).toMatchObject({ message: 'task 1_2 is active on two clients ("a" and "b")', path: 'clients[1].active[0]' });
    expect(err(() => normalizeCluster({ clients: [{ id: 'a', active: ['1_2'], standby: ['001_2'] }] }))).toMatchObject({ message: 'client "a" holds 1_2 both as active and as standby', path: 'clients[0].standby[0]' });
    expect(err(() => normalizeCluster({ clients: [{ id: 'a', active: ['0_0', 'x'] }] }))).toMatchObject({ code: 'E_TASK_ID', path: 'clients[0].active[1]' });
    const c = normalizeCluster({ clients: [{ id: 'a', active: ['01_2', '0_0'] }, { id: 'b', standby: ['1_2'] }] });
    expect(c.tasks.map(formatTaskId)).toEqual(['0_0', '1_2']);
    expect(c.clients[1]!.standby[0]).toBe(c.tasks[1]);
  });
  it('misspelt fields are refused instead of silently ignored', () => {
    // The types refuse these too (JS callers get the runtime check).
    // @ts-expect-error `actives` is not a field of a client
    const e = err(() => placeStandbys({ clients: [{ id: 'a', actives: ['0_0'] }, { id: 'b' }], numStandbys: 1 }));
    expect(e.message).toBe('unknown field "actives" in clients[0]: expected id, tags, properties, capacity, active, standby');
    expect(e.path).toBe('clients[0].actives');
    // @ts-expect-error `numStandby` is not a field of the cluster
    const e2 = err(() => placeStandbys({ clients: [{ id: 'a', active: ['0_0'] }, { id: 'b' }], numStandby: 1 }));
    expect(e2.message).toBe('unknown field "numStandby" in the input: expected clients, tasks, numStandbys, tagKeys, properties');
    expect(e2.path).toBe('numStandby');
    expect(err(() => placeStandbys(JSON.parse('{"clients":[{"id":"a","__proto__":{}}]}'))).path).toBe('clients[0].__proto__');
  });
  it('a standby of a task outside the stateful task list is refused', () => {
    const spec = { clients: [{ id: 'a', active: ['0_0', '1_0'] }, { id: 'b', standby: ['0_0', '1_0'] }], tasks: ['0_0'], numStandbys: 1 };
    const e = err(() => placeStandbys(spec));
    expect(e.path).toBe('clients[1].standby[1]');
    expect(e.message).toMatch(/standby of 1_0, which is not in tasks/);
    // Without an explicit list every named task is stateful, so the same holders are fine.
    expect(placeStandbys({ ...spec, tasks: undefined }).report().tasks.map((t) => t.existing.map((e) => e.client))).toEqual([['b'], ['b']]);
  });
  it('UUIDs differing only in case are the same client', () => {
    const spec = { clients: [{ id: 'AAAAAAAA-0000-0000-0000-000000000000' }, { id: 'aaaaaaaa-0000-0000-0000-000000000000' }], numStandbys: 0 };
    expect(err(() => placeStandbys(spec)).message).toMatch(/used twice/);
  });
  it('properties form: shared settings and per-client client.tag.* with Kafka checks', () => {
    const spec = {
      properties: { 'rack.aware.assignment.tags': 'zone', 'num.standby.replicas': '1' },
      clients: [
        { id: 'a', properties: { 'client.tag.zone': 'z1' }, active: ['0_0'] },
        { id: 'b', properties: { 'client.tag.zone': 'z2' } },
      ],
    };
    const r = placeStandbys(spec, { engine: 'reference' }).report();
    expect(r.tagKeys).toEqual(['zone']);
    expect(r.tasks[0]!.standbys[0]!.client).toBe('b');
    const bad = { ...spec, clients: [{ id: 'a', properties: { 'client.tag.rack': 'r' } }] };
    const e = err(() => placeStandbys(bad));
    expect(e.path).toBe('clients[0].properties');
    expect(e.message).toMatch(/Contains invalid value \[zone\]/);
    expect(err(() => placeStandbys({ ...spec, numStandbys: 1 })).message).toMatch(/not both/);
  });
  it('tag errors from properties name a place that exists in the input', () => {
    const long = 'z'.repeat(31);
    expect(err(() => placeStandbys({ clients: [{ id: 'a' }], properties: { 'client.tag.zone': long } })).path).toBe('properties["client.tag.zone"]');
    expect(err(() => placeStandbys({ clients: [{ id: 'a' }], properties: { [`client.tag.${'k'.repeat(21)}`]: 'v' } })).path).toBe(`properties["client.tag.${'k'.repeat(21)}"]`);
    const six = Object.fromEntries(['a', 'b', 'c', 'd', 'e', 'f'].map((k) => [`client.tag.${k}`, '1']));
    expect(err(() => placeStandbys({ clients: [{ id: 'a' }], properties: six })).path).toBe('properties');
    expect(parseStreamsProperties({}).clientTags.size).toBe(0);
    expect(err(() => parseStreamsProperties({ 'client.tag.zone': long })).path).toBe('client.tag.zone');
    // tags form: the key whose value is too long, even when another tag's value looks like the message start.
    const e = err(() => placeStandbys({ clients: [{ id: 'a', tags: { a: 'zz', x: `zz ${long}` } }] }));
    expect(e.path).toBe('clients[0].tags.x');
  });
  it('__proto__ as a tag key or value is ordinary data', () => {
    const spec = { clients: [{ id: '__proto__', tags: { __proto__: 'x' } as Record<string, string>, active: ['0_0'] }, { id: 'b', tags: JSON.parse('{"__proto__":"y"}') }], numStandbys: 1, tagKeys: ['__proto__'] };
    const r = placeStandbys(spec).report();
    expect(r.tasks[0]!.standbys[0]).toMatchObject({ client: 'b', level: 'absolute' });
  });
});

describe('ids', () => {
  it('task ids parse, print and sort like TaskId', () => {
    expect(formatTaskId(parseTaskId('12_3', 'x'))).toBe('12_3');
    const sorted = ['1_0', '0_10', '0_2'].map((t) => parseTaskId(t, 'x')).sort(compareTaskIds).map(formatTaskId);
    expect(sorted).toEqual(['0_2', '0_10', '1_0']);
    expect(() => parseTaskId('a_1', 'x')).toThrow(/subtopology/);
    expect(() => parseTaskId('0_2147483648', 'x')).toThrow();
  });
  it('process ids: signed UUID order, then plain strings', () => {
    const ids = ['7fffffff-ffff-ffff-ffff-ffffffffffff', 'zeta', '80000000-0000-0000-0000-000000000000', '00000000-0000-0000-0000-000000000000', 'alpha', 'ffffffff-ffff-ffff-ffff-ffffffffffff'];
    const sorted = ids.map(processKey).sort(compareProcessKeys).map((k) => k.id);
    expect(sorted).toEqual(['80000000-0000-0000-0000-000000000000', 'ffffffff-ffff-ffff-ffff-ffffffffffff', '00000000-0000-0000-0000-000000000000', '7fffffff-ffff-ffff-ffff-ffffffffffff', 'alpha', 'zeta']);
    expect(normalizeCluster({ clients: ids.map((id) => ({ id })) }).clients.map((c) => c.id)).toEqual(sorted);
  });
});

describe('large inputs', () => {
  it('a client with 300,000 actives is accepted (no call-stack overflow)', () => {
    const active = Array.from({ length: 300_000 }, (_, i) => `0_${i}`);
    const c = normalizeCluster({ clients: [{ id: 'a', active }, { id: 'b', standby: ['0_7'] }], numStandbys: 1 });
    expect(c.tasks.length).toBe(300_000);
    expect(c.clients[0]!.active.length).toBe(300_000);
  });
});
