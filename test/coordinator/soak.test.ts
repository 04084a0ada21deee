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
// replays a run (the seed is printed first): the same events, counts and delays; which watch is
// alive when a kill comes still depends on the processes' timing.
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
import type { ReplayedState } from '../../src/store/replayed-state.js';
import { cleanupTempDirs, contents, jobFileJson, sspTasks, startCli, statefulConfig, tempDir, until, type Running } from './helpers.js';
import { commits, readRaw, replay, type Raw } from './kafka-helpers.js';

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

type Kind = 'multiple' | 'non-multiple' | 'race' | 'kill' | 'broker';
/** The short form's first events cover every kind; then the order is random. */
const FIRST: readonly Kind[] = ['multiple', 'race', 'non-multiple', 'kill', 'broker', 'race', 'multiple'];

/** The soak's state: the random source, the watches started, the job now, and the counts. */
class Soak {
  readonly random = rng(SEED);
  readonly stats = { events: 0, grows: 0, multiples: 0, nonMultiples: 0, kills: 0, brokerRestarts: 0, races: 0, fencings: 0, jobs: 0, transactions: 0, lateReads: 0 };
  readonly started = Date.now();
  readonly watches: Watch[] = [];
  job!: Job;

  pick(n: number): number {
    return Math.floor(this.random() * n);
  }

  where(what: string): string {
    return `seed ${SEED}, event ${this.stats.events} (${what})`;
  }

  alive(): Watch[] {
    return this.watches.filter((w) => w.run.child.exitCode === null && w.run.child.signalCode === null);
  }

  startWatch(): Watch {
    const { job } = this;
    const run = startCli(['samza', 'watch', '--job', job.jobFile, '--store', `kafka://${broker.brokers}/${job.coord}`, '--brokers', broker.brokers, '--interval', '300ms', '--allow-key-movement', '--quiet']);
    const w: Watch = { id: this.watches.length, run, job, killed: false, stopped: false, checked: false };
    this.watches.push(w);
    return w;
  }

  async newJob(): Promise<void> {
    const n = this.stats.jobs++;
    const input = `soak-input-${n}`;
    const stream = `kafka.${input}`;
    const count = 2 + this.pick(3);
    await ensurePartitions(input, count);
    const config = statefulConfig([stream], { 'job.name': `soak-${n}` });
    const jobFile = join(tempDir(), 'job.json');
    writeFileSync(jobFile, jobFileJson(config, {}));
    this.job = { n, stream, input, coord: `soak-coord-${n}`, config, jobFile, count, model: CoordinatorStore.open(tempDir()), state: replay([]), txs: [], committed: new Set() };
  }

  /** The committed records of the job's topic, read until two reads 500 ms apart agree. */
  async committedRecords(): Promise<Raw[]> {
    // A read right after a commit can end before it: the last stable offset moves once the broker
    // has written the commit marker, a moment after the commit returned, and the reader stops
    // there (on a topic that held nothing before, it does not even fetch).
    const kafka = new Kafka({ clientId: 'assignor-test-soak-read', brokers: [broker.brokers], logLevel: logLevel.NOTHING });
    let raw = await readRaw(this.job.coord, { kafka });
    for (;;) {
      await new Promise((res) => setTimeout(res, 500));
      const again = await readRaw(this.job.coord, { kafka });
      if (again.length === raw.length) return raw;
      this.stats.lateReads++;
      raw = again;
    }
  }

  /** Replays the transactions committed since the last check against the lockstep model. */
  async checkCommitted(what: string): Promise<void> {
    const { job } = this;
    const txs = commits(await this.committedRecords());
    expect(txs.length, `${this.where(what)}: committed transactions went missing`).toBeGreaterThanOrEqual(job.txs.length);
    for (let i = 0; i < job.txs.length; i++) expect([txs[i]![0]!.offset, txs[i]!.length], `${this.where(what)}: transaction ${i} changed`).toEqual(job.txs[i]);
    for (let i = job.txs.length; i < txs.length; i++) {
      const tx = txs[i]!;
      for (const r of tx) job.state.applyRecord(r.key, r.value, `${job.coord}@${r.offset}`);
      const n = partitionsOf(job.state, job.stream);
      const cycle = await persistCycle(job.model, { config: job.config, partitionCounts: new Map([[job.stream, n]]) }, PLAN);
      expect(contents(job.state), `${this.where(what)}: the transaction at offset ${tx[0]!.offset} (${n} partitions) is not the model the cycle computes from the state before it`).toEqual(contents(job.model));
      job.committed.add(modelJson(cycle.plan));
      job.txs.push([tx[0]!.offset, tx.length]);
      this.stats.transactions++;
    }
  }

  /** Each live watch printed the model for the topic's count now (starting one when none is left), and it is committed. */
  async settle(what: string): Promise<void> {
    const printedCount = (w: Watch): number | undefined => {
      const last = w.run.out[w.run.out.length - 1];
      return last === undefined ? undefined : (JSON.parse(last) as { streams: Array<{ partitions: number }> }).streams[0]!.partitions;
    };
    // A kill can leave only a fenced watch, which exits at its next write: then a new one starts.
    await until(
      () => {
        if (this.alive().length === 0) this.startWatch();
        return this.alive().every((w) => printedCount(w) === this.job.count);
      },
      SETTLE_MS,
      `${this.where(what)}: every live watch printing the model for ${this.job.count} partitions`,
    ).catch((e: Error) => {
      throw new Error(`${e.message}\n${this.alive().map((w) => `watch ${w.id}: ${w.run.err().slice(-800)}`).join('\n')}`);
    });
    await this.checkCommitted(what);
    expect(partitionsOf(this.job.state, this.job.stream), `${this.where(what)}: the last committed model`).toBe(this.job.count);
  }

  /** Every model printed is committed; of `before`, at most one is alive; every exit is a fencing (exit 2, one line) or ours. */
  async checkWatches(what: string, before: Watch[]): Promise<void> {
    for (const w of this.watches) {
      for (const line of w.run.out) expect(w.job.committed.has(line), `${this.where(what)}: watch ${w.id} printed a model that was never committed: ${line.slice(0, 200)}`).toBe(true);
    }
    // Of the watches alive before a change, at most one is a writer after it; the fenced ones exit.
    const survivors = (): Watch[] => before.filter((w) => this.alive().includes(w));
    await until(() => survivors().length <= 1, 60_000, 'the fenced watch to exit').catch(() => undefined);
    expect(survivors().length, `${this.where(what)}: watches ${survivors().map((w) => w.id).join(', ')} all still alive after a change`).toBeLessThanOrEqual(1);
    for (const w of this.watches) {
      const code = w.run.child.exitCode ?? w.run.child.signalCode;
      if (code === null || w.checked) continue;
      w.checked = true;
      if (w.killed) {
        expect(code, `${this.where(what)}: watch ${w.id} after kill -9`).toBe('SIGKILL');
        continue;
      }
      if (w.stopped && code === 0) continue;
      const lines = w.run.err().trim().split('\n').filter((l) => l.startsWith('assignor:'));
      expect(code, `${this.where(what)}: watch ${w.id} exited: ${w.run.err().slice(-600)}`).toBe(2);
      expect(lines, `${this.where(what)}: watch ${w.id}'s last words`).toHaveLength(1);
      expect(lines[0]).toMatch(FENCED_LINE);
      this.stats.fencings++;
    }
  }

  /** SIGTERMs every live watch (they exit 0) and checks every exit. */
  async stopAll(what: string): Promise<void> {
    for (const w of this.alive()) {
      w.stopped = true;
      w.run.child.kill('SIGTERM');
    }
    await Promise.all(this.watches.map((w) => w.run.exited));
    await this.checkWatches(what, []);
  }

  /** Grows the input topic: doubled, or by 1 to 3 (never to a multiple); a full job is replaced by a fresh one. */
  async grow(multiple: boolean): Promise<void> {
    const { job } = this;
    const steps = [1, 2, 3].filter((d) => (job.count + d) % job.count !== 0);
    const next = multiple && job.count * 2 <= CAP ? job.count * 2 : job.count + steps[this.pick(steps.length)]!;
    if (next > CAP) {
      await this.stopAll('the job is full');
      job.model.close();
      await this.newJob();
      this.startWatch();
      await this.settle('a new job');
      return;
    }
    await ensurePartitions(job.input, next);
    if (next % job.count === 0) this.stats.multiples++;
    else this.stats.nonMultiples++;
    this.stats.grows++;
    job.count = next;
  }

  /** A second watch on the job: it fences the first, which learns it at its next write. */
  async race(): Promise<void> {
    if (this.alive().length < 2) {
      this.stats.races++;
      const w = this.startWatch();
      await until(() => w.run.out.length >= 1 || w.run.child.exitCode !== null, SETTLE_MS, `${this.where('race')}: the second watch's first model`);
    }
    await this.checkCommitted('race');
    await this.checkWatches('race', []);
  }

  /** A change, then kill -9 of a random live watch up to 1.5 s later (before, during or after its write). */
  async kill(): Promise<void> {
    await this.grow(this.random() < 0.5);
    await new Promise((res) => setTimeout(res, this.random() * 1500));
    const live = this.alive();
    if (live.length === 0) return;
    const victim = live[this.pick(live.length)]!;
    victim.killed = true;
    victim.run.child.kill('SIGKILL');
    await victim.run.exited;
    this.stats.kills++;
  }

  /** The broker SIGKILLed, down for up to 5 s, restarted with its data; then a change. */
  async brokerCrash(): Promise<void> {
    await stopBroker(dir, { graceMs: 0 });
    await new Promise((res) => setTimeout(res, this.random() * 5000));
    broker = await startBroker({ dir, timeoutMs: 400_000 });
    this.stats.brokerRestarts++;
    await this.grow(this.random() < 0.5);
  }

  /** One event of `kind`, then the checks. */
  async event(kind: Kind): Promise<void> {
    if (kind === 'race') return this.race();
    const before = this.alive();
    if (kind === 'broker') await this.brokerCrash();
    else if (kind === 'kill') await this.kill();
    else await this.grow(kind === 'multiple');
    await this.settle(kind);
    await this.checkWatches(kind, before.filter((w) => !w.killed));
  }

  nextKind(e: number): Kind {
    const r = this.random();
    if (e < FIRST.length) return FIRST[e]!;
    return r < 0.3 ? 'multiple' : r < 0.55 ? 'non-multiple' : r < 0.75 ? 'kill' : r < 0.92 ? 'race' : 'broker';
  }

  summary(): string {
    const t = this.stats;
    return `soak: seed ${SEED}: ${t.events} events (${t.grows} growths: ${t.multiples} multiples, ${t.nonMultiples} non-multiples), ${t.kills} kill -9, ${t.brokerRestarts} broker SIGKILL+restart, ${t.races} racing starts, ${t.fencings} fencings, ${t.jobs} jobs, ${t.transactions} committed transactions checked (${t.lateReads} reads that ended before a just-committed one), ${Math.round((Date.now() - this.started) / 1000)} s`;
  }
}

describe('fault soak: two watches, growth, kill -9, broker SIGKILL and restart', () => {
  it(`${EVENTS} events: after each, every committed model is whole and the documented one, none lost, none printed uncommitted, one writer`, async () => {
    console.log(`soak: seed ${SEED} (replay with ASSIGNOR_SOAK_SEED=${SEED}), ${EVENTS} events`);
    const soak = new Soak();
    await soak.newJob();
    soak.startWatch();
    await soak.settle('start');
    for (let e = 0; e < EVENTS; e++) {
      soak.stats.events = e + 1;
      if (e % 25 === 0) console.log(`soak: event ${e + 1}, ${Math.round((Date.now() - soak.started) / 1000)} s, ${JSON.stringify(soak.stats)}`);
      await soak.event(soak.nextKind(e));
    }
    await soak.stopAll('the end');
    soak.job.model.close();
    console.log(soak.summary());
    expect(soak.stats.transactions).toBeGreaterThan(EVENTS / 2);
    expect(soak.stats.brokerRestarts).toBeGreaterThanOrEqual(1);
    expect(soak.stats.kills).toBeGreaterThanOrEqual(1);
  }, LONG ? 7_200_000 : 900_000);
});
