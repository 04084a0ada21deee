// The sticky planner's options as every entry point takes them (assignGroup, the KafkaJS and the
// @platformatic/kafka assigners), checked once at the boundary, one way for all three.
import { AssignorError, describe } from '../errors.js';
import type { EngineChoice } from '../engine/kernels.js';
import type { CoPartitionGroup, PlanReport } from './sticky/plan.js';

export interface StickyOptions {
  /** After a topic grows from B to k*B, keep every key when no member then holds more than growthSkew x its share. Default 2. */
  growthSkew?: number;
  /** Named sets of topics whose partition p always goes to one member (same partition count and subscribers required). */
  coPartitioned?: readonly CoPartitionGroup[];
  engine?: EngineChoice;
}

/** What a client adapter's sticky assigner reports on the leader after every assignment. */
export interface StickyAssignmentReport extends PlanReport {
  /** The generation this assignment is for (from the JoinGroup answer), when known. */
  generation: number | null;
  /** Wall time of the assignment on the leader. */
  ms: number;
}

/** The options every client adapter's sticky assigner takes (an adapter may add its own). */
export interface StickyAssignerOptions extends StickyOptions {
  /** This consumer's rack (the value the client is given as its rack). Members in a rack holding a replica are preferred. */
  rackId?: string | null;
  /** Called on the leader after every assignment (tests, metrics, logs). */
  onAssignment?: (report: StickyAssignmentReport) => void;
}

/** An adapter's checked options: the planner's, the rack and the callback. */
export interface CheckedAssignerOptions extends CheckedStickyOptions {
  rack: string | null;
  onAssignment: ((report: StickyAssignmentReport) => void) | undefined;
}

/** Checks an adapter's options (checkStickyOptions, the rack, the callback). */
export function checkAssignerOptions(options: StickyAssignerOptions): CheckedAssignerOptions {
  const plan = checkStickyOptions(options);
  const rack = checkRackId(options.rackId);
  if (options.onAssignment !== undefined && typeof options.onAssignment !== 'function') throw new AssignorError('E_INPUT', 'onAssignment must be a function', 'options.onAssignment');
  return { ...plan, rack, onAssignment: options.onAssignment };
}

export interface CheckedStickyOptions {
  growthSkew: number;
  coPartitioned: CoPartitionGroup[];
  engine: EngineChoice | undefined;
}

/** Throws AssignorError (E_INPUT, E_RANGE) for a bad option, naming it (`options.growthSkew`). */
export function checkStickyOptions(options: StickyOptions): CheckedStickyOptions {
  if (options === null || typeof options !== 'object') throw new AssignorError('E_INPUT', `options must be an object, got ${describe(options)}`, 'options');
  const growthSkew = options.growthSkew ?? 2;
  if (typeof growthSkew !== 'number' || Number.isNaN(growthSkew) || growthSkew < 1) {
    throw new AssignorError('E_RANGE', `growthSkew must be a number >= 1 (Infinity: always keep keys), got ${describe(growthSkew)}`, 'options.growthSkew');
  }
  return { growthSkew, coPartitioned: checkGroups(options.coPartitioned ?? []), engine: options.engine };
}

/** A member's rack option (`rackId`): a string, or null for none ('' is none too, as in Kafka). */
export function checkRackId(rackId: unknown): string | null {
  if (rackId !== undefined && rackId !== null && typeof rackId !== 'string') throw new AssignorError('E_INPUT', `rackId must be a string, got ${describe(rackId)}`, 'options.rackId');
  return rackId === undefined || rackId === null || rackId === '' ? null : rackId;
}

function checkGroups(groups: unknown): CoPartitionGroup[] {
  if (!Array.isArray(groups)) throw new AssignorError('E_INPUT', `coPartitioned must be an array of { name, topics }, got ${describe(groups)}`, 'options.coPartitioned');
  const names = new Set<string>();
  const topicGroup = new Map<string, string>();
  return groups.map((g: unknown, i) => {
    const where = `options.coPartitioned[${i}]`;
    const { name, topics } = (g ?? {}) as { name?: unknown; topics?: unknown };
    if (typeof name !== 'string' || name === '') throw new AssignorError('E_INPUT', `a co-partitioned group needs a non-empty name, got ${describe(name)}`, `${where}.name`);
    if (names.has(name)) throw new AssignorError('E_INPUT', `co-partitioned group name ${describe(name)} is used twice`, `${where}.name`);
    names.add(name);
    if (!Array.isArray(topics) || topics.length < 2) throw new AssignorError('E_INPUT', `co-partitioned group ${describe(name)} needs at least two topics, got ${describe(topics)}`, `${where}.topics`);
    topics.forEach((t: unknown, k) => {
      if (typeof t !== 'string' || t === '') throw new AssignorError('E_INPUT', `a topic name must be a non-empty string, got ${describe(t)}`, `${where}.topics[${k}]`);
      const other = topicGroup.get(t);
      if (other !== undefined) throw new AssignorError('E_INPUT', `topic ${describe(t)} is in co-partitioned groups ${describe(other)} and ${describe(name)}; a topic can be in one group only`, `${where}.topics[${k}]`);
      topicGroup.set(t, name);
    });
    return { name, topics: [...(topics as string[])] };
  });
}
