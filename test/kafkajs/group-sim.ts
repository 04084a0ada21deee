// A consumer group without a broker: members are real StickyAssigner instances, each with its own
// fake KafkaJS cluster whose group coordinator answers joinGroup/syncGroup/leaveGroup the way the
// broker does for the classic protocol. A rebalance runs KafkaJS's sequence: every member's
// protocol(), JoinGroup (generation + 1), assign() on the leader, SyncGroup to every member. The
// tracker inside the assigner sees these calls exactly as it sees KafkaJS's.
import type { Cluster, GroupMemberAssignment, Logger, PartitionAssigner } from 'kafkajs';
import { decodeAssignment } from '../../src/group/protocol.js';
import type { StickyAssignmentReport } from '../../src/kafkajs/sticky/assigner.js';

export const GROUP = 'sim-group';

const quiet: Logger = {
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  debug: () => undefined,
  namespace: () => quiet,
  setLogLevel: () => undefined,
};

export interface TopicState {
  partitions: number;
  /** Broker node ids holding replicas of each partition. */
  replicas: number[][];
}

/** The cluster's state, shared by every member's fake cluster. */
export class World {
  topics = new Map<string, TopicState>();
  /** Broker node id -> rack ('' for none). */
  brokerRacks: string[] = [];
  generation = 0;

  addTopic(name: string, partitions: number, replicasOf: (p: number) => number[] = () => [0]): void {
    this.topics.set(name, { partitions, replicas: Array.from({ length: partitions }, (_, p) => replicasOf(p)) });
  }

  grow(name: string, partitions: number, replicasOf: (p: number) => number[] = () => [0]): void {
    const t = this.topics.get(name)!;
    for (let p = t.partitions; p < partitions; p++) t.replicas.push(replicasOf(p));
    t.partitions = partitions;
  }

  metadata(topics: string[]) {
    return {
      brokers: (this.brokerRacks.length === 0 ? [''] : this.brokerRacks).map((rack, nodeId) => ({ nodeId, host: '127.0.0.1', port: 9092 + nodeId, ...(rack === '' ? {} : { rack }) })),
      topicMetadata: topics
        .filter((t) => this.topics.has(t))
        .map((topic) => ({
          topicErrorCode: 0,
          topic,
          partitionMetadata: this.topics.get(topic)!.replicas.map((replicas, partitionId) => ({ partitionErrorCode: 0, partitionId, leader: replicas[0]!, replicas, isr: replicas })),
        })),
    };
  }
}

interface JoinState {
  generationId: number;
  memberId: string;
}

/** One consumer process: its assigner instance, its cluster object, its subscription. */
export class SimMember {
  memberId = '';
  readonly cluster: Cluster;
  readonly assigner: ReturnType<PartitionAssigner>;
  /** What the group coordinator will answer this member's next JoinGroup / SyncGroup with. */
  pendingJoin: JoinState | null = null;
  pendingSync: Buffer | null = null;
  /** The assignment this member received last (topic -> partitions). */
  owned = new Map<string, number[]>();

  constructor(
    readonly name: string,
    readonly topics: string[],
    world: World,
    factory: PartitionAssigner,
  ) {
    // The coordinator broker object: the assigner's tracker wraps these methods.
    const coordinator = {
      joinGroup: async (req: { groupId: string }) => {
        void req;
        return { ...this.pendingJoin!, leaderId: '', groupProtocol: '', members: [] };
      },
      syncGroup: async (req: { groupId: string; generationId: number; memberId: string }) => {
        void req;
        return { memberAssignment: this.pendingSync! };
      },
      leaveGroup: async (req: { groupId: string; memberId: string }) => {
        void req;
        return {};
      },
    };
    const cluster = {
      findGroupCoordinator: async () => coordinator,
      metadata: async ({ topics }: { topics: string[] }) => world.metadata(topics),
      findTopicPartitionMetadata: (topic: string) => world.metadata([topic]).topicMetadata[0]?.partitionMetadata ?? [],
    };
    this.cluster = cluster as unknown as Cluster;
    this.assigner = factory({ cluster: this.cluster, groupId: GROUP, logger: quiet });
  }

  async coordinator(): Promise<{ joinGroup: (r: object) => Promise<unknown>; syncGroup: (r: object) => Promise<unknown>; leaveGroup: (r: object) => Promise<unknown> }> {
    return (this.cluster.findGroupCoordinator as unknown as (a: { groupId: string }) => Promise<never>)({ groupId: GROUP });
  }
}

export interface Rebalance {
  generation: number;
  /** Per member name: topic -> partitions. */
  assignment: Map<string, Map<string, number[]>>;
  report: StickyAssignmentReport;
}

let idCounter = 0;

/** Runs one rebalance of `members` (the group as the broker sees it); `leader` assigns. */
export async function rebalance(world: World, members: SimMember[], leader: SimMember, reports: StickyAssignmentReport[]): Promise<Rebalance> {
  world.generation++;
  const generationId = world.generation;
  // Broker-assigned member ids for members joining without one (a new or a fenced member).
  for (const m of members) if (m.memberId === '') m.memberId = `consumer-${(idCounter++ * 7919) % 100003}-${Math.random().toString(36).slice(2, 10)}`;
  const metadata = members.map((m) => ({ memberId: m.memberId, memberMetadata: m.assigner.protocol({ topics: m.topics }).metadata }));
  for (const m of members) {
    m.pendingJoin = { generationId, memberId: m.memberId };
    await (await m.coordinator()).joinGroup({ groupId: GROUP });
  }
  const before = reports.length;
  const out: GroupMemberAssignment[] = await leader.assigner.assign({ members: metadata, topics: leader.topics });
  const report = reports[before];
  if (report === undefined) throw new Error('the assigner did not report');
  const byId = new Map(out.map((a) => [a.memberId, a.memberAssignment]));
  const assignment = new Map<string, Map<string, number[]>>();
  for (const m of members) {
    m.pendingSync = byId.get(m.memberId) ?? Buffer.alloc(0);
    await (await m.coordinator()).syncGroup({ groupId: GROUP, generationId, memberId: m.memberId, groupAssignment: [] });
    const decoded = decodeAssignment(m.pendingSync);
    const owned = new Map<string, number[]>();
    if (decoded !== null) decoded.topics.forEach((t, k) => owned.set(t, Array.from(decoded.partitions[k]!)));
    m.owned = owned;
    assignment.set(m.name, owned);
  }
  return { generation: generationId, assignment, report };
}

/** A clean leave: LeaveGroup goes through the coordinator (the member will own nothing). */
export async function leave(member: SimMember): Promise<void> {
  await (await member.coordinator()).leaveGroup({ groupId: GROUP, memberId: member.memberId });
  member.memberId = '';
}
