// End to end on the real broker: KafkaJS consumers with StickyAssigner, each its own process,
// read three topics while the group changes: 3 members, 2 join, topic A grows 8 -> 16, one member
// is killed (SIGKILL: no LeaveGroup, the broker drops it after the session timeout), one leaves
// cleanly, one joins. 50,000 messages with known keys are produced in four batches between the
// changes. Checked: after every rebalance every partition has exactly one owner, balance holds and
// no more partitions moved than the least a balanced assignment needs (test/group/sticky-oracle.ts); after the
// growth every new partition joined its parent's owner and every key of A was read by the member
// that read it before; every message was read (at least once) and every offset is committed.
import { afterAll, describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { JavaCompatiblePartitioner } from '../../src/kafkajs/index.js';
import { partitionForKey } from '../../src/hashing/index.js';
import { judge, type Assignment, type Fold } from '../group/sticky-oracle.js';
import { sharedKafka, uniqueTopic, useSharedBroker, withAdmin } from '../kafka/shared-broker.js';
import { GroupLog, MemberProcess, snapshot, until } from '../support/member-processes.js';

const CHILD = fileURLToPath(new URL('./group-consumer.ts', import.meta.url));
const BATCH = 12_500;

describe('StickyAssigner end to end (real broker, consumer processes)', () => {
  const brokers = useSharedBroker();
  const consumers: MemberProcess[] = [];
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
      const start = (name: string): MemberProcess => {
        const c = new MemberProcess(name, CHILD, brokers(), groupId, topics, log);
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
