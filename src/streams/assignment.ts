// The types of a streams group's assignment (src/streams/assign.ts makes it, ./report.ts prints it).
import type { EngineOptions } from '../engine/abi.js';
import type { StandbyPlacement } from '../standby/place.js';
import type { StreamsGroup } from './input.js';

/**
 * `balanced` (default): assignor's actives; standbys by the standby engine's balanced mode, keeping
 * each previous standby whose process differs from the new active's on every tag key.
 * `kafka`: assignor's actives; standbys exactly as Kafka Streams' classic
 * ClientTagAwareStandbyTaskAssignor places them on these actives (none kept, as Kafka keeps none).
 * `broker`: exactly what Kafka 4.4's broker-side StickyTaskAssignor answers (tag-blind), with the
 * members listed in the group's canonical order.
 * `tag-aware`: the broker's answer with its standbys moved over the tags: no task's tag spread is
 * worse than the broker's, and every process stays inside the broker's range of loads.
 */
export type StreamsMode = 'balanced' | 'kafka' | 'broker' | 'tag-aware';

export interface StreamsOptions extends EngineOptions {
  mode?: StreamsMode;
}

export interface StreamsTotals {
  tasks: number;
  statefulTasks: number;
  /** Actives that had an owner before, and of those the ones on the same member / the same process. */
  previouslyOwned: number;
  keptOnMember: number;
  keptOnProcess: number;
  /** Standby copies asked for (stateful tasks x numStandbys), placed in all, on a member that held them before, not placed. */
  standbysAskedFor: number;
  standbys: number;
  standbysKept: number;
  standbysUnplaced: number;
  /** Task ids in the input that name no task of the topology (ignored). */
  staleTaskIds: number;
}

export interface StreamsMemberAssignment {
  id: string;
  process: string;
  active: string[];
  standby: string[];
}

export interface StreamsAssignment {
  readonly mode: StreamsMode;
  readonly group: StreamsGroup;
  /** Per flat task: the member (index into group.members) running its active. */
  readonly activeOwner: Int32Array;
  /** Per member: its standby tasks (flat indices, ascending). */
  readonly standbyTasks: readonly Int32Array[];
  /** The process-level standby placement (null when no standby was asked for, and in broker mode). */
  readonly placement: StandbyPlacement | null;
  totals(): StreamsTotals;
  /** Per member in canonical order: its tasks as Kafka prints them. */
  members(): StreamsMemberAssignment[];
  /** What `assignor streams` prints: mode, totals, members. */
  report(): StreamsReport;
  /** The same in words (`--explain`), with the standby placement over processes. */
  explain(): string;
  /** A self-contained HTML page of the processes, their tags and tasks (`--html`). */
  html(): string;
}

export interface StreamsReport {
  mode: StreamsMode;
  numStandbys: number;
  tagKeys: string[];
  totals: StreamsTotals;
  /**
   * balanced and kafka modes, with tag keys and standbys: per stateful task, the tag spread of its
   * copies (distinct values per key, in precedence order, over the processes holding its active and
   * standbys) against what the broker's StickyTaskAssignor gives the same group. Else null.
   */
  againstBroker: { better: number; equal: number; worse: number } | null;
  members: StreamsMemberAssignment[];
}

