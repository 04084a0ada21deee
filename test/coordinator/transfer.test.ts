// Import and export without a broker: dumps of coordinator-stream messages (JSON Lines or a JSON
// array) replayed as Samza replays its topic, copied into stores, and written out again; the CLI
// commands on file stores; `kafka://` locations.
import { afterAll, describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AssignorError } from '../../src/errors.js';
import { CoordinatorStore } from '../../src/store/index.js';
import { encodeKey } from '../../src/coordinator-stream/messages.js';
import { parseKafkaLocation, samzaCoordinatorTopic } from '../../src/store/kafka-location.js';
import { copyStore, MessageDump, writeDump } from '../../src/coordinator/transfer.js';
import { persistCycle } from '../../src/coordinator/persist.js';
import { jobCoordinatorTopic } from '../../src/coordinator/open-store.js';
import { cli, caught } from '../helpers.js';
import { cleanupTempDirs, contents, jobFileJson, statefulConfig, tempDir } from './helpers.js';

afterAll(cleanupTempDirs);

const SSP_TYPE = 'set-task-partition-assignment';
const sspKey = (p: number, bucket?: number): string =>
  bucket === undefined ? `{"system":"kafka","partition":${p},"stream":"PVE"}` : `{"system":"kafka","partition":${p},"stream":"PVE","keyBucket":${bucket}}`;
/** An envelope as Samza writes it: a Java HashMap's field order. */
const samzaEnvelope = (values: Record<string, string>): string => `{"host":"10.0.0.1","source":"SamzaContainer","values":${JSON.stringify(values)},"username":"samza","timestamp":1700000000000}`;
const line = (type: string, key: string, value: string | null): string => JSON.stringify({ key: encodeKey(type, key), value });

async function dumpOf(lines: string[]): Promise<MessageDump> {
  const file = join(tempDir(), 'dump.jsonl');
  writeFileSync(file, `${lines.join('\n')}\n`);
  return MessageDump.read(file);
}

async function thrown(p: Promise<unknown>): Promise<AssignorError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(AssignorError);
    return e as AssignorError;
  }
  throw new Error('expected an AssignorError');
}

describe('dumps replay as Samza replays its coordinator stream', () => {
  it('last message wins, a null value deletes, Samza-ordered envelopes are read and the SSP rows held as columns', async () => {
    const d = await dumpOf([
      line(SSP_TYPE, sspKey(0, -1), samzaEnvelope({ taskNames: '["Partition 0"]' })),
      line(SSP_TYPE, sspKey(1, -1), samzaEnvelope({ taskNames: '["Partition 9"]' })),
      line(SSP_TYPE, sspKey(1, -1), samzaEnvelope({ taskNames: '["Partition 1"]' })),
      line(SSP_TYPE, sspKey(2), samzaEnvelope({ taskNames: '["Partition 2"]' })), // Samza before 2022: no keyBucket
      line('set-changelog', 'Partition 0', samzaEnvelope({ Partition: '0' })),
      line('set-changelog', 'Partition 7', samzaEnvelope({ Partition: '7' })),
      line('set-changelog', 'Partition 7', null),
      '',
    ]);
    expect(d.messagesRead).toBe(7);
    expect(contents(d)).toEqual({
      'set-changelog': { 'Partition 0': { Partition: '0' } },
      [SSP_TYPE]: {
        [sspKey(0, -1)]: { taskNames: '["Partition 0"]' },
        [sspKey(1, -1)]: { taskNames: '["Partition 1"]' },
        [sspKey(2)]: { taskNames: '["Partition 2"]' },
      },
    });
    const a = d.sspAssignment();
    expect(a.live).toBe(2); // the canonical keys; the old-form key stays a plain record
    expect([...a.others().keys()]).toEqual([sspKey(2)]);
    expect(d.message('set-changelog', 'Partition 0')).toEqual({ host: '10.0.0.1', username: 'samza', source: 'SamzaContainer', timestamp: 1700000000000, values: { Partition: '0' } });
  });

  it('takes a JSON array, keys as arrays and values as objects (hand-written dumps)', async () => {
    const file = join(tempDir(), 'dump.json');
    writeFileSync(file, JSON.stringify([{ key: [1, 'set-config', 'job.name'], value: { host: 'h', username: 'u', source: 'SamzaContainer', timestamp: 1, values: { value: 'j' } } }, { key: [1, 'set-config', 'x'], value: null }]));
    const d = await MessageDump.read(file);
    expect(contents(d)).toEqual({ 'set-config': { 'job.name': { value: 'j' } } });
  });

  it('refuses bad dumps with the line and what is wrong', async () => {
    expect((await thrown(dumpOf(['{"key": "[1,\\"a\\",\\"b\\"]"']))).message).toMatch(/line 1 is not JSON/);
    expect((await thrown(dumpOf([line('a', 'b', samzaEnvelope({ v: '1' })), '{"key": "[1,\\"a\\",\\"b\\"]"}']))).message).toMatch(/:2: a message needs both "key" and "value"/);
    const badKey = await thrown(dumpOf([JSON.stringify({ key: '["set-config","x"]', value: null })]));
    expect(badKey.code).toBe('E_STORE_FORMAT');
    expect(badKey.message).toContain('is not a coordinator-stream key [1,"<type>","<key>"]');
    const badValue = await thrown(dumpOf([JSON.stringify({ key: encodeKey('set-config', 'x'), value: '{"host":"h"}' })]));
    expect(badValue.code).toBe('E_STORE_FORMAT');
    expect(badValue.message).toContain('is not a JSON object with "values"');
    expect((await thrown(MessageDump.read(join(tempDir(), 'missing.jsonl')))).code).toBe('E_INPUT');
  });
});

describe('import and export round-trip the job state', () => {
  it('copies a dump into an empty store in one write, and export gives the same messages back', async () => {
    const d = await dumpOf([
      line('set-config', 'job.name', samzaEnvelope({ value: 'j' })),
      ...Array.from({ length: 50 }, (_, p) => line(SSP_TYPE, sspKey(p, -1), samzaEnvelope({ taskNames: JSON.stringify([`Partition ${p % 8}`]) }))),
      line(SSP_TYPE, sspKey(50), samzaEnvelope({ taskNames: '["Partition 2"]' })),
      line('set-changelog', '__proto__', samzaEnvelope({ Partition: '3' })),
    ]);
    const store = CoordinatorStore.open(tempDir());
    const r = await copyStore(d, store);
    expect(r).toEqual({ messages: 53, sspRows: 50, types: ['set-config', SSP_TYPE, 'set-changelog'] });
    expect(store.stats().frames).toBe(1);
    expect(contents(store)).toEqual(contents(d));
    let text = '';
    expect(await writeDump(store, async (t) => void (text += t))).toBe(53);
    const out = join(tempDir(), 'out.jsonl');
    writeFileSync(out, text);
    expect(contents(await MessageDump.read(out))).toEqual(contents(d));
    store.close();
  });

  it('refuses to import into a store that already holds state', async () => {
    const store = CoordinatorStore.open(tempDir());
    store.put('set-config', 'job.name', { value: 'other' });
    const e = await thrown(copyStore(await dumpOf([line('set-config', 'job.name', samzaEnvelope({ value: 'j' }))]), store));
    expect(e.code).toBe('E_IMPORT_NOT_EMPTY');
    expect(store.get('set-config', 'job.name')).toEqual({ value: 'other' });
    store.close();
  });

  it('plan continues from imported state: the job Samza left at 4 partitions folds onto the same tasks at 8', async () => {
    const PVE = 'kafka.PVE';
    const config = statefulConfig([PVE]);
    // What Samza's TaskPartitionAssignmentManager and friends left (no base counts: those are ours).
    const d = await dumpOf([
      ...Array.from({ length: 4 }, (_, p) => line(SSP_TYPE, sspKey(p, -1), samzaEnvelope({ taskNames: JSON.stringify([`Partition ${p}`]) }))),
      ...Array.from({ length: 4 }, (_, p) => line('set-changelog', `Partition ${p}`, samzaEnvelope({ Partition: String(p) }))),
      ...Array.from({ length: 4 }, (_, p) => line('set-task-container-assignment', `Partition ${p}`, samzaEnvelope({ containerId: String(p % 2) }))),
    ]);
    const store = CoordinatorStore.open(tempDir());
    await copyStore(d, store);
    const cycle = await persistCycle(store, { config, partitionCounts: new Map([[PVE, 8]]) });
    expect(cycle.plan.streams[0]).toMatchObject({ base: 4, partitions: 8, handling: 'folded' });
    expect(cycle.changes.sspsMoved).toBe(0);
    for (let p = 0; p < 8; p++) expect(store.get(SSP_TYPE, sspKey(p, -1))).toEqual({ taskNames: JSON.stringify([`Partition ${p % 4}`]) });
    store.close();
  });
});

describe('assignor samza import / export (file stores)', () => {
  it('imports a dump, plans on it, exports it; errors are one line and exit 2', () => {
    const dir = tempDir();
    const dump = join(dir, 'dump.jsonl');
    writeFileSync(dump, `${Array.from({ length: 4 }, (_, p) => line(SSP_TYPE, sspKey(p, -1), samzaEnvelope({ taskNames: JSON.stringify([`Partition ${p}`]) }))).join('\n')}\n`);
    const store = join(dir, 'store');
    const i = cli(['samza', 'import', '--from', dump, '--store', store]);
    expect(i.stderr).toContain('import: 4 messages (4 SSP assignments');
    expect(i.status).toBe(0);
    const again = cli(['samza', 'import', '--from', dump, '--store', store]);
    expect(again.status).toBe(2);
    expect(again.stderr.trim().split('\n')).toHaveLength(1);
    expect(again.stderr).toContain('already holds 4 messages');
    const job = join(dir, 'job.json');
    writeFileSync(job, jobFileJson(statefulConfig(['kafka.PVE']), { 'kafka.PVE': 8 }));
    const plan = cli(['samza', 'plan', '--job', job, '--store', store]);
    expect(plan.status).toBe(0);
    expect(plan.stderr).toContain('kafka.PVE: 4 -> 8 partitions, base 4, folded');
    const out = join(dir, 'out.jsonl');
    const e = cli(['samza', 'export', '--store', store, '--out', out]);
    expect(e.status).toBe(0);
    const lines = readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { key: string; value: string });
    const keys = new Set(lines.map((l) => l.key));
    for (let p = 0; p < 8; p++) expect(keys.has(encodeKey(SSP_TYPE, sspKey(p, -1)))).toBe(true);
    const stdout = cli(['samza', 'export', '--store', store]);
    expect(stdout.stdout.trim().split('\n').length).toBe(lines.length);
    const missing = cli(['samza', 'import', '--from', join(dir, 'nope.jsonl'), '--store', join(dir, 's2')]);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/^assignor: cannot read .*nope\.jsonl: ENOENT/);
  });
});

describe('samza export --out', () => {
  it('a directory or an unwritable place is one line, exit 2; a failed export leaves an earlier dump as it was', () => {
    const dir = tempDir();
    const store = join(dir, 'store');
    const job = join(dir, 'job.json');
    writeFileSync(job, jobFileJson(statefulConfig(['kafka.PVE']), { 'kafka.PVE': 4 }));
    expect(cli(['samza', 'plan', '--job', job, '--store', store, '--quiet']).status).toBe(0);
    const out = join(dir, 'out.jsonl');
    expect(cli(['samza', 'export', '--store', store, '--out', out]).status).toBe(0);
    const good = readFileSync(out, 'utf8');
    expect(good.trim().split('\n').length).toBeGreaterThan(4);
    for (const [args, text] of [
      [['--out', dir], `--out ${dir} is a directory`],
      [['--out', join(dir, 'no', 'such', 'dir.jsonl')], 'cannot write'],
      [['--out', ''], '--out needs a file name'],
    ] as Array<[string[], string]>) {
      const r = cli(['samza', 'export', '--store', store, ...args]);
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toContain(text);
    }
    // The store is missing: the earlier dump is neither truncated nor replaced, and no temp file stays.
    const r = cli(['samza', 'export', '--store', join(dir, 'missing'), '--out', out]);
    expect(r.status).toBe(2);
    expect(readFileSync(out, 'utf8')).toBe(good);
    expect(readdirSync(dir).filter((f) => f.includes('.tmp'))).toEqual([]);
    // A second export replaces the dump whole, with the same content.
    expect(cli(['samza', 'export', '--store', store, '--out', out]).status).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe(good);
    expect(readdirSync(dir).filter((f) => f.includes('.tmp'))).toEqual([]);
  });
});

describe('kafka:// locations', () => {
  it('parses brokers and topic, and names what is wrong', () => {
    expect(parseKafkaLocation('kafka://127.0.0.1:9092/coord')).toEqual({ brokers: ['127.0.0.1:9092'], topic: 'coord' });
    expect(parseKafkaLocation('kafka://a:1,b:2')).toEqual({ brokers: ['a:1', 'b:2'], topic: undefined });
    expect(parseKafkaLocation('kafka://[::1]:9092/t.x-y_z')).toEqual({ brokers: ['[::1]:9092'], topic: 't.x-y_z' });
    expect(caught(() => parseKafkaLocation('kafka://host/t')).message).toContain('"host" is not HOST:PORT');
    expect(caught(() => parseKafkaLocation('kafka://h:99999/t')).code).toBe('E_STORE_ARG');
    expect(caught(() => parseKafkaLocation('kafka://h:1/a b')).message).toContain('"a b" is not a valid Kafka topic name');
    expect(caught(() => parseKafkaLocation('kafka://h:1/..')).code).toBe('E_STORE_ARG');
  });

  it("derives Samza's coordinator stream name from job.name and job.id", () => {
    expect(samzaCoordinatorTopic('my_job', '1')).toBe('__samza_coordinator_my-job_1');
    expect(jobCoordinatorTopic(statefulConfig(['kafka.a'], { 'job.name': 'pve', 'job.id': 'x_2' }))).toBe('__samza_coordinator_pve_x-2');
    expect(jobCoordinatorTopic(statefulConfig(['kafka.a'], { 'job.name': 'pve' }))).toBe('__samza_coordinator_pve_1');
  });
});
