// assignGroup: a plain-object group in, one strategy's assignment and the report out.
import { AssignorError, describe, requireInt } from '../errors.js';
import { assignConsumer, CONSUMER_STRATEGIES, type ConsumerStrategy } from './consumer/assign.js';
import { GROUP_MAX_PARTITIONS, readGroup, type Group } from './input.js';
import { assignRange } from './range.js';
import { groupReport, previousOwners, type GroupReport } from './report.js';
import { assignRoundRobin } from './round-robin.js';
import { assignSticky, type StickyOptions } from './sticky.js';

/** The classic protocol's strategies: the group leader assigns (KafkaJS, @platformatic/kafka, Java's classic consumers). */
export const GROUP_STRATEGIES = ['sticky', 'range', 'round-robin'] as const;
/** The group protocols: `classic` (the leader assigns) and `consumer` (KIP-848: the broker assigns). */
export const GROUP_PROTOCOLS = ['classic', 'consumer'] as const;
export type GroupProtocol = (typeof GROUP_PROTOCOLS)[number];
export type GroupStrategy = (typeof GROUP_STRATEGIES)[number] | ConsumerStrategy;
export { CONSUMER_STRATEGIES };

export interface AssignGroupOptions extends StickyOptions {
  /** classic (default) or consumer: the KIP-848 protocol, where the broker assigns. */
  protocol?: GroupProtocol;
  /**
   * classic: sticky (default), assignor's planner; range / round-robin, exactly Kafka's RangeAssignor /
   * RoundRobinAssignor. consumer: uniform (default) / range, exactly the 4.4.0 broker's UniformAssignor / RangeAssignor.
   */
  strategy?: GroupStrategy;
  /** The most partitions the subscribed topics may hold (default GROUP_MAX_PARTITIONS, 50 million); more is E_TOO_LARGE, before any work. */
  maxPartitions?: number;
}

export interface GroupAssignment {
  protocol: GroupProtocol;
  strategy: GroupStrategy;
  /** Every member (by id, ascending), its topics ascending, their partitions ascending; a member with nothing has an empty Map. Built on first read. */
  readonly assignment: Map<string, Map<string, number[]>>;
  report: GroupReport;
  /** Owner (index into `memberIds`) per partition of every assigned topic, and the previous owners (-1: none): for reports and pages. */
  owners: Map<string, Int32Array>;
  previous: Map<string, Int32Array>;
  memberIds: string[];
  /** The checked input the strategy ran on. */
  group: Group;
}

function protocolOf(v: unknown): GroupProtocol {
  if (v === undefined) return 'classic';
  if (typeof v !== 'string' || !(GROUP_PROTOCOLS as readonly string[]).includes(v)) {
    throw new AssignorError('E_CHOICES', `protocol must be one of ${GROUP_PROTOCOLS.join(', ')}, got ${describe(v)}`, 'options.protocol');
  }
  return v as GroupProtocol;
}

/** The strategy, checked against the protocol's list: each protocol has its own assignors. */
function strategyOf(protocol: GroupProtocol, v: unknown): GroupStrategy {
  const choices: readonly string[] = protocol === 'classic' ? GROUP_STRATEGIES : CONSUMER_STRATEGIES;
  if (v === undefined) return choices[0] as GroupStrategy;
  if (typeof v !== 'string' || !choices.includes(v)) {
    throw new AssignorError('E_CHOICES', `the ${protocol} protocol's strategies are ${choices.join(', ')}, got ${describe(v)}`, 'options.strategy');
  }
  return v as GroupStrategy;
}

function ownersOf(group: Group, before: { owners: Map<string, Int32Array> }, protocol: GroupProtocol, strategy: GroupStrategy, options: AssignGroupOptions): Map<string, Int32Array> {
  if (protocol === 'consumer') return assignConsumer(group, before.owners, strategy as ConsumerStrategy);
  if (strategy === 'range') return assignRange(group);
  return strategy === 'round-robin' ? assignRoundRobin(group) : assignSticky(group, options).owners;
}

/**
 * Calls back, per topic (ascending) and per member (in id order) holding some of it, with the
 * member and its partitions of the topic, ascending: a counting sort per topic, no object per partition.
 */
function forEachHolding(group: Group, owners: Map<string, Int32Array>, fn: (m: number, topic: string, parts: Int32Array) => void): void {
  const M = group.members.length;
  const start = new Int32Array(M + 1);
  for (const name of group.assigned) {
    const owner = owners.get(name)!;
    start.fill(0);
    for (let p = 0; p < owner.length; p++) if (owner[p]! >= 0) start[owner[p]! + 1]!++;
    for (let m = 0; m < M; m++) start[m + 1]! += start[m]!;
    const sorted = new Int32Array(start[M]!);
    const at = start.slice(0, M);
    for (let p = 0; p < owner.length; p++) if (owner[p]! >= 0) sorted[at[owner[p]!]!++] = p;
    for (let m = 0; m < M; m++) if (start[m + 1]! > start[m]!) fn(m, name, sorted.subarray(start[m]!, start[m + 1]!));
  }
}

/** Per member, per topic, the partitions it owns, ascending. */
function byMember(group: Group, owners: Map<string, Int32Array>): Map<string, Map<string, number[]>> {
  const lists = group.members.map(() => new Map<string, number[]>());
  forEachHolding(group, owners, (m, topic, parts) => lists[m]!.set(topic, Array.from(parts)));
  return new Map(group.members.map((m, i) => [m.id, lists[i]!]));
}

/**
 * Assigns a consumer group's partitions with one strategy. `spec` is the plain shape of
 * docs/group.md ({ topics, members }). Throws AssignorError: E_INPUT and E_RANGE for a bad group
 * (see readGroup; also two topics with one id), E_CHOICES for an unknown protocol or a strategy
 * the protocol lacks, E_RANGE for a bad growthSkew or maxPartitions, E_TOO_LARGE for a group above maxPartitions.
 */
export function assignGroup(spec: unknown, options: AssignGroupOptions = {}): GroupAssignment {
  const protocol = protocolOf(options.protocol);
  const strategy = strategyOf(protocol, options.strategy);
  const limit = options.maxPartitions === undefined ? GROUP_MAX_PARTITIONS : requireInt(options.maxPartitions, 1, Number.MAX_SAFE_INTEGER, 'maxPartitions', 'options.maxPartitions');
  const group = readGroup(spec, limit);
  const before = previousOwners(group);
  const owners = ownersOf(group, before, protocol, strategy, options);
  let assignment: Map<string, Map<string, number[]>> | undefined;
  return {
    protocol,
    strategy,
    // Built on first read: at a million partitions that is a million arrays, which the JSON
    // writer and the report do not need.
    get assignment() {
      return (assignment ??= byMember(group, owners));
    },
    report: groupReport(group, owners, before),
    owners,
    previous: before.owners,
    memberIds: group.members.map((m) => m.id),
    group,
  };
}

/** The result as the JSON `assignor group` prints: { protocol, strategy, assignment, report }, user strings as data. */
export function groupAssignmentJson(result: GroupAssignment): string {
  const entries: string[][] = result.memberIds.map(() => []);
  forEachHolding(result.group, result.owners, (m, topic, parts) => entries[m]!.push(`${JSON.stringify(topic)}:[${parts.join(',')}]`));
  const members = result.memberIds.map((id, m) => `${JSON.stringify(id)}:{${entries[m]!.join(',')}}`);
  return `{"protocol":${JSON.stringify(result.protocol)},"strategy":${JSON.stringify(result.strategy)},"assignment":{${members.join(',')}},"report":${JSON.stringify(result.report)}}`;
}
