// A KIP-848 consumer group on a real three-rack cluster, assigned by the broker (issue 30, part 4).
//
// One cluster (test/kafka/cluster.ts: brokers in racks a, b, c) runs the same scenario twice:
// with the broker's built-in `uniform` assignor and with the plugin `assignor-sticky`
// (dev.assignor.broker.StickyAssignor from build/assignor-broker.jar, or ASSIGNOR_BROKER_JAR).
// Members are Java consumers (kafka-clients 4.4.0, one JVM each: test/kafka/java/GroupMember.java,
// so one can be SIGKILLed) and @platformatic/kafka consumers in this process, all with
// group.protocol=consumer, spread over the three racks, all subscribed to two topics whose
// partitions have their replicas in one rack (8 partitions, RF 1) or two (12 partitions, RF 2).
//
// Events: two members start, three join one by one, one leaves gracefully, a Java member is
// killed, the 8-partition topic grows to 16. After each, the test waits until the group is stable
// (ConsumerGroupDescribe: every member at the target assignment, test/kafka/java/GroupAdmin.java)
// and checks one owner per partition (both runs) and, for assignor-sticky only (uniform promises
// none of it): balance within one per topic and in total, moves equal to the joiner's or the
// leaver's share, and after the growth partition p with the owner of p mod 8. Keyed messages are
// produced throughout; at the end each was consumed and the committed offsets reach the end.
//
// A third test runs test/kafka/java/SpyAssignor.java (answers as uniform, logs what the broker
// hands an assignor) through a growth, to record what the broker's GroupSpec holds at that moment.
//
// The cluster and every JVM are required: with no java or no Maven jars every test fails. Without
// the plugin jar the sticky run fails under CI=true and is skipped locally (the others still run).
// Needs Node >= 22.22 (@platformatic/kafka 2.12.1). ASSIGNOR_KAFKA_LOG=1 prints each event's row
// as it happens; ASSIGNOR_KEEP_WORK=1 keeps the work dir (broker logs, clients.log, spy.jsonl).
// @platformatic/kafka needs Node >= 22.22: fail with that message on an older Node.
import '../platformatic/node-guard.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, mkdtempSync, readFileSync, rmSync, type WriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { Kafka, logLevel, Partitioners, type Producer } from 'kafkajs';
import { Consumer, MessagesStreamModes, stringDeserializers, type MessagesStream } from '@platformatic/kafka';
import { FAST_CONSUMER_GROUPS, startCluster, stopCluster, type Cluster } from './cluster.js';
import { compileJava } from './jvm.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const JAVA_DIR = fileURLToPath(new URL('./java/', import.meta.url));
const CI = process.env.CI === 'true';
const JAR = process.env.ASSIGNOR_BROKER_JAR ?? join(ROOT, 'build', 'assignor-broker.jar');
const HAVE_JAR = existsSync(JAR);
const STICKY_CLASS = 'dev.assignor.broker.StickyAssignor';
const STICKY = 'assignor-sticky';
const SPY = 'assignor-spy';
const VERBOSE = process.env.ASSIGNOR_KAFKA_LOG !== undefined;

// Node ids 1, 2, 3 sit in racks a, b, c.
const RACK_OF_NODE: Record<number, string> = { 1: 'a', 2: 'b', 3: 'c' };
/** The 8-partition topic: one replica, on node (p mod 3) + 1 (racks a, b, c, a, ...). */
const oneRack = (p: number): number[] => [(p % 3) + 1];
/** The 12-partition topic: two replicas in two racks, (a,b), (b,c), (c,a), ... */
const twoRacks = (p: number): number[] => [(p % 3) + 1, ((p + 1) % 3) + 1];

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------------------------------------
// The Java admin: one JVM for the whole file, a command per line.

class JavaAdmin {
  private readonly child: ChildProcess;
  private readonly waiting: Array<(line: string) => void> = [];
  private chain: Promise<unknown> = Promise.resolve();
  readonly ready: Promise<string>;

  constructor(cp: string, brokers: string, log: WriteStream) {
    this.child = spawn('java', ['-Xmx256m', '-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC', '-cp', cp, 'GroupAdmin', brokers], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stderr!.pipe(log, { end: false });
    createInterface({ input: this.child.stdout! }).on('line', (line) => this.waiting.shift()?.(line));
    this.ready = new Promise((resolve, reject) => {
      this.waiting.push(resolve);
      this.child.once('exit', (code) => reject(new Error(`GroupAdmin exited (${code}); see the log`)));
    });
  }

  /** Runs one command; resolves with its JSON answer, rejects with its error. */
  cmd<T = unknown>(line: string): Promise<T> {
    const run = (): Promise<T> =>
      new Promise<T>((resolve, reject) => {
        this.waiting.push((answer) => {
          if (answer.startsWith('ok ')) resolve(JSON.parse(answer.slice(3)) as T);
          else reject(new Error(`GroupAdmin ${line}: ${answer}`));
        });
        this.child.stdin!.write(line + '\n');
      });
    const p = this.chain.then(run, run);
    this.chain = p.catch(() => undefined);
    return p;
  }

  async close(): Promise<void> {
    this.child.stdin!.end();
    await new Promise<void>((r) => (this.child.exitCode !== null ? r() : this.child.once('exit', () => r())));
  }
}

interface Described {
  state: string;
  assignor: string;
  groupEpoch: number;
  targetAssignmentEpoch: number;
  members: Array<{ memberId: string; clientId: string; rack: string | null; memberEpoch: number; assigned: string[]; target: string[] | null }>;
}

interface TopicInfo {
  id: string;
  partitions: Array<{ p: number; replicas: number[]; racks: string[] }>;
}

// ---------------------------------------------------------------------------------------------
// Members.

interface Consumed {
  member: string;
  topic: string;
  partition: number;
  offset: number;
  key: string;
  value: string;
}

interface Member {
  name: string;
  rack: string;
  kind: 'java' | 'node';
  start(): Promise<void>;
  leave(): Promise<void>;
  kill(): Promise<void>;
}

class JavaMember implements Member {
  readonly kind = 'java';
  private child: ChildProcess | undefined;
  constructor(
    readonly name: string,
    readonly rack: string,
    private readonly args: { cp: string; brokers: string; group: string; topics: string[]; assignor: string },
    private readonly sink: (c: Consumed) => void,
    private readonly log: WriteStream,
  ) {}

  start(): Promise<void> {
    const { cp, brokers, group, topics, assignor } = this.args;
    const child = spawn('java', ['-Xmx192m', '-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC', '-cp', cp, 'GroupMember', brokers, group, topics.join(','), assignor, this.rack, this.name], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.child = child;
    child.stderr!.pipe(this.log, { end: false });
    return new Promise((resolve, reject) => {
      child.once('exit', (code) => reject(new Error(`java member ${this.name} exited (${code}) before it was ready`)));
      createInterface({ input: child.stdout! }).on('line', (line) => {
        if (line.startsWith('rec ')) {
          const [, topic, partition, offset, key, value] = line.split(' ');
          this.sink({ member: this.name, topic: topic!, partition: Number(partition), offset: Number(offset), key: key!, value: value! });
        } else {
          if (line === 'ready') resolve();
          if (VERBOSE) this.log.write(`[${this.name}] ${line}\n`);
        }
      });
    });
  }

  private exited(): Promise<void> {
    const child = this.child!;
    return new Promise((r) => (child.exitCode !== null || child.signalCode !== null ? r() : child.once('exit', () => r())));
  }

  async leave(): Promise<void> {
    this.child!.stdin!.write('close\n');
    await this.exited();
  }

  async kill(): Promise<void> {
    this.child!.kill('SIGKILL');
    await this.exited();
  }
}

type Meta = Awaited<ReturnType<Consumer['metadata']>>;
/**
 * @platformatic/kafka 2.12.1 with the consumer protocol: a heartbeat can assign partitions of a
 * topic that just grew while the consumer's cached metadata still has the old count; the stream's
 * next fetch then throws (TypeError in getFetchNode, uncaught) and the stream stops for good. Until
 * that is fixed upstream, a metadata read that lacks an assigned partition is refreshed (forced,
 * every 100 ms for up to 5 s) before it reaches the stream.
 */
function guardGrowth(consumer: Consumer<string, string, string, string>): void {
  const plain = consumer.metadata.bind(consumer) as (options: Parameters<Consumer['metadata']>[0], callback?: (error: Error | null, md: Meta) => void) => Promise<Meta> | undefined;
  const lacks = (md: Meta): boolean =>
    (consumer.assignments ?? []).some((a) => {
      const t = md.topics.get(a.topic);
      return t !== undefined && a.partitions.some((p) => t.partitions[p] === undefined);
    });
  (consumer as unknown as { metadata: unknown }).metadata = (options: Parameters<Consumer['metadata']>[0], callback?: (error: Error | null, md: Meta) => void) => {
    if (typeof callback !== 'function') return plain(options);
    let tries = 0;
    const attempt = (force: boolean): void => {
      plain({ ...options, forceUpdate: force }, (error, md) => {
        if (error || !lacks(md) || tries++ >= 50) {
          callback(error, md);
          return;
        }
        setTimeout(() => attempt(true), tries === 1 ? 0 : 100);
      });
    };
    attempt(options.forceUpdate ?? false);
    return undefined;
  };
}

class NodeMember implements Member {
  readonly kind = 'node';
  private consumer: Consumer<string, string, string, string> | undefined;
  private stream: MessagesStream<string, string, string, string> | undefined;
  private timer: NodeJS.Timeout | undefined;
  // Next offset to commit per topic:partition, for what this member has read.
  private pending = new Map<string, { topic: string; partition: number; offset: bigint; leaderEpoch: number }>();
  private committing = false;
  constructor(
    readonly name: string,
    readonly rack: string,
    private readonly args: { brokers: string; group: string; topics: string[]; assignor: string },
    private readonly sink: (c: Consumed) => void,
  ) {}

  async start(): Promise<void> {
    const { brokers, group, topics, assignor } = this.args;
    this.consumer = new Consumer({
      clientId: this.name,
      clientRack: this.rack,
      bootstrapBrokers: brokers.split(','),
      groupId: group,
      groupProtocol: 'consumer',
      groupRemoteAssignor: assignor,
      deserializers: stringDeserializers,
      metadataMaxAge: 2000,
      maxWaitTime: 250,
      retries: 20,
      retryDelay: 250,
    });
    guardGrowth(this.consumer);
    // Commits only what was read (the stream's autocommit commits what was fetched), and only for
    // partitions the member still holds, so a late commit cannot move a new owner's offset back.
    this.stream = await this.consumer.consume({ topics, mode: MessagesStreamModes.COMMITTED, fallbackMode: 'earliest', autocommit: false });
    this.stream.on('data', (m) => {
      this.sink({ member: this.name, topic: m.topic, partition: m.partition, offset: Number(m.offset), key: m.key, value: m.value });
      this.pending.set(`${m.topic}:${m.partition}`, { topic: m.topic, partition: m.partition, offset: m.offset + 1n, leaderEpoch: -1 });
    });
    this.stream.on('error', () => undefined);
    this.timer = setInterval(() => void this.commit(), 500);
  }

  private async commit(): Promise<void> {
    if (this.committing || this.pending.size === 0 || this.consumer === undefined) return;
    this.committing = true;
    const held = new Set((this.consumer.assignments ?? []).flatMap((a) => a.partitions.map((p) => `${a.topic}:${p}`)));
    const offsets = [...this.pending.entries()].filter(([k]) => held.has(k));
    this.pending = new Map();
    try {
      if (offsets.length > 0) await this.consumer.commit({ offsets: offsets.map(([, o]) => o) });
    } catch {
      for (const [k, o] of offsets) if (!this.pending.has(k)) this.pending.set(k, o);
    } finally {
      this.committing = false;
    }
  }

  async leave(): Promise<void> {
    clearInterval(this.timer);
    await this.commit();
    await this.stream?.close();
    await this.consumer?.close(); // a ConsumerGroupHeartbeat with member epoch -1: leaves the group
  }

  kill(): Promise<void> {
    throw new Error('only Java members are killed (their own JVM)');
  }
}

// ---------------------------------------------------------------------------------------------
// Assignment facts.

type Owners = Map<string, string>; // "topic:p" -> member name

interface EventRow {
  event: string;
  members: number;
  moved: number;
  /** What a minimal-move assignor moves: the joiner's share, the leaver's, or 0 on growth. */
  expectedMoved: number;
  spread: number; // max - min of member totals
  topicSpread: number; // worst max - min per topic
  rackMatches: number;
  partitions: number;
  foldKept: number | null; // after growth: new partitions p with the owner of p mod 8
  newPartitions: number | null;
  /** From the event to the stable group, in ms. */
  ms: number;
}

function ownersOf(d: Described): Owners {
  const owners: Owners = new Map();
  for (const m of d.members) for (const tp of m.assigned) {
    if (owners.has(tp)) throw new Error(`${tp} has two owners: ${owners.get(tp)} and ${m.clientId}`);
    owners.set(tp, m.clientId);
  }
  return owners;
}

function countBy(owners: Owners, members: string[], topic?: string): number[] {
  const counts = new Map(members.map((m) => [m, 0]));
  for (const [tp, m] of owners) if (topic === undefined || tp.slice(0, tp.lastIndexOf(':')) === topic) counts.set(m, (counts.get(m) ?? 0) + 1);
  return [...counts.values()];
}

const spreadOf = (xs: number[]): number => (xs.length === 0 ? 0 : Math.max(...xs) - Math.min(...xs));

// ---------------------------------------------------------------------------------------------

let work: string;
let cluster: Cluster | undefined;
let admin: JavaAdmin | undefined;
let memberCp: string;
let log: WriteStream;
const spyLog = (): string => join(work, 'spy.jsonl');
const results = new Map<string, EventRow[]>();

// A failed setup (no java, no Maven jars, a cluster that does not start)
// is rethrown by every test, so each one fails with the reason instead of being reported skipped.
let setupError: unknown;
const ready = (): void => {
  if (setupError !== undefined) throw setupError;
};

beforeAll(async () => {
  try {
    await setup();
  } catch (e) {
    setupError = e;
  }
}, 240_000);

async function setup(): Promise<void> {
  work = mkdtempSync(join(tmpdir(), 'assignor-broker-plugin-'));
  log = createWriteStream(join(work, 'clients.log'));
  // Compiled against the same jars the brokers run (test/kafka/pom.xml): kafka-clients and the group coordinator.
  memberCp = compileJava('kafka', [join(JAVA_DIR, 'GroupMember.java'), join(JAVA_DIR, 'GroupAdmin.java')], join(work, 'clients'));
  compileJava('kafka', [join(JAVA_DIR, 'SpyAssignor.java')], join(work, 'spy'));
  const assignors = ['uniform', 'range', 'SpyAssignor', ...(HAVE_JAR ? [STICKY_CLASS] : [])];
  cluster = await startCluster({
    dir: join(work, 'cluster'),
    racks: ['a', 'b', 'c'],
    jars: [join(work, 'spy'), ...(HAVE_JAR ? [JAR] : [])],
    properties: { ...FAST_CONSUMER_GROUPS, 'group.consumer.assignors': assignors.join(','), 'assignor.spy.log': spyLog() },
    timeoutMs: 150_000,
  });
  admin = new JavaAdmin(memberCp, cluster.brokers, log);
  await admin.ready;
}

afterAll(async () => {
  await admin?.close().catch(() => undefined);
  if (cluster !== undefined) await stopCluster(cluster.dir, { graceMs: 10_000 });
  log?.end();
  if (results.size > 0) process.stdout.write(summary());
  if (process.env.ASSIGNOR_KEEP_WORK === undefined && work !== undefined) rmSync(work, { recursive: true, force: true });
  else process.stdout.write(`broker-plugin: work dir kept in ${work}\n`);
}, 120_000);

function summary(): string {
  const runs = [...results.keys()];
  const rows = results.get(runs[0]!)!;
  const cell = (r: EventRow | undefined): string =>
    r === undefined ? '-' : `${r.moved}/${r.expectedMoved}`.padStart(6) + `  ${r.spread}(${r.topicSpread})`.padEnd(8) + `  ${r.rackMatches}/${r.partitions}`.padStart(7) + `  ${(r.ms / 1000).toFixed(1)}s`.padStart(7) + (r.foldKept === null ? '' : `  fold ${r.foldKept}/${r.newPartitions}`);
  const lines = [`\nbroker-plugin: moved/expected, max-min total (worst per topic), rack matches/partitions, event to stable; fold = new partitions with the owner of p mod 8`, `${'event'.padEnd(22)}${runs.map((r) => r.padEnd(36)).join('')}`];
  rows.forEach((row, i) => lines.push(`${row.event.padEnd(22)}${runs.map((r) => cell(results.get(r)![i]).padEnd(36)).join('')}`));
  return lines.join('\n') + '\n';
}

async function waitStable(group: string, expected: string[], partitions: number, timeoutMs = 60_000): Promise<Described> {
  const want = [...expected].sort().join(',');
  const deadline = Date.now() + timeoutMs;
  let last: Described | undefined;
  while (Date.now() < deadline) {
    try {
      last = await admin!.cmd<Described>(`describe ${group}`);
      const ids = last.members.map((m) => m.clientId).sort().join(',');
      const settled =
        last.state === 'Stable' &&
        last.groupEpoch === last.targetAssignmentEpoch &&
        ids === want &&
        last.members.every((m) => m.memberEpoch === last!.groupEpoch && m.target !== null && [...m.assigned].sort().join() === [...m.target].sort().join()) &&
        last.members.reduce((n, m) => n + m.assigned.length, 0) === partitions;
      if (settled) return last;
    } catch {
      // the group may not exist yet
    }
    await sleep(300);
  }
  throw new Error(`group ${group} not stable with [${want}] and ${partitions} partitions within ${timeoutMs} ms; last: ${JSON.stringify(last)}`);
}

async function scenario(assignor: string): Promise<void> {
  const brokers = cluster!.brokers;
  const tag = `${assignor}-${Date.now().toString(36)}`;
  const group = `bp-${tag}`;
  const t8 = `bp8-${tag}`; // grows 8 -> 16, replicas in one rack
  const t12 = `bp12-${tag}`; // replicas in two racks
  const topics = [t8, t12];
  const counts = new Map([
    [t8, 8],
    [t12, 12],
  ]);
  const spec = (n: number, from: number, f: (p: number) => number[]): string => Array.from({ length: n - from }, (_, i) => f(from + i).join(',')).join(';');
  await admin!.cmd(`create ${t8} ${spec(8, 0, oneRack)}`);
  await admin!.cmd(`create ${t12} ${spec(12, 0, twoRacks)}`);

  const racksOf = async (): Promise<Map<string, Set<string>>> => {
    const info = await admin!.cmd<Record<string, TopicInfo>>(`topics ${topics.join(',')}`);
    const out = new Map<string, Set<string>>();
    for (const t of topics) for (const p of info[t]!.partitions) out.set(`${t}:${p.p}`, new Set(p.racks));
    return out;
  };

  // Messages: produced in the background, every value unique; keys repeat.
  const consumed = new Map<string, number>(); // value -> times read
  const sink = (c: Consumed): void => {
    consumed.set(c.value, (consumed.get(c.value) ?? 0) + 1);
  };
  const produced = new Set<string>();
  const kafka = new Kafka({ clientId: `bp-producer-${tag}`, brokers: brokers.split(','), logLevel: logLevel.NOTHING });
  const producer: Producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner, metadataMaxAge: 2000, allowAutoTopicCreation: false });
  await producer.connect();
  let seq = 0;
  let producing = true;
  let produceError: unknown;
  const producing$ = (async () => {
    while (producing) {
      for (const topic of topics) {
        const messages = Array.from({ length: 10 }, () => {
          const n = seq++;
          return { key: `k${n % 97}`, value: `${tag}-${n}` };
        });
        try {
          await producer.send({ topic, messages, acks: -1 });
          for (const m of messages) produced.add(m.value);
        } catch (e) {
          produceError = e;
        }
      }
      await sleep(250);
    }
  })();

  const javaArgs = { cp: memberCp, brokers, group, topics, assignor };
  const nodeArgs = { brokers, group, topics, assignor };
  const members: Member[] = [
    new JavaMember('j1', 'a', javaArgs, sink, log),
    new NodeMember('n1', 'b', nodeArgs, sink),
    new JavaMember('j2', 'c', javaArgs, sink, log),
    new NodeMember('n2', 'a', nodeArgs, sink),
    new JavaMember('j3', 'b', javaArgs, sink, log),
  ];
  const byName = new Map(members.map((m) => [m.name, m]));
  const alive = new Set<string>();
  const rows: EventRow[] = [];
  results.set(assignor, rows);
  let previous: Owners = new Map();
  const strict = assignor !== 'uniform';
  const failures: string[] = [];
  const check = (cond: boolean, what: string): void => {
    if (!cond) failures.push(what);
  };

  let since = Date.now();
  const observe = async (event: string, expectedMoved: (prev: Owners, now: Owners) => number, growth?: { topic: string; from: number }): Promise<void> => {
    const total = [...counts.values()].reduce((a, b) => a + b, 0);
    const d = await waitStable(group, [...alive], total);
    const ms = Date.now() - since;
    expect(d.assignor, `${event}: the group's assignor`).toBe(assignor);
    const owners = ownersOf(d); // throws on two owners
    // One owner per partition: every partition of both topics owned, by a live member.
    for (const t of topics) for (let p = 0; p < counts.get(t)!; p++) expect(alive.has(owners.get(`${t}:${p}`) ?? ''), `${event}: ${t}:${p} owned by ${owners.get(`${t}:${p}`)}`).toBe(true);
    expect(owners.size).toBe(total);
    const names = [...alive];
    let moved = 0;
    for (const [tp, m] of previous) if (owners.has(tp) && owners.get(tp) !== m) moved++;
    const spread = spreadOf(countBy(owners, names));
    const topicSpread = Math.max(...topics.map((t) => spreadOf(countBy(owners, names, t))));
    const racks = await racksOf();
    let rackMatches = 0;
    for (const [tp, m] of owners) if (racks.get(tp)?.has(byName.get(m)!.rack)) rackMatches++;
    let foldKept: number | null = null;
    let newPartitions: number | null = null;
    if (growth !== undefined) {
      foldKept = 0;
      newPartitions = counts.get(growth.topic)! - growth.from;
      for (let p = growth.from; p < counts.get(growth.topic)!; p++) if (owners.get(`${growth.topic}:${p}`) === previous.get(`${growth.topic}:${p % growth.from}`)) foldKept++;
    }
    const row: EventRow = { event, members: names.length, moved, expectedMoved: expectedMoved(previous, owners), spread, topicSpread, rackMatches, partitions: total, foldKept, newPartitions, ms };
    rows.push(row);
    if (VERBOSE) process.stdout.write(`[${assignor}] ${JSON.stringify(row)}\n`);
    if (strict) {
      check(moved === row.expectedMoved, `${event}: moved ${moved}, expected ${row.expectedMoved}`);
      if (growth === undefined) {
        check(spread <= 1, `${event}: member totals differ by ${spread}`);
        check(topicSpread <= 1, `${event}: per-topic counts differ by ${topicSpread}`);
      } else {
        check(foldKept === newPartitions, `${event}: ${foldKept} of ${newPartitions} new partitions with the owner of p mod ${growth.from}`);
      }
    }
    previous = owners;
  };
  const shareBefore = (name: string) => (prev: Owners): number => [...prev.values()].filter((m) => m === name).length;
  const shareAfter = (name: string) => (_prev: Owners, now: Owners): number => [...now.values()].filter((m) => m === name).length;

  try {
    // 1. Two members start together.
    since = Date.now();
    await Promise.all(['j1', 'n1'].map((n) => byName.get(n)!.start()));
    alive.add('j1').add('n1');
    await observe('start j1(a) n1(b)', () => 0);
    // 2-4. Three join one by one: a join moves exactly the joiner's share.
    for (const n of ['j2', 'n2', 'j3']) {
      since = Date.now();
      await byName.get(n)!.start();
      alive.add(n);
      await observe(`join ${n}(${byName.get(n)!.rack})`, shareAfter(n));
    }
    // 5. A graceful leave (a @platformatic/kafka member closes: heartbeat with epoch -1).
    since = Date.now();
    await byName.get('n2')!.leave();
    alive.delete('n2');
    await observe('leave n2(a)', shareBefore('n2'));
    // 6. A Java member is killed: noticed after the session timeout (6 s).
    since = Date.now();
    await byName.get('j3')!.kill();
    alive.delete('j3');
    await observe('kill j3(b)', shareBefore('j3'));
    // 7. The 8-partition topic grows to 16, new partitions placed as the old (p mod 3 + 1).
    since = Date.now();
    await admin!.cmd(`grow ${t8} 16 ${spec(16, 8, oneRack)}`);
    counts.set(t8, 16);
    await observe('grow t8 8->16', () => 0, { topic: t8, from: 8 });

    // Messages: stop producing, wait for the committed offsets to reach the end offsets.
    await sleep(1000);
    producing = false;
    await producing$;
    expect(produceError, String(produceError)).toBeUndefined();
    const deadline = Date.now() + 60_000;
    let lag = Infinity;
    let offsets: { end: Record<string, number>; committed: Record<string, number> } | undefined;
    while (Date.now() < deadline) {
      const o = await admin!.cmd<{ end: Record<string, number>; committed: Record<string, number> }>(`offsets ${group} ${topics.join(',')}`);
      offsets = o;
      lag = Object.entries(o.end).reduce((n, [tp, end]) => n + Math.max(0, end - (o.committed[tp] ?? 0)), 0);
      if (lag === 0) break;
      await sleep(500);
    }
    expect(lag, `committed offsets behind the end offsets: ${JSON.stringify(offsets)}`).toBe(0);
    const missing = [...produced].filter((v) => !consumed.has(v));
    expect(missing.length, `unread messages, e.g. ${missing.slice(0, 5).join(' ')}`).toBe(0);
    const again = [...consumed.values()].filter((n) => n > 1).length;
    process.stdout.write(`broker-plugin [${assignor}]: ${produced.size} messages produced, all read (${again} read twice)\n`);
  } finally {
    producing = false;
    await producing$.catch(() => undefined);
    await producer.disconnect().catch(() => undefined);
    for (const n of alive) await byName.get(n)!.leave().catch(() => undefined);
  }
  if (assignor === STICKY) {
    // The plugin falls back to the broker's uniform answer when its planner fails, and says so in
    // the broker's log: then the figures above would be uniform's, not the plugin's.
    const fallbacks = cluster!.nodes.flatMap((n) => readFileSync(join(n.dir, 'broker.log'), 'utf8').split('\n').filter((l) => l.includes('assignor-sticky: the planner failed')));
    expect(fallbacks, 'the plugin fell back to uniform').toEqual([]);
  }
  expect(failures, failures.join('\n')).toEqual([]);
}

describe('a KIP-848 group on a three-rack cluster, assigned by the broker', () => {
  it('uniform (built in): one owner per partition through joins, a leave, a kill, a growth', async () => {
    ready();
    await scenario('uniform');
  }, 240_000);

  it.skipIf(!HAVE_JAR && !CI)(`${STICKY} (the plugin): balanced, minimal moves, keys kept on growth`, async () => {
    ready();
    if (!HAVE_JAR) throw new Error(`the broker plugin jar is missing (${JAR}): build it with npm run build:jvm, or set ASSIGNOR_BROKER_JAR`);
    await scenario(STICKY);
  }, 240_000);

  it('what the broker hands an assignor after a topic grows: the current assignment of the old partitions', async () => {
    ready();
    const tag = Date.now().toString(36);
    const group = `bp-spy-${tag}`;
    const topic = `bp-spy8-${tag}`;
    const spec = (from: number, to: number): string => Array.from({ length: to - from }, (_, i) => oneRack(from + i).join(',')).join(';');
    await admin!.cmd(`create ${topic} ${spec(0, 8)}`);
    // A topic just created may not be in every broker's metadata yet.
    let id: string | undefined;
    for (const deadline = Date.now() + 15_000; id === undefined; await sleep(200)) {
      try {
        id = (await admin!.cmd<Record<string, TopicInfo>>(`topics ${topic}`))[topic]!.id;
      } catch (e) {
        if (Date.now() > deadline) throw e;
      }
    }
    const sink = (): void => undefined;
    const members = [new NodeMember('s1', 'a', { brokers: cluster!.brokers, group, topics: [topic], assignor: SPY }, sink), new NodeMember('s2', 'b', { brokers: cluster!.brokers, group, topics: [topic], assignor: SPY }, sink)];
    try {
      for (const m of members) await m.start();
      await waitStable(group, ['s1', 's2'], 8);
      await admin!.cmd(`grow ${topic} 16 ${spec(8, 16)}`);
      await waitStable(group, ['s1', 's2'], 16);
    } finally {
      for (const m of members) await m.leave().catch(() => undefined);
    }
    interface SpyCall {
      members: Array<{ id: string; rack: string | null; assigned: Record<string, number[]> }>;
      topics: Record<string, { partitions: number; racks: string[][] }>;
    }
    const calls = readFileSync(spyLog(), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as SpyCall)
      .filter((c) => c.topics[id] !== undefined);
    const first16 = calls.findIndex((c) => c.topics[id]!.partitions === 16);
    expect(first16, 'the spy saw the grown topic').toBeGreaterThan(0);
    const call = calls[first16]!;
    const current = call.members.flatMap((m) => m.assigned[id] ?? []).sort((a, b) => a - b);
    // The broker runs the assignor with the topic's new count, while every member's current
    // assignment still covers exactly the old partitions 0..7, once each.
    expect(current).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    const racks = call.topics[id]!.racks;
    const racksSeen = racks.some((r) => r.length > 0);
    process.stdout.write(
      `broker-plugin [spy]: ${calls.length} assignor calls for the topic; at the growth the assignor saw partitions=${call.topics[id]!.partitions}, current assignment ${JSON.stringify(call.members.map((m) => ({ rack: m.rack, partitions: m.assigned[id] ?? [] })))}, racksForPartition ${racksSeen ? JSON.stringify(racks) : 'empty for every partition'}\n`,
    );
  }, 120_000);
});
