// The previous implementation of the store cycle (one key string and record per SSP, Maps
// throughout), kept as the reference the columnar cycle in src/samza/cycle.ts is tested against.
// Unchanged except for imports and the size limit it no longer needs.
//
// The read/compute/write cycle (Samza's JobModelHelper.newJobModel): read the
// previous assignment, changelog map and container map from the store,
// calculate the new JobModel, write it back with exactly one batch.
//
// Each message type is read from the store once; the new state is an overlay
// of puts and deletes on that snapshot, and only the overlay entries that
// differ from the snapshot are written.
import { calculateJobModel, type JobInput, type JobModelPlan, type PlanOptions, type PreviousState } from '../../src/samza/plan.js';
import { containerLayouts, taskNameIn } from '../../src/samza/job-model.js';
import { TYPES, baseCountRecord, configRecord, readBaseCounts, readConfig, readContainerHosts, parseSspKey, sspKeyJson, field } from '../../src/samza/managers.js';
import { changelogRecord, previousTaskToSsps, readChangelogMapping, readTaskAssignment, readTaskModes, readTaskPartitionAssignments, type StoredAssignment } from '../support/samza-managers.js';
import { type TaskMode } from '../../src/samza/model.js';
import type { CoordinatorStoreReader, StoreRecord, SyncCoordinatorStore } from '../../src/samza/store-types.js';
import type { TypeReads } from '../../src/samza/managers.js';
import { byCodeUnits } from '../../src/basics.js';

export interface StoreSnapshot {
  previous: PreviousState;
  assignment: StoredAssignment;
  config: Map<string, string>;
  /** The raw key -> values map of every type read. */
  entries: Map<string, Map<string, unknown>>;
}

/** Reads every type the planner needs, each once. */
export function readPreviousReference(store: Pick<CoordinatorStoreReader, 'entries'>): StoreSnapshot {
  const entries = new Map<string, Map<string, unknown>>();
  // Every type read once, as Maps (no task tables).
  const once: TypeReads = {
    entries: (type) => {
      let m = entries.get(type);
      if (m === undefined) entries.set(type, (m = store.entries(type)));
      return m;
    },
    taskTable: () => undefined,
  };
  for (const t of Object.values(TYPES)) once.entries(t);
  const assignment = readTaskPartitionAssignments(once);
  const taskModes = readTaskModes(once);
  return {
    previous: {
      baseCounts: readBaseCounts(once),
      taskToSsps: previousTaskToSsps(assignment, taskModes),
      changelog: readChangelogMapping(once),
      taskContainer: readTaskAssignment(once),
      taskModes,
      containerHosts: readContainerHosts(once),
    },
    assignment,
    config: readConfig(once),
    entries,
  };
}

export interface Changes {
  sspsNew: number;
  sspsMoved: number;
  sspsGone: number;
  /** A few examples of moved SSPs: `ssp: from -> to`. */
  movedExamples: string[];
  tasksAdded: string[];
  tasksRemoved: string[];
  tasksChangedContainer: number;
  configChanged: string[];
}

export interface CycleResult {
  plan: JobModelPlan;
  changes: Changes;
  /** Records in the one batch written (0: the store already held this model). */
  recordsWritten: number;
  /** Samza's warning when the task count changed. */
  warnings: string[];
}

interface TaskInfo {
  c: string;
  mode: TaskMode;
  changelog: number;
}

interface ModelMaps {
  /** Canonical SSP key -> every task holding it (active and standby), sorted. */
  sspTasks: Map<string, string[]>;
  taskInfo: Map<string, TaskInfo>;
}

/** Canonical store keys straight from the flat rows: one string per SSP, no SSP objects. */
function keyWriter(plan: JobModelPlan): (k: number) => string {
  const g = plan.grouping;
  const heads = g.streams.map((s) => `{"system":${JSON.stringify(s.system)},"partition":`);
  const tails = g.streams.map((s) => `,"stream":${JSON.stringify(s.stream)},"keyBucket":`);
  return (k) => {
    const i = g.order[k]!;
    const st = g.stream[i]!;
    return `${heads[st]}${g.partition[i]}${tails[st]}${g.bucket === null ? -1 : g.bucket[i]}}`;
  };
}

function modelMaps(plan: JobModelPlan): ModelMaps {
  const g = plan.grouping;
  const sspTasks = new Map<string, string[]>();
  const taskInfo = new Map<string, TaskInfo>();
  const keyOf = keyWriter(plan);
  const shared = g.everyTask.map(sspKeyJson);
  const add = (key: string, name: string): void => {
    const e = sspTasks.get(key);
    if (e === undefined) sspTasks.set(key, [name]);
    else e.push(name);
  };
  for (const layout of containerLayouts(plan)) {
    for (const t of layout.tasks) {
      const name = taskNameIn(plan, layout, t);
      taskInfo.set(name, { c: layout.id, mode: layout.replica < 0 ? 'Active' : 'Standby', changelog: plan.changelog[t]! });
      for (let k = g.taskStart[t]!; k < g.taskStart[t + 1]!; k++) {
        add(keyOf(k), name);
      }
      for (const key of shared) add(key, name);
    }
  }
  for (const tasks of sspTasks.values()) if (tasks.length > 1) tasks.sort(byCodeUnits);
  return { sspTasks, taskInfo };
}

/** Puts and deletes over the snapshot; null marks a delete. */
class Overlay {
  readonly types = new Map<string, Map<string, unknown>>();

  set(type: string, key: string, value: unknown): void {
    let m = this.types.get(type);
    if (m === undefined) this.types.set(type, (m = new Map()));
    m.set(key, value);
  }

  delete(type: string, key: string): void {
    this.set(type, key, null);
  }
}

const sameJson = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

export function runCycleReference(store: SyncCoordinatorStore, job: JobInput, options: PlanOptions = {}): CycleResult {
  const warnings: string[] = [];
  const warn = (m: string): void => {
    warnings.push(m);
    options.warn?.(m);
  };
  // 1. Read.
  const snap = readPreviousReference(store);
  const prev = snap.previous;
  const stored = (type: string): Map<string, unknown> => snap.entries.get(type) ?? new Map();
  // 2. Compute.
  const plan = calculateJobModel(job, prev, { ...options, warn });
  // 3. Samza's updateTaskAssignments, as an overlay on the snapshot.
  const { sspTasks, taskInfo } = modelMaps(plan);
  const o = new Overlay();
  const prevActive = [...prev.taskContainer.keys()].filter((t) => (prev.taskModes.get(t) ?? 'Active') === 'Active');
  const activeNow = plan.grouping.tasks.length;
  if (prev.taskContainer.size > 0 && activeNow !== prevActive.length) {
    warn(`Current task count ${activeNow} does not match saved task count ${prevActive.length}. Stateful jobs may observe misalignment of keys!`);
    for (const t of stored(TYPES.taskContainer).keys()) o.delete(TYPES.taskContainer, t);
    for (const t of stored(TYPES.taskMode).keys()) o.delete(TYPES.taskMode, t);
    // (The current SSPs' assignment entries are deleted too, and rewritten just below.)
  }
  const prevStandby = [...prev.taskModes].filter(([, m]) => m === 'Standby').map(([t]) => t).sort(byCodeUnits);
  const nowStandby = [...taskInfo].filter(([, v]) => v.mode === 'Standby').map(([t]) => t).sort(byCodeUnits);
  if (!sameJson(prevStandby, nowStandby)) {
    for (const t of prevStandby) {
      o.delete(TYPES.taskContainer, t);
      o.delete(TYPES.taskMode, t);
    }
  }
  for (const [t, v] of taskInfo) {
    o.set(TYPES.taskContainer, t, { containerId: v.c });
    o.set(TYPES.taskMode, t, { taskMode: v.mode });
  }
  // The SSP assignment is the one large type: its records are compared and produced directly.
  const records: StoreRecord[] = [];
  const singles = new Map<string, string>();
  const single = (task: string): string => {
    let j = singles.get(task);
    if (j === undefined) singles.set(task, (j = JSON.stringify([task])));
    return j;
  };
  const tpStored = stored(TYPES.taskPartition);
  const dropStale = plan.mapper === 'base';
  for (const [key, tasks] of sspTasks) {
    // One canonical key form: older keys for the same SSP are replaced (in base mode by the stale sweep below).
    if (!dropStale && snap.assignment.oldKeys.size > 0) for (const old of snap.assignment.oldKeys.get(key) ?? []) records.push({ type: TYPES.taskPartition, key: old, value: null });
    const taskNames = tasks.length === 1 ? single(tasks[0]!) : JSON.stringify(tasks);
    const before = tpStored.get(key);
    if (before === undefined || field(before, 'taskNames') !== taskNames) records.push({ type: TYPES.taskPartition, key, value: { taskNames } });
  }
  // Base mode drops entries of SSPs that no longer exist, and old-form keys (Samza keeps them stale).
  if (dropStale) for (const key of tpStored.keys()) if (!sspTasks.has(key)) records.push({ type: TYPES.taskPartition, key, value: null });
  // 4. Changelog: the new mapping overlaid with the previous one (previous entries win).
  for (const [t, v] of taskInfo) if (!prev.changelog.has(t)) o.set(TYPES.changelog, t, changelogRecord(t, v.changelog).value);
  for (const [name, base] of plan.baseCounts) o.set(TYPES.baseCount, name, baseCountRecord(name, base).value);
  for (const k of stored(TYPES.config).keys()) if (!plan.config.map.has(k)) o.delete(TYPES.config, k);
  for (const [k, v] of plan.config.map) o.set(TYPES.config, k, configRecord(k, v).value);

  for (const [type, m] of o.types) {
    const before = stored(type);
    for (const [k, v] of m) {
      if (v === null) {
        if (before.has(k)) records.push({ type, key: k, value: null });
      } else if (!before.has(k) || !sameJson(before.get(k), v)) {
        records.push({ type, key: k, value: v });
      }
    }
  }
  if (records.length > 0) store.commit(records);

  return { plan, changes: diff(snap, plan, sspTasks, taskInfo), recordsWritten: records.length, warnings };
}

function diff(snap: StoreSnapshot, plan: JobModelPlan, sspTasks: ModelMaps['sspTasks'], taskInfo: Map<string, TaskInfo>): Changes {
  const prev = snap.previous;
  let sspsNew = 0;
  let sspsMoved = 0;
  const movedExamples: string[] = [];
  const active = (t: string): boolean => (prev.taskModes.get(t) ?? 'Active') === 'Active';
  const shared = new Set(plan.grouping.everyTask.map(sspKeyJson));
  for (const [key, tasks] of sspTasks) {
    // The SSP's active task now; SSPs in several active tasks (broadcast, AllSspToSingleTask) are not counted.
    let task = '';
    for (const t of tasks) if (taskInfo.get(t)!.mode === 'Active') task = task === '' ? t : '\u0000';
    if (task === '' || task === '\u0000' || shared.has(key)) continue;
    const stored = snap.assignment.sspToTasks.get(key)?.tasks;
    const before = stored === undefined ? [] : stored.length === 1 ? (active(stored[0]!) ? stored : []) : stored.filter(active);
    if (before.length === 0) sspsNew++;
    else if (before.length === 1 && before[0] !== task) {
      sspsMoved++;
      if (movedExamples.length < 5) {
        const s = parseSspKey(key);
        movedExamples.push(`${s.system}.${s.stream}#${s.partition}${s.keyBucket === -1 ? '' : `/${s.keyBucket}`}: ${before[0]} -> ${task}`);
      }
    }
  }
  let sspsGone = 0;
  for (const key of snap.assignment.sspToTasks.keys()) if (!sspTasks.has(key)) sspsGone++;
  const prevTasks = new Set(prev.taskToSsps.keys());
  const nowTasks = new Set(plan.grouping.tasks);
  let tasksChangedContainer = 0;
  for (const [t, v] of taskInfo) {
    const before = prev.taskContainer.get(t);
    if (before !== undefined && before !== v.c) tasksChangedContainer++;
  }
  const configChanged: string[] = [];
  if (snap.config.size > 0) {
    for (const [k, v] of plan.config.map) if (snap.config.get(k) !== v) configChanged.push(k);
    for (const k of snap.config.keys()) if (!plan.config.map.has(k)) configChanged.push(k);
  }
  return {
    sspsNew,
    sspsMoved,
    sspsGone,
    movedExamples,
    tasksAdded: prevTasks.size === 0 ? [] : [...nowTasks].filter((t) => !prevTasks.has(t)).sort(byCodeUnits),
    tasksRemoved: [...prevTasks].filter((t) => !nowTasks.has(t)).sort(byCodeUnits),
    tasksChangedContainer,
    configChanged: configChanged.sort(),
  };
}
