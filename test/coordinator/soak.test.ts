// A fault soak of the Kafka-backed coordinator, run as an operator runs it, on a broker of its own:
// `assignor samza watch` processes (counts from Kafka's metadata, the store a coordinator-stream
// topic) while, in a seeded random order, the input topic grows by multiples and by non-multiples,
// a second watch starts and races the first on the same job, a watch is killed (kill -9) at a
// random moment after a change, and the broker is SIGKILLed and restarted. After every event:
//   * every committed transaction on the topic, replayed in order, leaves exactly the model the
//     cycle computes from the state before it for the partition count it records (a file store
//     kept in lockstep: whole, and the documented model for its counts), and the transactions
//     checked before are all still there (no committed model lost);
//   * the last committed model is for the topic's partition count now;
//   * every model a watch printed is one of the committed models;
//   * of the watches alive before a change, at most one is alive after it; every other exit is a
//     fenced coordinator's (exit 2, one line: "another writer ... took over") or our kill -9.
// Short form in the default run (16 events); ASSIGNOR_LONG=1 runs 200. ASSIGNOR_SOAK_SEED=<n>
// replays a run (the seed is printed first).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { startBroker, stopBroker, type Broker } from '../kafka/broker.js';
import { CoordinatorStore } from '../../src/store/index.js';
import { persistCycle } from '../../src/coordinator/persist.js';
import { jobModelJsonBytes } from '../../src/samza/job-model.js';
import type { JobModelPlan } from '../../src/samza/plan.js';
import type { SamzaConfig } from '../../src/samza/config.js';
import type { ReplayedState } from '../../src/store/kafka-state.js';
import { cleanupTempDirs, contents, jobFileJson, sspTasks, startCli, statefulConfig, tempDir, until, type Running } from './helpers.js';
import { commits, readRaw, replay } from './kafka-helpers.js';

const LONG = Boolean(Number(process.env.ASSIGNOR_LONG));
const EVENTS = LONG ? 200 : 16;
const SEED = Number(process.env.ASSIGNOR_SOAK_SEED ?? Date.now() % 2 ** 31);
/** A job's input topic grows up to this many partitions; then the next job (fresh topics) starts. */
const CAP = 48;
const SETTLE_MS = 180_000;
const FENCED_LINE = /^assignor: .*another writer .*took over/;
const PLAN = { mapper: 'base' as const, allowKeyMovement: true };

let dir: string;
let broker: Broker;

beforeAll(async () => {
  dir = tempDir('assignor-soak-broker-');
  broker = await startBroker({ dir, timeoutMs: 400_000 });
}, 450_000);

afterAll(async () => {
  await stopBroker(dir, { graceMs: 0, remove: true });
  cleanupTempDirs();
}, 60_000);

/** Park-Miller: the same seed, the same run. */
function rng(seed: number): () => number {
  let s = seed % 2147483647 || 1;
  return () => (s = (s * 48271) % 2147483647) / 2147483647;
}

/**
 * Makes the topic have `count` partitions (creating it if missing). Retried until it holds: right
 * after a broker restart the admin's requests can fail (no leader yet, metadata not loaded), and a
 * request that failed may still have been carried out.
 */
async function ensurePartitions(topic: string, count: number): Promise<void> {
  const deadline = Date.now() + 180_000;
  let last: unknown;
  while (Date.now() < deadline) {
    const a = new Kafka({ clientId: 'assignor-test-soak', brokers: [broker.brokers], logLevel: logLevel.NOTHING }).admin();
    try {
      await a.connect();
      const have = (await a.listTopics()).includes(topic) ? (await a.fetchTopicMetadata({ topics: [topic] })).topics[0]!.partitions.length : 0;
      if (have === count) return;
      if (have === 0) await a.createTopics({ waitForLeaders: true, topics: [{ topic, numPartitions: count }] });
      else await a.createPartitions({ topicPartitions: [{ topic, count }] });
    } catch (e) {
      last = e;
      await new Promise((r) => setTimeout(r, 1000));
    } finally {
      await a.disconnect().catch(() => undefined);
    }
  }
  throw new Error(`could not give ${topic} ${count} partitions: ${(last as Error)?.message}`);
}

interface Watch {
  id: number;
  run: Running;
  /** The job it coordinates: what it prints must be among that job's committed models. */
  job: Job;
  /** Killed by the soak (kill -9), or stopped (SIGTERM) when its job was full: its exit is ours. */
  killed: boolean;
  stopped: boolean;
  /** Its exit was checked. */
  checked: boolean;
}

/** One job: its input topic, its coordinator stream, a file store in lockstep with the committed transactions. */
interface Job {
  n: number;
  stream: string;
  input: string;
  coord: string;
  config: SamzaConfig;
  jobFile: string;
  count: number;
  model: CoordinatorStore;
  state: ReplayedState;
  /** First offset and size of every committed transaction checked so far. */
  txs: Array<[number, number]>;
  /** The JobModel JSON of every committed state. */
  committed: Set<string>;
}

function modelJson(plan: JobModelPlan): string {
  // As printed: one line (the watch's stdout lines are compared without their newline).
  return Buffer.concat([...jobModelJsonBytes(plan)]).toString('utf8').replace(/\n$/, '');
}

function partitionsOf(state: { entries(type: string): Map<string, unknown> }, stream: string): number {
  let n = 0;
  for (const k of sspTasks(state).keys()) if (k.startsWith(`${stream}#`)) n++;
  return n;
}

describe('fault soak: two watches, growth, kill -9, broker SIGKILL and restart', () => {
  it(`${EVENTS} events: after each, every committed model is whole and the documented one, none lost, none printed uncommitted, one writer`, async () => {
    console.log(`soak: seed ${SEED} (replay with ASSIGNOR_SOAK_SEED=${SEED}), ${EVENTS} events`);
    const random = rng(SEED);
    const pick = (n: number): number => Math.floor(random() * n);
    const stats = { events: 0, grows: 0, multiples: 0, nonMultiples: 0, kills: 0, brokerRestarts: 0, races: 0, fencings: 0, jobs: 0, transactions: 0, lateReads: 0 };
    const started = Date.now();
    const watches: Watch[] = [];
    let nextId = 0;
    let job!: Job;
    const where = (what: string): string => `seed ${SEED}, event ${stats.events} (${what})`;

    const alive = (): Watch[] => watches.filter((w) => w.run.child.exitCode === null && w.run.child.signalCode === null);
    const startWatch = (): Watch => {
      const run = startCli(['samza', 'watch', '--job', job.jobFile, '--store', `kafka://${broker.brokers}/${job.coord}`, '--brokers', broker.brokers, '--interval', '300ms', '--allow-key-movement', '--quiet']);
      const w: Watch = { id: nextId++, run, job, killed: false, stopped: false, checked: false };
      watches.push(w);
      return w;
    };

    const newJob = async (): Promise<void> => {
      const n = stats.jobs++;
      const input = `soak-input-${n}`;
      const stream = `kafka.${input}`;
      const count = 2 + pick(3);
      await ensurePartitions(input, count);
      const config = statefulConfig([stream], { 'job.name': `soak-${n}` });
      const jobFile = join(tempDir(), 'job.json');
      writeFileSync(jobFile, jobFileJson(config, {}));
      job = { n, stream, input, coord: `soak-coord-${n}`, config, jobFile, count, model: CoordinatorStore.open(tempDir()), state: replay([]), txs: [], committed: new Set() };
    };

    /** Replays the transactions committed since the last check against the lockstep model. */
    const checkCommitted = async (what: string): Promise<void> => {
      const kafka = new Kafka({ clientId: 'assignor-test-soak-read', brokers: [broker.brokers], logLevel: logLevel.NOTHING });
      // A read right after a commit can end before it: the last stable offset moves once the broker
      // has written the commit marker, a moment after the commit returned, and the reader stops
      // there (on an empty topic it does not even fetch). Read until two reads 500 ms apart agree.
      let raw = await readRaw(job.coord, { kafka });
      for (;;) {
        await new Promise((res) => setTimeout(res, 500));
        const again = await readRaw(job.coord, { kafka });
        if (again.length === raw.length) break;
        stats.lateReads++;
        raw = again;
      }
      const txs = commits(raw);
      expect(txs.length, `${where(what)}: committed transactions went missing`).toBeGreaterThanOrEqual(job.txs.length);
      for (let i = 0; i < job.txs.length; i++) expect([txs[i]![0]!.offset, txs[i]!.length], `${where(what)}: transaction ${i} changed`).toEqual(job.txs[i]);
      for (let i = job.txs.length; i < txs.length; i++) {
        const tx = txs[i]!;
        for (const r of tx) job.state.applyRecord(r.key, r.value, `${job.coord}@${r.offset}`);
        const n = partitionsOf(job.state, job.stream);
        const cycle = await persistCycle(job.model, { config: job.config, partitionCounts: new Map([[job.stream, n]]) }, PLAN);
        expect(contents(job.state), `${where(what)}: the transaction at offset ${tx[0]!.offset} (${n} partitions) is not the model the cycle computes from the state before it`).toEqual(contents(job.model));
        job.committed.add(modelJson(cycle.plan));
        job.txs.push([tx[0]!.offset, tx.length]);
        stats.transactions++;
      }
    };

    /** The last committed model is for `count`, and each watch alive printed it or exited. */
    const settle = async (what: string): Promise<void> => {
      const printedCount = (w: Watch): number | undefined => {
        const last = w.run.out[w.run.out.length - 1];
        return last === undefined ? undefined : (JSON.parse(last) as { streams: Array<{ partitions: number }> }).streams[0]!.partitions;
      };
      // A kill can leave only a fenced watch, which exits at its next write: then a new one starts.
      await until(
        () => {
          if (alive().length === 0) startWatch();
          return alive().every((w) => printedCount(w) === job.count);
        },
        SETTLE_MS,
        `${where(what)}: every live watch printing the model for ${job.count} partitions`,
      ).catch((e: Error) => {
        throw new Error(`${e.message}\n${alive().map((w) => `watch ${w.id}: ${w.run.err().slice(-800)}`).join('\n')}`);
      });
      await checkCommitted(what);
      expect(partitionsOf(job.state, job.stream), `${where(what)}: the last committed model`).toBe(job.count);
    };

    /** Every model printed is committed; every exit is a fencing (exit 2, one line) or our kill. */
    const checkWatches = async (what: string, before: Watch[]): Promise<void> => {
      for (const w of watches) {
        for (const line of w.run.out) expect(w.job.committed.has(line), `${where(what)}: watch ${w.id} printed a model that was never committed: ${line.slice(0, 200)}`).toBe(true);
      }
      // Of the watches alive before a change, at most one is a writer after it; the fenced ones exit.
      await until(() => before.filter((w) => alive().includes(w)).length <= 1, 60_000, `${where(what)}: the fenced watch to exit`).catch(() => undefined);
      const survivors = before.filter((w) => alive().includes(w));
      expect(survivors.length, `${where(what)}: watches ${survivors.map((w) => w.id).join(', ')} all still alive after a change`).toBeLessThanOrEqual(1);
      for (const w of watches) {
        const code = w.run.child.exitCode ?? w.run.child.signalCode;
        if (code === null || w.checked) continue;
        w.checked = true;
        if (w.killed) {
          expect(code, `${where(what)}: watch ${w.id} after kill -9`).toBe('SIGKILL');
          continue;
        }
        if (w.stopped && code === 0) continue;
        const lines = w.run.err().trim().split('\n').filter((l) => l.startsWith('assignor:'));
        expect(code, `${where(what)}: watch ${w.id} exited: ${w.run.err().slice(-600)}`).toBe(2);
        expect(lines, `${where(what)}: watch ${w.id}'s last words`).toHaveLength(1);
        expect(lines[0]).toMatch(FENCED_LINE);
        stats.fencings++;
      }
    };

    const grow = async (multiple: boolean): Promise<void> => {
      let next: number;
      if (multiple && job.count * 2 <= CAP) next = job.count * 2;
      else {
        const steps = [1, 2, 3].filter((d) => (job.count + d) % job.count !== 0);
        next = job.count + steps[pick(steps.length)]!;
      }
      if (next > CAP) {
        // This job is full: stop its watches (SIGTERM: exit 0) and go on with a fresh one.
        for (const w of alive()) {
          w.stopped = true;
          w.run.child.kill('SIGTERM');
        }
        await until(() => alive().length === 0, 60_000, 'the watches of the full job to stop');
        await checkWatches('the job is full', []);
        job.model.close();
        await newJob();
        startWatch();
        await settle('a new job');
        return;
      }
      await ensurePartitions(job.input, next);
      if (next % job.count === 0) stats.multiples++;
      else stats.nonMultiples++;
      stats.grows++;
      job.count = next;
    };

    await newJob();
    startWatch();
    await settle('start');
    // The short form's first events cover every kind; then the order is random.
    const kinds = ['multiple', 'race', 'non-multiple', 'kill', 'broker', 'race', 'multiple'] as const;
    for (let e = 0; e < EVENTS; e++) {
      stats.events = e + 1;
      if (e % 25 === 0) console.log(`soak: event ${e + 1}, ${Math.round((Date.now() - started) / 1000)} s, ${JSON.stringify(stats)}`);
      const r = random();
      const kind = e < kinds.length ? kinds[e]! : r < 0.3 ? 'multiple' : r < 0.55 ? 'non-multiple' : r < 0.75 ? 'kill' : r < 0.92 ? 'race' : 'broker';
      const before = alive();
      if (kind === 'race') {
        if (alive().length < 2) {
          stats.races++;
          const w = startWatch();
          await until(() => w.run.out.length >= 1 || w.run.child.exitCode !== null, SETTLE_MS, `${where(kind)}: the second watch's first model`);
        }
        await checkCommitted(kind);
        await checkWatches(kind, []);
        continue;
      }
      if (kind === 'broker') {
        await stopBroker(dir, { graceMs: 0 });
        await new Promise((res) => setTimeout(res, random() * 5000));
        broker = await startBroker({ dir, timeoutMs: 400_000 });
        stats.brokerRestarts++;
        await grow(random() < 0.5);
      } else {
        await grow(kind === 'multiple' || (kind === 'kill' && random() < 0.5));
        if (kind === 'kill') {
          await new Promise((res) => setTimeout(res, random() * 1500));
          const live = alive();
          if (live.length > 0) {
            const victim = live[pick(live.length)]!;
            victim.killed = true;
            victim.run.child.kill('SIGKILL');
            await victim.run.exited;
            stats.kills++;
          }
        }
      }
      if (alive().length === 0) startWatch();
      await settle(kind);
      await checkWatches(kind, before.filter((w) => !w.killed));
    }
    for (const w of alive()) {
      w.stopped = true;
      w.run.child.kill('SIGTERM');
    }
    await Promise.all(watches.map((w) => w.run.exited));
    await checkWatches('the end', []);
    job.model.close();
    const seconds = Math.round((Date.now() - started) / 1000);
    console.log(
      `soak: seed ${SEED}: ${stats.events} events (${stats.grows} growths: ${stats.multiples} multiples, ${stats.nonMultiples} non-multiples), ${stats.kills} kill -9, ${stats.brokerRestarts} broker SIGKILL+restart, ${stats.races} racing starts, ${stats.fencings} fencings, ${stats.jobs} jobs, ${stats.transactions} committed transactions checked (${stats.lateReads} reads that ended before a just-committed one), ${seconds} s`,
    );
    expect(stats.transactions).toBeGreaterThan(stats.events / 2);
    expect(stats.brokerRestarts).toBeGreaterThanOrEqual(1);
    expect(stats.kills).toBeGreaterThanOrEqual(1);
  }, LONG ? 7_200_000 : 900_000);
});
