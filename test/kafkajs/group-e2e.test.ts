// End to end on the real broker: KafkaJS consumers with StickyAssigner, each its own process,
// read three topics while the group changes: 3 members, 2 join, topic A grows 8 -> 16, one member
// is killed (SIGKILL: no LeaveGroup, the broker drops it after the session timeout), one leaves
// cleanly, one joins. 50,000 messages with known keys are produced in four batches between the
// changes. Checked: after every rebalance every partition has exactly one owner, balance holds and
// no more partitions moved than the least a balanced assignment needs (group-oracle.ts); after the
// growth every new partition joined its parent's owner and every key of A was read by the member
// that read it before; every message was read (at least once) and every offset is committed.
import { afterAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { JavaCompatiblePartitioner, type StickyAssignmentReport } from '../../src/kafkajs/index.js';
import { partitionForKey } from '../../src/hashing/index.js';
import { ROOT } from '../helpers.js';
import { judge, type Assignment, type Fold } from './group-oracle.js';
import { sharedKafka, uniqueTopic, useSharedBroker, withAdmin } from '../kafka/shared-broker.js';

const CHILD = fileURLToPath(new URL('./group-consumer.ts', import.meta.url));
const BATCH = 12_500;

interface Msg {
  name: string;
  topic: string;
  partition: number;
  offset: number;
  key: string;
  generation: number;
}

interface Join {
  name: string;
  generation: number;
  assignment: Record<string, number[]>;
}

class Consumer {
  readonly child: ChildProcess;
  exited = false;
  ready: Promise<void>;
  constructor(
    readonly name: string,
    brokers: string,
    groupId: string,
    topics: string[],
    readonly group: GroupLog,
  ) {
    this.child = spawn(process.execPath, ['--import', 'tsx', CHILD, brokers, groupId, topics.join(','), name], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    this.child.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
    this.child.on('exit', () => (this.exited = true));
    this.ready = new Promise((resolve, reject) => {
      this.child.on('exit', (code, signal) => reject(new Error(`${name} exited (${code ?? signal}) before it was ready: ${stderr}`)));
      createInterface({ input: this.child.stdout! }).on('line', (line) => {
        const e = JSON.parse(line) as { type: string };
        if (e.type === 'ready') resolve();
        group.record(e);
      });
    });
  }
  stop(): Promise<void> {
    return new Promise((resolve) => {
      if (this.exited) return resolve();
      this.child.on('exit', () => resolve());
      this.child.stdin!.write('stop\n');
    });
  }
  kill(): Promise<void> {
    return new Promise((resolve) => {
      if (this.exited) return resolve();
      this.child.on('exit', () => resolve());
      this.child.kill('SIGKILL');
    });
  }
}

/** Everything the consumers reported. */
class GroupLog {
  joins: Join[] = [];
  reports = new Map<number, StickyAssignmentReport>();
  messages: Msg[] = [];
  crashes: string[] = [];
  record(e: { type: string } & Record<string, unknown>): void {
    if (e.type === 'join') this.joins.push(e as unknown as Join);
    else if (e.type === 'report') {
      const r = e.report as StickyAssignmentReport;
      if (r.generation !== null) this.reports.set(r.generation, r);
    } else if (e.type === 'msg') this.messages.push(e as unknown as Msg);
    else if (e.type === 'crash') this.crashes.push(`${String(e.name)}: ${String(e.error)}`);
  }
  /** Generations whose every member reported its assignment, oldest first. */
  complete(): { generation: number; members: string[]; assignment: Assignment }[] {
    const out: { generation: number; members: string[]; assignment: Assignment }[] = [];
    for (const [g, report] of [...this.reports].sort(([a], [b]) => a - b)) {
      const joins = this.joins.filter((j) => j.generation === g);
      if (joins.length !== report.members) continue;
      const assignment: Assignment = new Map(joins.map((j) => [j.name, new Map(Object.entries(j.assignment))]));
      out.push({ generation: g, members: joins.map((j) => j.name).sort(), assignment });
    }
    return out;
  }
  /** What each of `members` held before generation g (its latest assignment), the newest generation winning a partition. */
  before(g: number, members: string[]): Assignment {
    const latest = new Map<string, Join>();
    for (const j of this.joins) if (j.generation < g && members.includes(j.name) && (latest.get(j.name)?.generation ?? -1) < j.generation) latest.set(j.name, j);
    const owner = new Map<string, { name: string; gen: number }>();
    for (const j of latest.values()) {
      for (const [t, ps] of Object.entries(j.assignment)) {
        for (const p of ps) {
          const k = `${t}\u0000${p}`;
          if ((owner.get(k)?.gen ?? -1) < j.generation) owner.set(k, { name: j.name, gen: j.generation });
        }
      }
    }
    const out: Assignment = new Map(members.map((m) => [m, new Map<string, number[]>()]));
    for (const [k, { name }] of owner) {
      const [t, p] = k.split('\u0000') as [string, string];
      const ts = out.get(name)!;
      ts.set(t, [...(ts.get(t) ?? []), Number(p)]);
    }
    return out;
  }
}

function snapshot(a: Assignment): string {
  const topicsOf = (ts: Map<string, number[]>) => [...ts].filter(([, ps]) => ps.length > 0).sort(([x], [y]) => (x < y ? -1 : 1)).map(([t, ps]) => [t, [...ps].sort((x, y) => x - y)]);
  return JSON.stringify([...a].sort(([x], [y]) => (x < y ? -1 : 1)).map(([m, ts]) => [m, topicsOf(ts)]));
}

async function until<T>(what: string, timeoutMs: number, probe: () => T | undefined | Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe('StickyAssigner end to end (real broker, consumer processes)', () => {
  const brokers = useSharedBroker();
  const consumers: Consumer[] = [];
  afterAll(async () => {
    await Promise.all(consumers.map((c) => c.kill()));
  });

  it(
    'three topics, growth 8 -> 16, joins, a leave and a kill: one owner, minimal moves, keys kept, nothing lost',
    async () => {
      const A = uniqueTopic('group-a');
      const B = uniqueTopic('group-b');
      const C = uniqueTopic('group-c');
      const topics = [A, B, C];
      const groupId = uniqueTopic('sticky-group');
      const counts = new Map([
        [A, 8],
        [B, 6],
        [C, 5],
      ]);
      await withAdmin((admin) => admin.createTopics({ waitForLeaders: true, topics: topics.map((topic) => ({ topic, numPartitions: counts.get(topic)!, replicationFactor: 1 })) }));
      // On a fresh broker the group's coordinator partition (of __consumer_offsets) is created and
      // loaded on first use; a consumer that joins meanwhile crashes with COORDINATOR_LOAD_IN_PROGRESS.
      // Wait until the coordinator answers an offset fetch for this group.
      await until('the group coordinator to be loaded', 90_000, async () => {
        try {
          await withAdmin((admin) => admin.fetchOffsets({ groupId, topics }));
          return true;
        } catch {
          return undefined;
        }
      });
      const log = new GroupLog();
      const start = (name: string): Consumer => {
        const c = new Consumer(name, brokers(), groupId, topics, log);
        consumers.push(c);
        return c;
      };
      const running = (): string[] => consumers.filter((c) => !c.exited && !stopped.has(c.name)).map((c) => c.name).sort();
      const stopped = new Set<string>();

      // Waits for a generation of exactly the running members that covers every partition.
      let checkedUpTo = 0;
      const growthGenerations: number[] = [];
      // A fold's relaxed balance lasts through rebalances that change nothing (KafkaJS rejoins
      // when a member sees new metadata late): those are judged with the fold of the growth.
      let relaxed = new Map<string, Fold>();
      const stable = async (what: string) => {
        const members = running();
        const g = await until(`a stable group of ${members.join(', ')} (${what})`, 120_000, () => {
          const last = log.complete().at(-1);
          if (last === undefined || last.members.join() !== members.join()) return undefined;
          if (Math.max(...log.reports.keys()) !== last.generation) return undefined;
          const owned = [...last.assignment.values()].flatMap((ts) => [...ts].flatMap(([t, ps]) => ps.map((p) => `${t}-${p}`)));
          const all = topics.flatMap((t) => Array.from({ length: counts.get(t)! }, (_, p) => `${t}-${p}`));
          return owned.length === all.length && new Set(owned).size === all.length ? last : undefined;
        });
        // Judge every complete generation since the last check against what its members held before.
        for (const gen of log.complete().filter((x) => x.generation > checkedUpTo)) {
          const prev = log.before(gen.generation, gen.members);
          // The generation that first assigns A's new partitions must fold A (5 members, 8 -> 16).
          const hasNew = (a: Assignment): boolean => [...a.values()].some((ts) => (ts.get(A) ?? []).some((p) => p >= 8));
          const r = log.reports.get(gen.generation)!;
          let folds = new Map<string, Fold>();
          if (hasNew(gen.assignment) && !hasNew(prev)) {
            folds.set(A, { from: 8, k: 2 });
            growthGenerations.push(gen.generation);
          } else if (r.unchanged) {
            folds = relaxed;
            expect(snapshot(gen.assignment), `generation ${gen.generation} (${what}): unchanged`).toBe(snapshot(prev));
          }
          relaxed = folds;
          const v = judge(prev, gen.members.map((name) => ({ name, topics })), counts, gen.assignment, folds);
          expect(v.violations, `generation ${gen.generation} (${what})`).toEqual([]);
          expect(v.moved, `generation ${gen.generation} (${what}): moved vs the minimum`).toBeLessThanOrEqual(v.minimum);
          expect(r.moved, `generation ${gen.generation}: the report`).toBe(v.moved);
          if (process.env.ASSIGNOR_GROUP_LOG) console.log(`generation ${gen.generation} (${what}): ${gen.members.join(',')}: moved ${v.moved} (minimum ${v.minimum}), kept ${r.kept}, placed ${r.placed}, unchanged ${r.unchanged}, conflicts ${r.conflicts}${folds.size > 0 ? ', folded A' : ''}`);
          checkedUpTo = gen.generation;
        }
        return g;
      };

      const kafka = await sharedKafka('group-e2e-producer');
      // Fresh metadata before every send: batch 3 must see A's 16 partitions. Idempotent: on a
      // loaded machine a send that timed out after the broker wrote it is retried, and without
      // idempotence the retry writes the messages twice (seen: 50,880 offsets for 50,000 sends).
      const producer = kafka.producer({ createPartitioner: JavaCompatiblePartitioner, metadataMaxAge: 100, idempotent: true, maxInFlightRequests: 1 });
      await producer.connect();
      const produced = new Map<string, number>(); // key of A -> partition count when produced
      let sent = 0;
      const produce = async (keys: { key: string; topic: string }[]) => {
        for (let i = 0; i < keys.length; i += 1000) {
          const chunk = keys.slice(i, i + 1000);
          const topicMessages = topics.map((topic) => ({ topic, messages: chunk.filter((k) => k.topic === topic).map((k) => ({ key: k.key, value: String(sent) })) }));
          await producer.sendBatch({ topicMessages: topicMessages.filter((t) => t.messages.length > 0) });
        }
        for (const k of keys) if (k.topic === A) produced.set(k.key, counts.get(A)!);
        sent += keys.length;
      };
      const batchOf = (from: number) => Array.from({ length: BATCH }, (_, i) => ({ key: `key-${from + i}`, topic: topics[(from + i) % 3]! }));
      const consumedAll = (what: string) =>
        until(`all ${sent} messages read (${what})`, 120_000, () => {
          const distinct = new Set(log.messages.map((m) => `${m.topic}-${m.partition}-${m.offset}`));
          return distinct.size >= sent ? true : undefined;
        });

      // 1. Three members; the first batch.
      await Promise.all(['c1', 'c2', 'c3'].map((n) => start(n).ready));
      await stable('three members');
      await produce(batchOf(0));
      await consumedAll('batch 1');

      // 2. Two more join; the second batch.
      await Promise.all(['c4', 'c5'].map((n) => start(n).ready));
      const five = await stable('five members');
      await produce(batchOf(BATCH));
      await consumedAll('batch 2');

      // 3. A grows 8 -> 16. The next generation must fold: partition p joins the owner of p mod 8.
      const ownerBefore = new Map<number, string>();
      for (const [m, ts] of five.assignment) for (const p of ts.get(A) ?? []) ownerBefore.set(p, m);
      const readerBefore = new Map<string, string>();
      for (const m of log.messages) if (m.topic === A && m.generation >= five.generation) readerBefore.set(m.key, m.name);
      await withAdmin((admin) => admin.createPartitions({ topicPartitions: [{ topic: A, count: 16 }] }));
      counts.set(A, 16);
      const grown = await stable('after A grew to 16');
      expect(growthGenerations.length, 'one generation first assigned the new partitions').toBe(1);
      const growth = log.reports.get(growthGenerations[0]!)!;
      expect(growth.growth, 'the first rebalance after the growth folds A').toEqual([expect.objectContaining({ topic: A, from: 8, to: 16, keysKept: true })]);
      for (let q = 0; q < 16; q++) {
        const owner = [...grown.assignment].find(([, ts]) => ts.get(A)?.includes(q))![0];
        expect(owner, `${A}-${q}`).toBe(ownerBefore.get(q % 8));
      }
      // Third batch: A's keys again (as many as a batch), read by the member that read them before.
      const aKeys = [...produced.keys()];
      const batch3 = Array.from({ length: BATCH }, (_, i) => ({ key: aKeys[i % aKeys.length]!, topic: A }));
      const firstBatch3 = log.messages.length;
      await produce(batch3);
      await consumedAll('batch 3');
      let checkedKeys = 0;
      for (const m of log.messages.slice(firstBatch3)) {
        if (m.topic !== A || m.generation < grown.generation) continue;
        expect(m.partition, `key ${m.key}`).toBe(partitionForKey(m.key, 16));
        expect(m.name, `key ${m.key} (partition ${m.partition}, was ${partitionForKey(m.key, 8)})`).toBe(ownerBefore.get(partitionForKey(m.key, 8)));
        if (readerBefore.has(m.key)) expect(m.name, `key ${m.key}`).toBe(readerBefore.get(m.key));
        checkedKeys++;
      }
      expect(checkedKeys).toBeGreaterThanOrEqual(BATCH);

      // 4. Kill c3 (no LeaveGroup); c2 leaves cleanly; c6 joins. The last batch.
      await consumers.find((c) => c.name === 'c3')!.kill();
      await stable('c3 killed');
      await consumers.find((c) => c.name === 'c2')!.stop();
      stopped.add('c2');
      await stable('c2 left');
      await start('c6').ready;
      await stable('c6 joined');
      await produce(batchOf(2 * BATCH));
      await consumedAll('batch 4');
      await producer.disconnect();
      expect(sent).toBe(50_000);

      // 5. Nothing lost: every offset of every partition read; every offset committed.
      const high = await withAdmin(async (admin) => new Map(await Promise.all(topics.map(async (t) => [t, await admin.fetchTopicOffsets(t)] as const))));
      let total = 0;
      const read = new Set(log.messages.map((m) => `${m.topic}-${m.partition}-${m.offset}`));
      for (const [t, parts] of high) {
        for (const p of parts) {
          total += Number(p.high);
          for (let o = 0; o < Number(p.high); o++) expect(read.has(`${t}-${p.partition}-${o}`), `${t}-${p.partition}@${o} read`).toBe(true);
        }
      }
      expect(total).toBe(50_000);
      await until('every offset committed', 60_000, async () => {
        const committed = await withAdmin((admin) => admin.fetchOffsets({ groupId, topics }));
        const ok = committed.every(({ topic, partitions }) => partitions.every((p) => Number(p.offset) === Number(high.get(topic)!.find((h) => h.partition === p.partition)!.high)));
        return ok ? true : undefined;
      });
      expect(log.crashes).toEqual([]);
      await Promise.all(consumers.map((c) => c.stop()));
    },
    600_000,
  );
});
