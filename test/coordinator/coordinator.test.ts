// The coordinator loop on the file store (no broker): it acts once per change, keeps the model on a
// refused change, retries failed writes, stops when fenced, resumes from the store after a restart.
import { afterAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AssignorError } from '../../src/errors.js';
import { CoordinatorStore } from '../../src/store/index.js';
import { Coordinator, type ModelEvent, type RefusedEvent, type ErrorInfo } from '../../src/coordinator/coordinator.js';
import { JobFilePartitionCounts, StaticPartitionCounts, type PartitionCountSource } from '../../src/coordinator/partition-counts.js';
import { cleanupTempDirs, contents, FlakyStore, jobFileJson, jobOf, sspTasks, statefulConfig, tempDir, until } from './helpers.js';

afterAll(cleanupTempDirs);

const PVE = 'kafka.PVE';
const config = statefulConfig([PVE]);

interface Recorder {
  models: ModelEvent[];
  refused: RefusedEvent[];
  errors: Array<{ e: AssignorError; info: ErrorInfo }>;
}

function record(c: Coordinator): Recorder {
  const r: Recorder = { models: [], refused: [], errors: [] };
  c.on('model', (e: ModelEvent) => r.models.push(e));
  c.on('refused', (e: RefusedEvent) => r.refused.push(e));
  c.on('error', (e: AssignorError, info: ErrorInfo) => r.errors.push({ e, info }));
  return r;
}

function start(store: FlakyStore | CoordinatorStore, counts: PartitionCountSource, intervalMs = 10): { c: Coordinator; r: Recorder } {
  const c = Coordinator.start({ job: jobOf(config), store: store instanceof FlakyStore ? store : new FlakyStore(store), counts, intervalMs, backoff: { initialMs: 5, maxMs: 20 } });
  return { c, r: record(c) };
}

describe('Coordinator: one write per partition-count change', () => {
  it('persists the model at start, then once per change however many polls see it', async () => {
    const store = new FlakyStore(CoordinatorStore.open(tempDir()));
    const counts = new StaticPartitionCounts(new Map([[PVE, 4]]));
    const { c, r } = start(store, counts);
    await until(() => r.models.length === 1, 10_000, 'the start model');
    expect(r.models[0]!.reason).toBe('start');
    expect(r.models[0]!.written).toBe(true);
    const polls = c.pollCount;
    await until(() => c.pollCount >= polls + 20, 10_000, '20 more polls');
    expect(store.commits).toBe(1);
    counts.set(new Map([[PVE, 8]]));
    await until(() => r.models.length === 2, 10_000, 'the model after 4 -> 8');
    const after = c.pollCount;
    await until(() => c.pollCount >= after + 20, 10_000, '20 polls after the change');
    await c.stop();
    expect(store.commits).toBe(2);
    expect(r.models.length).toBe(2);
    const e = r.models[1]!;
    expect(e.reason).toBe('change');
    expect(e.previousCounts).toEqual(new Map([[PVE, 4]]));
    expect(e.counts).toEqual(new Map([[PVE, 8]]));
    expect(e.cycle.changes.sspsNew).toBe(4);
    expect(e.cycle.changes.sspsMoved).toBe(0);
    // Folded: partition p + 4 joined the task of partition p.
    const tasks = sspTasks(store);
    for (let p = 0; p < 4; p++) expect(tasks.get(`${PVE}#${p + 4}`)).toEqual(tasks.get(`${PVE}#${p}`));
    expect(r.errors).toEqual([]);
    await store.close();
  });

  it('keeps the stored model on a refused change, reports the share of keys and the safe counts once, and acts on the next change', async () => {
    const store = new FlakyStore(CoordinatorStore.open(tempDir()));
    const counts = new StaticPartitionCounts(new Map([[PVE, 4]]));
    const { c, r } = start(store, counts);
    await until(() => r.models.length === 1, 10_000, 'the start model');
    const before = contents(store);
    counts.set(new Map([[PVE, 6]]));
    await until(() => r.refused.length === 1, 10_000, 'the refusal');
    const polls = c.pollCount;
    await until(() => c.pollCount >= polls + 20, 10_000, '20 more polls');
    expect(r.refused.length).toBe(1);
    const refused = r.refused[0]!;
    expect(refused.error.code).toBe('E_KEY_MOVEMENT');
    expect(refused.error.message).toContain('1/2 of keys (50%)');
    expect(refused.streams).toEqual([{ stream: PVE, base: 4, partitions: 6, movedShare: 0.5, moved: { numerator: 1, denominator: 2 }, nearestSafe: [4, 8] }]);
    expect(contents(store)).toEqual(before);
    expect(store.attempts).toBe(1);
    counts.set(new Map([[PVE, 8]]));
    await until(() => r.models.length === 2, 10_000, 'the model after 6 -> 8');
    await c.stop();
    expect(r.models[1]!.previousCounts).toEqual(new Map([[PVE, 6]]));
    expect(r.models[1]!.plan.streams[0]!.handling).toBe('folded');
    await store.close();
  });

  it('retries a failed write with backoff after re-reading the store, and writes once', async () => {
    const store = new FlakyStore(CoordinatorStore.open(tempDir()));
    store.failCommits = 3;
    const { c, r } = start(store, new StaticPartitionCounts(new Map([[PVE, 4]])));
    await until(() => r.models.length === 1, 10_000, 'the model after three failed writes');
    await c.stop();
    expect(store.attempts).toBe(4);
    expect(store.commits).toBe(1);
    expect(store.reopens).toBe(3);
    expect(r.errors.map((x) => [x.e.code, x.info.fatal])).toEqual([
      ['E_STORE_KAFKA', false],
      ['E_STORE_KAFKA', false],
      ['E_STORE_KAFKA', false],
    ]);
    expect(sspTasks(store).size).toBe(4);
    await store.close();
  });

  it('retries when partition counts cannot be read, and catches up with the newest counts', async () => {
    const store = CoordinatorStore.open(tempDir());
    let fails = 3;
    const inner = new StaticPartitionCounts(new Map([[PVE, 4]]));
    const counts: PartitionCountSource = {
      name: 'flaky',
      counts: async (s) => {
        if (fails-- > 0) throw new AssignorError('E_COUNTS_KAFKA', 'injected: broker unreachable');
        return inner.counts(s);
      },
      close: async () => {},
    };
    inner.set(new Map([[PVE, 12]]));
    const { c, r } = start(store, counts);
    await until(() => r.models.length === 1, 10_000, 'the model');
    await c.stop();
    expect(r.errors.map((x) => x.e.code)).toEqual(['E_COUNTS_KAFKA', 'E_COUNTS_KAFKA', 'E_COUNTS_KAFKA']);
    expect(r.models[0]!.counts).toEqual(new Map([[PVE, 12]]));
    store.close();
  });

  it('stops with E_STORE_FENCED when a newer writer fenced it, writing nothing', async () => {
    const store = new FlakyStore(CoordinatorStore.open(tempDir()));
    store.failCommits = 1;
    store.code = 'E_STORE_FENCED';
    const { c, r } = start(store, new StaticPartitionCounts(new Map([[PVE, 4]])));
    await expect(c.done).rejects.toMatchObject({ code: 'E_STORE_FENCED' });
    expect(r.models).toEqual([]);
    expect(store.commits).toBe(0);
    expect(r.errors.map((x) => [x.e.code, x.info.fatal])).toEqual([['E_STORE_FENCED', true]]);
    expect(store.size).toBe(0);
    await store.close();
  });

  it('resumes from the store after a restart: the same counts write nothing, a change writes once', async () => {
    const dir = tempDir();
    const first = CoordinatorStore.open(dir);
    const a = start(first, new StaticPartitionCounts(new Map([[PVE, 8]])));
    await until(() => a.r.models.length === 1, 10_000, 'the first model');
    await a.c.stop();
    first.close();
    const store = new FlakyStore(CoordinatorStore.open(dir));
    const counts = new StaticPartitionCounts(new Map([[PVE, 8]]));
    const b = start(store, counts);
    await until(() => b.r.models.length === 1, 10_000, 'the model after restart');
    expect(b.r.models[0]!.written).toBe(false);
    expect(store.attempts).toBe(0);
    counts.set(new Map([[PVE, 16]]));
    await until(() => b.r.models.length === 2, 10_000, 'the change after restart');
    await b.c.stop();
    expect(store.commits).toBe(1);
    // Base 8 (the first model's count) folds 16.
    expect(b.r.models[1]!.plan.streams[0]!).toMatchObject({ base: 8, partitions: 16, handling: 'folded' });
    await store.close();
  });

  it('stop() ends the loop: done resolves, `stopped` is emitted, no more polls', async () => {
    const store = CoordinatorStore.open(tempDir());
    const { c, r } = start(store, new StaticPartitionCounts(new Map([[PVE, 4]])), 5);
    let stopped = 0;
    c.on('stopped', () => stopped++);
    await until(() => r.models.length === 1, 10_000, 'the start model');
    await c.stop();
    await expect(c.done).resolves.toBeUndefined();
    const polls = c.pollCount;
    await new Promise((res) => setTimeout(res, 100));
    expect(c.pollCount).toBe(polls);
    expect(stopped).toBe(1);
    store.close();
  });

  it('follows a job file: editing its partitions is a change', async () => {
    const dir = tempDir();
    const file = join(dir, 'job.json');
    writeFileSync(file, jobFileJson(config, { [PVE]: 4 }));
    const store = CoordinatorStore.open(join(dir, 'store'));
    const { c, r } = start(store, new JobFilePartitionCounts(file));
    await until(() => r.models.length === 1, 10_000, 'the start model');
    writeFileSync(file, '{"config": {'); // half-saved: reported and retried, nothing acted on
    await until(() => r.errors.length > 0, 10_000, 'the parse error');
    expect(r.errors[0]!.e.code).toBe('E_COUNTS_FILE');
    writeFileSync(file, jobFileJson(config, { [PVE]: 12 }));
    await until(() => r.models.length === 2, 10_000, 'the model after the edit');
    await c.stop();
    expect(r.models[1]!.counts).toEqual(new Map([[PVE, 12]]));
    store.close();
  });

  it('refuses a job without input streams, as Samza does', () => {
    const store = CoordinatorStore.open(tempDir());
    try {
      expect(() => Coordinator.start({ job: jobOf(statefulConfig([])), store, counts: new StaticPartitionCounts(new Map()) })).toThrow('Input streams to a job can not be empty.');
    } finally {
      store.close();
    }
  });
});

// Each retried failure reports when the next attempt runs; the loop must then wait exactly that
// long, and no more: 200 ms doubling to 1.6 s here, so a wait the report does not announce (or a
// report of the first delay for a later, longer wait) shows as a gap that differs by 200 ms or more.
describe('Coordinator: the delay a retry reports is the wait that follows it', () => {
  const BACKOFF = { initialMs: 200, maxMs: 1600 };
  const SLACK = 150;

  it('on the read path: counts that cannot be read are retried after 200, 400, 800, 1600, 1600 ms, as reported', async () => {
    const store = CoordinatorStore.open(tempDir());
    const calls: number[] = [];
    let fails = 5;
    const counts: PartitionCountSource = {
      name: 'flaky',
      counts: async () => {
        calls.push(Date.now());
        if (fails-- > 0) throw new AssignorError('E_COUNTS_FILE', 'injected: job.json is not valid JSON');
        return new Map([[PVE, 4]]);
      },
      close: async () => {},
    };
    const c = Coordinator.start({ job: jobOf(config), store, counts, intervalMs: 60_000, backoff: BACKOFF });
    const r = record(c);
    await until(() => r.models.length === 1, 20_000, 'the model after five failed reads');
    await c.stop();
    store.close();
    const reported = r.errors.map((x) => x.info.retryInMs);
    expect(reported).toEqual([200, 400, 800, 1600, 1600]);
    for (let i = 0; i < reported.length; i++) {
      const gap = calls[i + 1]! - calls[i]!;
      expect(gap, `wait after failed read ${i + 1}, reported ${reported[i]} ms`).toBeGreaterThanOrEqual(reported[i]! - 5);
      expect(gap, `wait after failed read ${i + 1}, reported ${reported[i]} ms`).toBeLessThan(reported[i]! + SLACK);
    }
  }, 30_000);

  it('on the write path: failed writes and failed re-reads of the store wait what they report, and nothing unreported', async () => {
    const store = new FlakyStore(CoordinatorStore.open(tempDir()));
    store.failCommits = 3;
    store.failReopens = 2;
    const c = Coordinator.start({ job: jobOf(config), store, counts: new StaticPartitionCounts(new Map([[PVE, 4]])), intervalMs: 60_000, backoff: BACKOFF });
    const reports: number[] = [];
    // Reported synchronously after the failure: it belongs to the operation logged last.
    const waits = new Map<number, number>();
    c.on('error', (_e: AssignorError, info: ErrorInfo) => {
      reports.push(info.retryInMs!);
      waits.set(store.log.length - 1, info.retryInMs!);
    });
    const models: ModelEvent[] = [];
    c.on('model', (e: ModelEvent) => models.push(e));
    await until(() => models.length === 1, 20_000, 'the model after three failed writes');
    await c.stop();
    await store.close();
    // commit fails, reopen fails twice, reopen, commit fails, reopen, commit fails, reopen, commit.
    expect(store.log.map((o) => `${o.op}${o.failed ? '!' : ''}`)).toEqual(['commit!', 'reopen!', 'reopen!', 'reopen', 'commit!', 'reopen', 'commit!', 'reopen', 'commit']);
    expect(reports).toEqual([200, 400, 800, 1600, 1600]);
    for (let i = 0; i + 1 < store.log.length; i++) {
      const expected = waits.get(i) ?? 0;
      const gap = store.log[i + 1]!.start - store.log[i]!.end;
      expect(gap, `wait after ${store.log[i]!.op} ${i} (reported ${expected} ms)`).toBeGreaterThanOrEqual(expected - 5);
      expect(gap, `wait after ${store.log[i]!.op} ${i} (reported ${expected} ms)`).toBeLessThan(expected + SLACK);
    }
  }, 30_000);
});
