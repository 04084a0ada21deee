// The read/compute/write cycle (Samza's JobModelHelper.newJobModel): read the
// previous assignment, changelog map and container map from the store,
// calculate the new JobModel, write it back with exactly one batch.
import { calculateJobModel, type JobInput, type JobModelPlan, type PlanOptions, type PreviousState } from './plan.js';
import { containerLayouts, taskNameIn } from './job-model.js';
import { rowSsp } from './grouping.js';
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
  sspKeyJson,
  taskContainerRecords,
  taskPartitionRecord,
  type StoredAssignment,
} from './managers.js';
import { compareJava, sspId, type SSP, type TaskMode } from './model.js';
import type { CoordinatorStoreLike, StoreRecord } from './store-types.js';

export interface StoreSnapshot {
  previous: PreviousState;
  assignment: StoredAssignment;
  config: Map<string, string>;
}

export function readPrevious(store: CoordinatorStoreLike): StoreSnapshot {
  const assignment = readTaskPartitionAssignments(store);
  const taskModes = readTaskModes(store);
  return {
    previous: {
      baseCounts: readBaseCounts(store),
      taskToSsps: previousTaskToSsps(assignment, taskModes),
      changelog: readChangelogMapping(store),
      taskContainer: readTaskAssignment(store),
      taskModes,
      containerHosts: readContainerHosts(store),
    },
    assignment,
    config: readConfig(store),
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

/** Task names of each SSP in the new model (active and standby), sorted; plus task -> container/mode. */
function modelMaps(plan: JobModelPlan): { sspTasks: Map<string, { ssp: SSP; tasks: string[] }>; taskContainer: Map<string, { c: string; mode: TaskMode; changelog: number }> } {
  const g = plan.grouping;
  const sspTasks = new Map<string, { ssp: SSP; tasks: string[] }>();
  const taskContainer = new Map<string, { c: string; mode: TaskMode; changelog: number }>();
  const everyTaskIds = g.everyTask.map(sspId);
  for (const layout of containerLayouts(plan)) {
    for (const t of layout.tasks) {
      const name = taskNameIn(plan, layout, t);
      taskContainer.set(name, { c: layout.id, mode: layout.replica < 0 ? 'Active' : 'Standby', changelog: plan.changelog[t]! });
      const add = (s: SSP, id: string): void => {
        let e = sspTasks.get(id);
        if (e === undefined) sspTasks.set(id, (e = { ssp: s, tasks: [] }));
        e.tasks.push(name);
      };
      for (let i = g.taskStart[t]!; i < g.taskStart[t + 1]!; i++) {
        const s = rowSsp(g, i);
        add(s, sspId(s));
      }
      g.everyTask.forEach((s, k) => add(s, everyTaskIds[k]!));
    }
  }
  for (const e of sspTasks.values()) e.tasks.sort(compareJava);
  return { sspTasks, taskContainer };
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

export function runCycle(store: CoordinatorStoreLike, job: JobInput, options: PlanOptions = {}): CycleResult {
  const warnings: string[] = [];
  const warn = (m: string): void => {
    warnings.push(m);
    options.warn?.(m);
  };
  // 1. Read.
  const snap = readPrevious(store);
  const prev = snap.previous;
  // 2. Compute.
  const plan = calculateJobModel(job, prev, { ...options, warn });
  // 3. Samza's updateTaskAssignments, applied to a copy of the stored state, then diffed.
  const { sspTasks, taskContainer } = modelMaps(plan);
  const target = new Map<string, Map<string, unknown>>();
  const current = (type: string): Map<string, unknown> => {
    let m = target.get(type);
    if (m === undefined) target.set(type, (m = store.entries(type)));
    return m;
  };
  const tc = current(TYPES.taskContainer);
  const tm = current(TYPES.taskMode);
  const tp = current(TYPES.taskPartition);
  const prevActive = [...prev.taskContainer.keys()].filter((t) => (prev.taskModes.get(t) ?? 'Active') === 'Active');
  const activeNow = plan.grouping.tasks.length;
  if (prev.taskContainer.size > 0 && activeNow !== prevActive.length) {
    warn(`Current task count ${activeNow} does not match saved task count ${prevActive.length}. Stateful jobs may observe misalignment of keys!`);
    tc.clear();
    tm.clear();
    for (const e of sspTasks.values()) for (const k of snap.assignment.keysOf.get(sspId(e.ssp)) ?? []) tp.delete(k);
  }
  const prevStandby = [...prev.taskModes].filter(([, m]) => m === 'Standby').map(([t]) => t).sort(compareJava);
  const nowStandby = [...taskContainer].filter(([, v]) => v.mode === 'Standby').map(([t]) => t).sort(compareJava);
  if (!same(prevStandby, nowStandby)) for (const t of prevStandby) { tc.delete(t); tm.delete(t); }
  for (const [t, v] of taskContainer) {
    tc.set(t, { containerId: v.c });
    tm.set(t, { taskMode: v.mode });
  }
  for (const e of sspTasks.values()) {
    // One canonical key form: an older key for the same SSP is replaced.
    for (const k of snap.assignment.keysOf.get(sspId(e.ssp)) ?? []) if (k !== sspKeyJson(e.ssp)) tp.delete(k);
    tp.set(sspKeyJson(e.ssp), taskPartitionRecord(e.ssp, e.tasks).value);
  }
  if (plan.mapper === 'base') {
    // Base mode drops entries of SSPs that no longer exist (Samza keeps them stale).
    for (const [id, keys] of snap.assignment.keysOf) if (!sspTasks.has(id)) for (const k of keys) tp.delete(k);
  }
  // 4. Changelog: the new mapping overlaid with the previous one (previous entries win).
  const cl = current(TYPES.changelog);
  for (const [t, v] of taskContainer) if (!prev.changelog.has(t)) cl.set(t, changelogRecord(t, v.changelog).value);
  const bc = current(TYPES.baseCount);
  for (const [name, base] of plan.baseCounts) bc.set(name, baseCountRecord(name, base).value);
  const cf = current(TYPES.config);
  for (const k of [...cf.keys()]) if (!plan.config.map.has(k)) cf.delete(k);
  for (const [k, v] of plan.config.map) cf.set(k, configRecord(k, v).value);

  const records: StoreRecord[] = [];
  for (const [type, m] of target) {
    const before = store.entries(type);
    for (const [k, v] of m) if (!before.has(k) || !same(before.get(k), v)) records.push({ type, key: k, value: v });
    for (const k of before.keys()) if (!m.has(k)) records.push({ type, key: k, value: null });
  }
  if (records.length > 0) store.writeBatch(records);

  return { plan, changes: diff(snap, plan, sspTasks, taskContainer), recordsWritten: records.length, warnings };
}

function diff(
  snap: StoreSnapshot,
  plan: JobModelPlan,
  sspTasks: Map<string, { ssp: SSP; tasks: string[] }>,
  taskContainer: Map<string, { c: string; mode: TaskMode; changelog: number }>,
): Changes {
  const prev = snap.previous;
  const prevOwner = new Map<string, string>();
  for (const [t, list] of prev.taskToSsps) for (const s of list) prevOwner.set(sspId(s), t);
  const nowOwner = new Map<string, { ssp: SSP; task: string }>();
  const everyTask = new Set(plan.grouping.everyTask.map(sspId));
  for (const [id, e] of sspTasks) {
    if (everyTask.has(id)) continue;
    const active = e.tasks.filter((t) => taskContainer.get(t)?.mode === 'Active');
    if (active.length === 1) nowOwner.set(id, { ssp: e.ssp, task: active[0]! });
  }
  let sspsNew = 0;
  let sspsMoved = 0;
  const movedExamples: string[] = [];
  for (const [id, { ssp: s, task }] of nowOwner) {
    const before = prevOwner.get(id);
    if (before === undefined) sspsNew++;
    else if (before !== task) {
      sspsMoved++;
      if (movedExamples.length < 5) movedExamples.push(`${s.system}.${s.stream}#${s.partition}${s.keyBucket === -1 ? '' : `/${s.keyBucket}`}: ${before} -> ${task}`);
    }
  }
  let sspsGone = 0;
  for (const id of prevOwner.keys()) if (!sspTasks.has(id)) sspsGone++;
  const prevTasks = new Set(prev.taskToSsps.keys());
  const nowTasks = new Set(plan.grouping.tasks);
  let tasksChangedContainer = 0;
  for (const [t, v] of taskContainer) {
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
