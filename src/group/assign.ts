// assignGroup: a plain-object group in, one strategy's assignment and the report out.
import { AssignorError, describe } from '../errors.js';
import { readGroup, type Group } from './input.js';
import { assignRange } from './range.js';
import { groupReport, previousOwners, type GroupReport } from './report.js';
import { assignRoundRobin } from './round-robin.js';
import { assignSticky, type StickyOptions } from './sticky.js';

export const GROUP_STRATEGIES = ['sticky', 'range', 'round-robin'] as const;
export type GroupStrategy = (typeof GROUP_STRATEGIES)[number];

export interface AssignGroupOptions extends StickyOptions {
  /** sticky (default): assignor's planner; range / round-robin: exactly Kafka's RangeAssignor / RoundRobinAssignor. */
  strategy?: GroupStrategy;
}

export interface GroupAssignment {
  strategy: GroupStrategy;
  /** Every member (by id, ascending), its topics ascending, their partitions ascending; a member with nothing has an empty Map. */
  assignment: Map<string, Map<string, number[]>>;
  report: GroupReport;
  /** Owner (index into `memberIds`) per partition of every assigned topic, and the previous owners (-1: none): for reports and pages. */
  owners: Map<string, Int32Array>;
  previous: Map<string, Int32Array>;
  memberIds: string[];
  /** The checked input the strategy ran on. */
  group: Group;
}

function strategyOf(v: unknown): GroupStrategy {
  if (v === undefined) return 'sticky';
  if (typeof v !== 'string' || !(GROUP_STRATEGIES as readonly string[]).includes(v)) {
    throw new AssignorError('E_CHOICES', `strategy must be one of ${GROUP_STRATEGIES.join(', ')}, got ${describe(v)}`, 'options.strategy');
  }
  return v as GroupStrategy;
}

/** Per member, per topic, the partitions it owns, ascending. */
function byMember(group: Group, owners: Map<string, Int32Array>): Map<string, Map<string, number[]>> {
  const lists = group.members.map(() => new Map<string, number[]>());
  for (const name of group.assigned) {
    const owner = owners.get(name)!;
    for (let p = 0; p < owner.length; p++) {
      if (owner[p]! < 0) continue;
      const mine = lists[owner[p]!]!;
      const list = mine.get(name);
      if (list === undefined) mine.set(name, [p]);
      else list.push(p);
    }
  }
  return new Map(group.members.map((m, i) => [m.id, lists[i]!]));
}

/**
 * Assigns a consumer group's partitions with one strategy. `spec` is the plain shape of
 * docs/group.md ({ topics, members }). Throws AssignorError: E_INPUT and E_RANGE for a bad group
 * (see readGroup), E_CHOICES for an unknown strategy, E_RANGE for a bad growthSkew.
 */
export function assignGroup(spec: unknown, options: AssignGroupOptions = {}): GroupAssignment {
  const strategy = strategyOf(options.strategy);
  const group = readGroup(spec);
  const before = previousOwners(group);
  const owners = strategy === 'range' ? assignRange(group) : strategy === 'round-robin' ? assignRoundRobin(group) : assignSticky(group, options).owners;
  return {
    strategy,
    assignment: byMember(group, owners),
    report: groupReport(group, owners, before),
    owners,
    previous: before.owners,
    memberIds: group.members.map((m) => m.id),
    group,
  };
}

/** The result as the JSON `assignor group` prints: { strategy, assignment, report }, user strings as data. */
export function groupAssignmentJson(result: GroupAssignment): string {
  const members: string[] = [];
  for (const [id, topics] of result.assignment) {
    const entries = [...topics].map(([t, ps]) => `${JSON.stringify(t)}:[${ps.join(',')}]`);
    members.push(`${JSON.stringify(id)}:{${entries.join(',')}}`);
  }
  return `{"strategy":${JSON.stringify(result.strategy)},"assignment":{${members.join(',')}},"report":${JSON.stringify(result.report)}}`;
}
