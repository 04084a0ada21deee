// The read/compute/write cycle (Samza's JobModelHelper.newJobModel): read the
// previous assignment, changelog map and container map from the store,
// calculate the new JobModel, write it back with exactly one batch.
//
// Each message type is read from the store once; the new state is an overlay
// of puts and deletes on that snapshot, and only the overlay entries that
// differ from the snapshot are written.
import { calculateJobModel, type JobInput, type JobModelPlan, type PlanOptions, type PreviousState } from './plan.js';
import { containerLayouts, taskNameIn } from './job-model.js';
import {
  TYPES,
  baseCountRecord,
  changelogRecord,
  configRecord,
  previousTaskToSsps,
  readBaseCounts,
  readChangelogMapping,
  readConfig,
  readContainerHosts,
  readTaskAssignment,
  readTaskModes,
  readTaskPartitionAssignments,
  parseSspKey,
  sspKeyJson,
  type StoredAssignment,
} from './managers.js';
import { compareJava, type TaskMode } from './model.js';
import type { CoordinatorStoreLike, StoreRecord } from './store-types.js';

export interface StoreSnapshot {
  previous: PreviousState;
  assignment: StoredAssignment;
  config: Map<string, string>;
  /** The raw key -> values map of every type read. */
  entries: Map<string, Map<string, unknown>>;
}

/** Reads every type the planner needs, each once. */
export function readPrevious(store: CoordinatorStoreLike): StoreSnapshot {
  const entries = new Map<string, Map<string, unknown>>();
  const once: CoordinatorStoreLike = {
    get: (type, key) => once.entries(type).get(key),
    entries: (type) => {
      let m = entries.get(type);
      if (m === undefined) entries.set(type, (m = store.entries(type)));
      return m;
    },
    put: () => {
      throw new Error('read only');
    },
    delete: () => {
      throw new Error('read only');
    },
    writeBatch: () => {
      throw new Error('read only');
    },
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
  /** Canonical SSP key -> its active task ('' when in several), broadcast SSPs aside. */
  owner: Map<string, string>;
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
  const owner = new Map<string, string>();
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
        const key = keyOf(k);
        add(key, name);
        if (layout.replica < 0) owner.set(key, owner.has(key) ? '' : name);
      }
      for (const key of shared) add(key, name);
    }
  }
  for (const key of shared) owner.delete(key);
  for (const tasks of sspTasks.values()) if (tasks.length > 1) tasks.sort(compareJava);
  return { sspTasks, taskInfo, owner };
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

function sameValue(type: string, a: unknown, b: unknown): boolean {
  // The SSP assignment is the one large type: compare its single field without serialising.
  if (type === TYPES.taskPartition && typeof a === 'object' && a !== null && typeof b === 'object' && b !== null) {
    const ka = Object.keys(a);
    return ka.length === 1 && ka[0] === 'taskNames' && Object.keys(b).length === 1 && (a as { taskNames: unknown }).taskNames === (b as { taskNames: unknown }).taskNames;
  }
  return sameJson(a, b);
}

export function runCycle(store: CoordinatorStoreLike, job: JobInput, options: PlanOptions = {}): CycleResult {
  const warnings: string[] = [];
  const warn = (m: string): void => {
    warnings.push(m);
    options.warn?.(m);
  };
  // 1. Read.
  const snap = readPrevious(store);
  const prev = snap.previous;
  const stored = (type: string): Map<string, unknown> => snap.entries.get(type) ?? new Map();
  // 2. Compute.
  const plan = calculateJobModel(job, prev, { ...options, warn });
  // 3. Samza's updateTaskAssignments, as an overlay on the snapshot.
  const { sspTasks, taskInfo, owner } = modelMaps(plan);
  const o = new Overlay();
  const prevActive = [...prev.taskContainer.keys()].filter((t) => (prev.taskModes.get(t) ?? 'Active') === 'Active');
  const activeNow = plan.grouping.tasks.length;
  if (prev.taskContainer.size > 0 && activeNow !== prevActive.length) {
    warn(`Current task count ${activeNow} does not match saved task count ${prevActive.length}. Stateful jobs may observe misalignment of keys!`);
    for (const t of stored(TYPES.taskContainer).keys()) o.delete(TYPES.taskContainer, t);
    for (const t of stored(TYPES.taskMode).keys()) o.delete(TYPES.taskMode, t);
    // (The current SSPs' assignment entries are deleted too, and rewritten just below.)
  }
  const prevStandby = [...prev.taskModes].filter(([, m]) => m === 'Standby').map(([t]) => t).sort(compareJava);
  const nowStandby = [...taskInfo].filter(([, v]) => v.mode === 'Standby').map(([t]) => t).sort(compareJava);
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
  const hasOld = snap.assignment.oldKeys.size > 0;
  for (const [key, tasks] of sspTasks) {
    // One canonical key form: older keys for the same SSP are replaced.
    if (hasOld) for (const old of snap.assignment.oldKeys.get(key) ?? []) o.delete(TYPES.taskPartition, old);
    o.set(TYPES.taskPartition, key, { taskNames: tasks.length === 1 ? `[${JSON.stringify(tasks[0])}]` : JSON.stringify(tasks) });
  }
  if (plan.mapper === 'base') {
    // Base mode drops entries of SSPs that no longer exist (Samza keeps them stale).
    for (const key of stored(TYPES.taskPartition).keys()) if (!sspTasks.has(key)) o.delete(TYPES.taskPartition, key);
  }
  // 4. Changelog: the new mapping overlaid with the previous one (previous entries win).
  for (const [t, v] of taskInfo) if (!prev.changelog.has(t)) o.set(TYPES.changelog, t, changelogRecord(t, v.changelog).value);
  for (const [name, base] of plan.baseCounts) o.set(TYPES.baseCount, name, baseCountRecord(name, base).value);
  for (const k of stored(TYPES.config).keys()) if (!plan.config.map.has(k)) o.delete(TYPES.config, k);
  for (const [k, v] of plan.config.map) o.set(TYPES.config, k, configRecord(k, v).value);

  const records: StoreRecord[] = [];
  for (const [type, m] of o.types) {
    const before = stored(type);
    for (const [k, v] of m) {
      if (v === null) {
        if (before.has(k)) records.push({ type, key: k, value: null });
      } else if (!before.has(k) || !sameValue(type, before.get(k), v)) {
        records.push({ type, key: k, value: v });
      }
    }
  }
  if (records.length > 0) store.writeBatch(records);

  return { plan, changes: diff(snap, plan, sspTasks, taskInfo, owner), recordsWritten: records.length, warnings };
}

function diff(snap: StoreSnapshot, plan: JobModelPlan, sspTasks: ModelMaps['sspTasks'], taskInfo: Map<string, TaskInfo>, owner: Map<string, string>): Changes {
  const prev = snap.previous;
  let sspsNew = 0;
  let sspsMoved = 0;
  const movedExamples: string[] = [];
  for (const [key, task] of owner) {
    if (task === '') continue;
    const before = snap.assignment.sspToTasks.get(key)?.tasks.filter((t) => (prev.taskModes.get(t) ?? 'Active') === 'Active');
    if (before === undefined || before.length === 0) sspsNew++;
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
    tasksAdded: prevTasks.size === 0 ? [] : [...nowTasks].filter((t) => !prevTasks.has(t)).sort(compareJava),
    tasksRemoved: [...prevTasks].filter((t) => !nowTasks.has(t)).sort(compareJava),
    tasksChangedContainer,
    configChanged: configChanged.sort(),
  };
}
