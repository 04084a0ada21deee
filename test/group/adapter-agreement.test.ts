// One planner for every client: the KafkaJS adapter (StickyAssigner, claims in the wire bytes) and
// assignGroup's sticky strategy (claims as plain objects) give the same assignment for the same
// group, owned partitions, generations and racks included.
import { describe, expect, it } from 'vitest';
import type { Cluster, Logger } from 'kafkajs';
import { createStickyAssigner } from '../../src/kafkajs/index.js';
import { decodeAssignment, encodeClaims, encodeSubscription } from '../../src/group/protocol.js';
import { assignGroup, type GroupSpec } from '../../src/group/index.js';
import { random, randomGroup } from './random-groups.js';

const quiet: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined, namespace: () => quiet, setLogLevel: () => undefined };
const RACKS = ['r0', 'r1', 'r2', 'R3'];

/** KafkaJS's metadata for the group's topics: one broker per rack, a partition's replicas on its racks. */
function clusterOf(group: GroupSpec): Cluster {
  // Brokers 0-3 on the racks, broker 4 on none (the replicas of topics without racks).
  const brokers = [...RACKS.map((rack, nodeId) => ({ nodeId, host: '127.0.0.1', port: 9092 + nodeId, rack })), { nodeId: 4, host: '127.0.0.1', port: 9096 }];
  const topicMetadata = group.topics.map((t) => ({
    topicErrorCode: 0,
    topic: t.name,
    partitionMetadata: Array.from({ length: t.partitions }, (_, partitionId) => {
      const replicas = t.racks === undefined ? [4] : t.racks[partitionId]!.map((r) => RACKS.indexOf(r));
      return { partitionErrorCode: 0, partitionId, leader: replicas[0] ?? 0, replicas, isr: replicas };
    }),
  }));
  const meta = { brokers, topicMetadata };
  return { metadata: async () => meta, findTopicPartitionMetadata: (t: string) => topicMetadata.find((x) => x.topic === t)?.partitionMetadata ?? [], findGroupCoordinator: async () => ({}) } as unknown as Cluster;
}

/** A group whose members own what round-robin gave them, some at an older generation, one member gone. */
function withClaims(seed: number): GroupSpec {
  const g = randomGroup(random(seed));
  const first = assignGroup(g, { strategy: 'round-robin' });
  return {
    topics: g.topics,
    members: g.members
      .filter((_, i) => i % 4 !== 1)
      .map((m, i) => ({ ...m, owned: Object.fromEntries(first.assignment.get(m.id)!), generation: 2 + (i % 2) })),
  };
}

describe('the KafkaJS adapter and assignGroup run one planner', () => {
  it('same assignment on 60 random groups with claims, generations and racks', async () => {
    let kept = 0;
    let racked = 0;
    for (let seed = 1; seed <= 60; seed++) {
      const group = withClaims(seed);
      const report = assignGroup(group).report;
      kept += report.kept;
      if (report.rackMatched !== null) racked++;
      const members = group.members.map((m) => {
        const topics = [...m.topics];
        const owned = Object.entries(m.owned ?? {}).filter(([t, ps]) => topics.includes(t) && ps.length > 0);
        const index = (t: string): number => topics.indexOf(t);
        owned.sort((a, b) => index(a[0]) - index(b[0]));
        const start = [0];
        const parts: number[] = [];
        for (const [, ps] of owned) start.push((parts.push(...ps), parts.length));
        const claims = {
          generation: owned.length === 0 ? -1 : m.generation!,
          rack: m.rack === undefined || m.rack === '' ? null : m.rack,
          fingerprint: '',
          topic: Int32Array.from(owned, ([t]) => index(t)),
          count: Int32Array.from(owned, ([t]) => group.topics.find((x) => x.name === t)?.partitions ?? 0),
          start: Int32Array.from(start),
          partitions: Int32Array.from(parts),
        };
        return { memberId: m.id, memberMetadata: Buffer.from(encodeSubscription(0, topics, encodeClaims(claims))) };
      });
      const out = await createStickyAssigner()({ cluster: clusterOf(group), groupId: 'g', logger: quiet }).assign({ members, topics: [] });
      const viaKafkajs = Object.fromEntries(out.map((o) => {
        const a = decodeAssignment(o.memberAssignment)!;
        return [o.memberId, Object.fromEntries(a.topics.map((t, k) => [t, [...a.partitions[k]!].sort((x, y) => x - y)]))];
      }));
      const direct = Object.fromEntries([...assignGroup(group).assignment].map(([id, topics]) => [id, Object.fromEntries(topics)]));
      expect({ seed, assignment: viaKafkajs }).toEqual({ seed, assignment: direct });
    }
    // The claims mattered (partitions kept) and racks were in play.
    expect(kept).toBeGreaterThan(1000);
    expect(racked).toBeGreaterThan(5);
  }, 120_000);
});
