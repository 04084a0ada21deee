// The read/compute/write cycle (Samza's JobModelHelper.newJobModel): read the previous assignment,
// changelog map and container map from the store, calculate the new JobModel, write it back with
// exactly one batch.
//
// The per-task types are read from the store once, as one task table when the store holds them so.
// The SSP assignment, the one type that grows with
// the job, is compared and written as columns (one row per SSP, a list id per row); the per-task
// types as an overlay of puts and deletes on the snapshot. Only what differs is written.
import { calculateJobModel, type JobSpec, type JobModelPlan, type PlanOptions, type PreviousState } from './plan.js';
import { taskNames as planTaskNames } from './grouping.js';
import { containerLayouts } from './job-model.js';
import { standbyTaskName } from './container-groupers.js';
import {
  TYPES,
  activeTaskOf,
  baseCountRecord,
  changelogColumn,
  configRecord,
  field,
  LazyTaskToSsps,
  previousPartitionCounts,
  previousRowsOfAssignment,
  readBaseCounts,
  readConfig,
  readContainerHosts,
  readStoredAssignment,
  type PreviousAssignment,
} from './managers.js';
import { type TaskMode } from './model.js';
import type { CoordinatorStoreReader, SspRows, StoreRecord, SyncCoordinatorStore, TaskTable } from './store-types.js';
import { SspTable } from '../coordinator-stream/ssp-table.js';
import { canonicalSspKey, parseCanonical } from '../coordinator-stream/ssp-key.js';
import { ColumnMap, TaskRows } from './task-columns.js';
import { TASK_FIELD_LIST, TASK_FIELDS, taskRecord, type TaskField } from './task-fields.js';
import type { Texts } from '../columns/texts.js';
import { byCodeUnits } from '../basics.js';

/** The field of Samza's value for each single-field type the cycle writes. */
const FIELD: Record<string, string> = {
  ...Object.fromEntries(TASK_FIELD_LIST.map((f) => [f.type, f.field])),
  [TYPES.config]: 'value',
  [TYPES.baseCount]: 'basePartitionCount',
};

/**
 * One stored type as read: a task table (key column and the field's text per row) when every
 * record has Samza's single-field shape, else the raw values.
 */
export class StoredType {
  constructor(
    readonly field: string,
    readonly raw: Map<string, unknown> | undefined,
    readonly cols?: { rows: TaskRows; vals: Texts },
  ) {}

  /** A type read from a task table (of its own, or shared with the other per-task types). */
  static ofTable(field: string, rows: TaskRows, vals: Texts): StoredType {
    return new StoredType(field, undefined, { rows, vals });
  }

  /** Whether a record of `k` is stored; `hint` is the row to try first (columns only). */
  has(k: string, hint = -1): boolean {
    if (this.cols !== undefined) return this.cols.rows.rowOf(k, hint) >= 0;
    return this.raw!.has(k);
  }

  keys(): IterableIterator<string> {
    if (this.cols !== undefined) return allTexts(this.cols.rows.keys);
    return this.raw!.keys();
  }

  /** Whether the stored value is exactly { [field]: v }; `hint` is the row to try first, or `k`'s row when `aligned` (columns only). */
  holds(k: string, v: string, hint = -1, aligned = false): boolean {
    if (this.cols !== undefined) {
      const r = aligned ? hint : this.cols.rows.rowOf(k, hint);
      return r >= 0 && this.cols.vals.is(r, v);
    }
    return sameFlat(this.raw!.get(k), { [this.field]: v });
  }
}

function* allTexts(t: Texts): IterableIterator<string> {
  for (let i = 0; i < t.length; i++) yield t.at(i);
}

/** The previous state as the store held it: its per-task maps always as columns, one way to read them. */
export interface StoredPrevious extends PreviousState {
  partitionCounts: Map<string, number>;
  changelog: ColumnMap<number>;
  taskContainer: ColumnMap<string>;
  taskModes: ColumnMap<TaskMode>;
}

export interface StoreSnapshot {
  previous: StoredPrevious;
  assignment: PreviousAssignment;
  config: Map<string, string>;
  /** Every per-task type read (not the SSP assignment). */
  stored: Map<string, StoredType>;
  /** The per-task types' shared key column, when the store holds them in one table. */
  taskRows?: TaskRows;
}

/** Rows over a task table's keys. */
function rowsOf(t: TaskTable): TaskRows {
  return new TaskRows(t.keys, t.rowOf);
}

/** The per-task types as one table of columns, or undefined (their keys differ, or a value has another shape: read them one by one). */
function readTaskColumns(store: CoordinatorStoreReader): { rows: TaskRows; stored: StoredType[]; changelog: ColumnMap<number>; taskContainer: ColumnMap<string>; taskModes: ColumnMap<TaskMode> } | undefined {
  const table = store.taskTable(TASK_FIELD_LIST.map((f) => [f.type, f.field] as const));
  // (Empty, a first plan: empty Maps; columns over no rows would make every lookup a miss by name.)
  if (table === undefined || table.n === 0) return undefined;
  const rows = rowsOf(table);
  const [changelog, containers, modes] = table.values as [Texts, Texts, Texts];
  for (let r = 0; r < rows.n; r++) if (!modes.is(r, 'Active') && !modes.is(r, 'Standby')) return undefined; // parse skips those: read one by one
  return {
    rows,
    stored: [changelog, containers, modes].map((vals, i) => StoredType.ofTable(TASK_FIELD_LIST[i]!.field, rows, vals)),
    changelog: new ColumnMap(rows, changelogColumn(rows.keys, changelog)),
    taskContainer: new ColumnMap(rows, containers),
    taskModes: new ColumnMap<TaskMode>(rows, modes),
  };
}

/** One type as read: its own task table when every record has the single-field shape, else its records. */
function readStoredType(store: CoordinatorStoreReader, type: string): StoredType {
  const field = FIELD[type];
  const table = field === undefined ? undefined : store.taskTable([[type, field]]);
  if (table !== undefined) return StoredType.ofTable(field!, rowsOf(table), table.values[0]!);
  return new StoredType(field ?? '', store.entries(type));
}

/** A per-task field's values from its stored type (task -> value; what `parse` skips is left out). */
function fieldValues<V>(stored: StoredType, f: TaskField<V>): Map<string, V> {
  const out = new Map<string, V>();
  if (stored.cols !== undefined) {
    const { rows, vals } = stored.cols;
    for (let r = 0; r < rows.n; r++) {
      const task = rows.keys.at(r);
      const v = f.parse(vals.at(r), task);
      if (v !== undefined) out.set(task, v);
    }
    return out;
  }
  for (const [task, value] of stored.raw!) {
    const v = f.parse(field(value, f.field), task);
    if (v !== undefined) out.set(task, v);
  }
  return out;
}

/** Reads every type the planner needs: the per-task types once (one table, or one by one), the small ones where needed. */
export function readPrevious(store: CoordinatorStoreReader): StoreSnapshot {
  const cols = readTaskColumns(store);
  const stored = new Map<string, StoredType>();
  if (cols !== undefined) TASK_FIELD_LIST.forEach((f, i) => stored.set(f.type, cols.stored[i]!));
  for (const t of Object.values(TYPES)) if (t !== TYPES.taskPartition && !stored.has(t)) stored.set(t, readStoredType(store, t));
  const assignment = readStoredAssignment(store);
  // Types of another shape were read one by one: their maps become columns too (rare: older Samza).
  const perTask = <V>(f: TaskField<V>): ColumnMap<V> => ColumnMap.of(fieldValues(stored.get(f.type)!, f));
  const taskModes = cols?.taskModes ?? perTask(TASK_FIELDS.mode);
  const previous: StoredPrevious = {
    baseCounts: readBaseCounts(store),
    taskToSsps: new LazyTaskToSsps(assignment, taskModes),
    partitionCounts: previousPartitionCounts(assignment, taskModes),
    changelog: cols?.changelog ?? perTask(TASK_FIELDS.changelog),
    taskContainer: cols?.taskContainer ?? perTask(TASK_FIELDS.container),
    taskModes,
    containerHosts: readContainerHosts(store),
  };
  return { previous, assignment, config: readConfig(store), stored, ...(cols !== undefined ? { taskRows: cols.rows } : {}) };
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
  /** Records in the one batch (0: the store already held this model). A dry run counts what it would write. */
  recordsWritten: number;
  /** Samza's warning when the task count changed. */
  warnings: string[];
  /** Set for prepareCycle results: nothing was written. */
  dryRun?: boolean;
}

/** A computed cycle and the one batch that would store it. */
export interface PreparedCycle extends CycleResult {
  records: StoreRecord[];
  /** set-task-partition-assignment rows (canonical keys); applied after `records`. */
  ssps: SspRows;
}

/** Marks a list id that was merged from several active tasks (an SSP in more than one). */
const SEVERAL = '\u0000';

/**
 * The new SSP assignment in columns: one row per distinct SSP with the sorted names of every task
 * holding it (active and standby), and per row the single active task holding it (or SEVERAL).
 */
interface NewAssignment {
  table: SspTable;
  /** Per row: the index of its active task in plan.grouping.tasks, -1 when shared by several or every task. */
  activeTask: Int32Array;
  /**
   * Set when list id t is task t's name alone for every t (no standby copies, no SSP in several
   * tasks): the texts `["name"]` are then not made (table.lists has holes) until listText asks.
   */
  oneName: Texts | undefined;
}

/** Names of task t and its standby copies, sorted as Samza sorts a task list. */
function namesOfTask(plan: JobModelPlan, t: number): string[] {
  const name = plan.grouping.tasks[t]!;
  const r = plan.settings.replicationFactor;
  if (r <= 1) return [name];
  const out = [name];
  for (let k = 0; k < r - 1; k++) out.push(standbyTaskName(name, k));
  return out.sort(byCodeUnits);
}

/** The taskNames text of list id l of the new assignment. */
function listText(now: NewAssignment, l: number): string {
  const lists = now.table.lists;
  return lists[l] ?? (lists[l] = `[${JSON.stringify(now.oneName!.at(l))}]`);
}

/** Makes every list text not made yet (the whole table is compared or written). */
function makeListTexts(now: NewAssignment): void {
  if (now.oneName !== undefined) for (let l = 0; l < now.table.lists.length; l++) listText(now, l);
}

function newAssignment(plan: JobModelPlan): NewAssignment {
  const g = plan.grouping;
  const taskTexts = planTaskNames(g);
  const T = taskTexts.length;
  const table = new SspTable();
  const rows = g.stream.length;
  table.reserve(rows + g.everyTask.length);
  // List id t is task t's names; lists merged for SSPs held by several tasks come after. Without
  // standby copies a list is one name, and its text is only made when it is written.
  const single = plan.settings.replicationFactor <= 1;
  const lists: string[] = new Array(T);
  if (!single) for (let t = 0; t < T; t++) lists[t] = JSON.stringify(namesOfTask(plan, t));
  table.lists = lists;
  const names = { length: T, at: (t: number): string[] => namesOfTask(plan, t) };
  const streamIds = g.streams.map((s) => table.streamId(s.system, s.stream, true));
  const activeTask = new Int32Array(rows + g.everyTask.length);
  const merged = new Map<number, string[]>();
  // Rows are visited in the order they were produced (stream by stream, partitions ascending), not
  // task by task: sequential memory access, and index lookups that follow each other.
  const taskOf = new Int32Array(rows);
  for (let t = 0; t < T; t++) for (let k = g.taskStart[t]!; k < g.taskStart[t + 1]!; k++) taskOf[g.order[k]!] = t;
  for (let i = 0; i < rows; i++) {
    const t = taskOf[i]!;
    const s = streamIds[g.stream[i]!]!;
    const p = g.partition[i]!;
    const b = g.bucket === null ? -1 : g.bucket[i]!;
    const row = table.add(s, p, b, t, 0);
    if (row < 0) {
      activeTask[table.n - 1] = t;
      continue;
    }
    // The same SSP in another task too (AllSspToSingleTask, broadcast through the samza mapper).
    let all = merged.get(row);
    if (all === undefined) merged.set(row, (all = [...names.at(table.list[row]!)]));
    for (const name of names.at(t)) all.push(name); // (a task's names can be a million: no spread)
    activeTask[row] = -1;
  }
  const now: NewAssignment = { table, activeTask, oneName: single ? taskTexts : undefined };
  if (single && (merged.size > 0 || g.everyTask.length > 0)) {
    // Merged lists are found by text (listId): every one-name text is made first.
    makeListTexts(now);
    now.oneName = undefined;
  }
  for (const [row, all] of merged) table.list[row] = table.listId(JSON.stringify([...new Set(all)].sort(byCodeUnits)));
  if (g.everyTask.length > 0) {
    const every: string[] = [];
    for (let t = 0; t < T; t++) for (const name of names.at(t)) every.push(name);
    const l = table.listId(JSON.stringify(every.sort(byCodeUnits)));
    for (const e of g.everyTask) {
      const s = table.streamId(e.system, e.stream, true);
      table.set(s, e.partition, e.keyBucket, l, 0);
      activeTask[table.find(s, e.partition, e.keyBucket)] = -1;
    }
  }
  return now;
}

/** Whether a stored value equals a flat string map, as JSON text would (same keys, same order, same strings). */
function sameFlat(stored: unknown, v: Record<string, string>): boolean {
  if (typeof stored !== 'object' || stored === null || Array.isArray(stored)) return false;
  const a = Object.keys(stored);
  const b = Object.keys(v);
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i] || (stored as Record<string, unknown>)[a[i]!] !== v[b[i]!]) return false;
  return true;
}

/** Runs the cycle and writes its one batch (nothing when the store already holds the model). */
export function runCycle(store: SyncCoordinatorStore, job: JobSpec, options: PlanOptions = {}): CycleResult {
  const p = prepareCycle(store, job, options);
  if (p.records.length > 0 || p.ssps.n > 0) store.commit(p.records, p.ssps);
  return { plan: p.plan, changes: p.changes, recordsWritten: p.recordsWritten, warnings: p.warnings };
}

/**
 * Reads and computes without writing: the plan, what changed, and the batch that would store it
 * (`plan --dry-run`; a network store commits the batch itself). The store is only read.
 */
export function prepareCycle(store: CoordinatorStoreReader, job: JobSpec, options: PlanOptions = {}): PreparedCycle {
  // Warnings are passed on once the computation stands (or fails).
  const warnings: string[] = [];
  try {
    return prepareWith(store, job, options, warnings);
  } finally {
    for (const w of warnings) options.warn?.(w);
  }
}

function prepareWith(store: CoordinatorStoreReader, job: JobSpec, options: PlanOptions, warnings: string[]): PreparedCycle {
  const warn = (m: string): void => {
    warnings.push(m);
  };
  // 1. Read.
  const snap = readPrevious(store);
  const prev = snap.previous;
  // 2. Compute.
  // The samza mapper reads the whole previous assignment: hand it over flat, from the columns.
  const planPrev = options.mapper === 'samza' ? { ...prev, taskToSsps: previousRowsOfAssignment(snap.assignment, prev.taskModes) } : prev;
  const plan = calculateJobModel(job, planPrev, { ...options, warn });
  const tasks = planTasks(plan);
  // 3. Samza's updateTaskAssignments: every task's container and mode record, after deleting the
  //    previous ones when the task count or the standby set changed.
  const records: StoreRecord[] = [];
  const aligned = taskRecords(snap, tasks, records, warn);
  // The SSP assignment: compared row by row against the stored columns.
  const { rows, changes } = compareAssignments(snap, plan, newAssignment(plan), records);
  // 4. Changelog: the new mapping overlaid with the previous one (previous entries win); base counts and config.
  changelogRecords(snap, tasks, aligned, records);
  planRecords(snap, plan, records);
  // 5. Report.
  return {
    plan,
    changes: { ...changes, ...taskChanges(snap, plan, tasks, aligned, rows.n === 0 && changes.sspsGone === 0) },
    recordsWritten: records.length + rows.n,
    warnings,
    records,
    ssps: rows,
    dryRun: true,
  };
}

/**
 * Every task of a plan (active and standby) in container order, as parallel arrays: no Map of a
 * million names. Task i is grouping task taskOf[i], as standby copy replicaOf[i] (-1: active).
 * Names are made only where they are read: not at all when the stored rows are this plan's tasks
 * in order.
 */
interface PlanTasks {
  total: number;
  taskOf: Int32Array;
  replicaOf: Int32Array;
  containerIds: string[];
  modes: TaskMode[];
  changelog: Int32Array;
  /** The active tasks' names (the grouping's, read in place). */
  names: Texts;
  /** Task i's name, made now. */
  nameOf(i: number): string;
  /**
   * Every task's name, made once when a path reads them all (a store read as Maps, rows in another
   * order), from the grouping's strings (a byte column makes them in one go, not one call each).
   */
  all(): string[];
  /** Task i's name: from all() once made, else nameOf(i). */
  nameAt(i: number): string;
}

function planTasks(plan: JobModelPlan): PlanTasks {
  const layouts = containerLayouts(plan);
  let total = 0;
  for (const layout of layouts) total += layout.tasks.length;
  // (Arrays of their final size: a million pushes would grow and copy them several times.)
  const taskOf = new Int32Array(total);
  const replicaOf = new Int32Array(total);
  const containerIds: string[] = new Array(total);
  const modes: TaskMode[] = new Array(total);
  const changelog = new Int32Array(total);
  let at = 0;
  for (const layout of layouts) {
    const mode: TaskMode = layout.replica < 0 ? 'Active' : 'Standby';
    for (const t of layout.tasks) {
      taskOf[at] = t;
      replicaOf[at] = layout.replica;
      containerIds[at] = layout.id;
      modes[at] = mode;
      changelog[at++] = plan.changelog[t]!;
    }
  }
  const names = planTaskNames(plan.grouping);
  const nameOf = (i: number): string => (replicaOf[i]! < 0 ? names.at(taskOf[i]!) : standbyTaskName(names.at(taskOf[i]!), replicaOf[i]!));
  let allNames: string[] | undefined;
  const all = (): string[] => {
    if (allNames === undefined) {
      const tasks = plan.grouping.tasks;
      allNames = Array.from({ length: total }, (_, i) => (replicaOf[i]! < 0 ? tasks[taskOf[i]!]! : standbyTaskName(tasks[taskOf[i]!]!, replicaOf[i]!)));
    }
    return allNames;
  };
  const nameAt = (i: number): string => (allNames !== undefined ? allNames[i]! : nameOf(i));
  return { total, taskOf, replicaOf, containerIds, modes, changelog, names, nameOf, all, nameAt };
}

/**
 * The container and mode records that differ, and deletes of the previous ones when the task count
 * or the standby set changed. Returns whether the stored rows are this plan's tasks in order.
 */
function taskRecords(snap: StoreSnapshot, tasks: PlanTasks, records: StoreRecord[], warn: (m: string) => void): boolean {
  const prev = snap.previous;
  const { total, taskOf, replicaOf, containerIds, modes: modesNow, names, nameOf, nameAt } = tasks;
  const containers = snap.stored.get(TYPES.taskContainer)!;
  const modes = snap.stored.get(TYPES.taskMode)!;
  const prevActive = countActive(prev.taskContainer, prev.taskModes);
  const activeNow = names.length;
  const deletes = new Set<string>();
  if (prev.taskContainer.size > 0 && activeNow !== prevActive) {
    warn(`Current task count ${activeNow} does not match saved task count ${prevActive}. Stateful jobs may observe misalignment of keys!`);
    for (const t of containers.keys()) deletes.add(t);
    for (const t of modes.keys()) deletes.add(t);
    // (The current SSPs' assignment entries are deleted too, and rewritten just below.)
  }
  for (const t of standbyBeforeIfChanged(prev.taskModes, tasks)) deletes.add(t);
  // Rows were read by position (the plan's changelog lookups): they stand if the stored keys are
  // unique, which is free to see when they are exactly this plan's tasks in order (then row i is
  // task i, with no lookups below). Active tasks' names are compared where they lie.
  const keyRows = snap.taskRows;
  const aligned = keyRows !== undefined && keyRows.verify(total, (r) => (replicaOf[r]! < 0 ? keyRows.isName(r, names, taskOf[r]!) : keyRows.keys.is(r, nameOf(r))));
  // Aligned columns are compared row against task directly (a million tasks: no call per lookup).
  const containerCol = aligned ? containers.cols?.vals : undefined;
  const modeCol = aligned ? modes.cols?.vals : undefined;
  for (let i = 0; i < total; i++) {
    // Row i is the first guess: the records were written in this order.
    const sameContainer = containerCol !== undefined ? containerCol.is(i, containerIds[i]!) : containers.holds(tasks.all()[i]!, containerIds[i]!, i, aligned);
    if (!sameContainer) records.push(taskRecord(TASK_FIELDS.container, nameAt(i), containerIds[i]!));
    const sameMode = modeCol !== undefined ? modeCol.is(i, modesNow[i]!) : modes.holds(tasks.all()[i]!, modesNow[i]!, i, aligned);
    if (!sameMode) records.push(taskRecord(TASK_FIELDS.mode, nameAt(i), modesNow[i]!));
  }
  const current = deletes.size > 0 ? new Set(tasks.all()) : undefined;
  for (const t of deletes) {
    if (current!.has(t)) continue; // rewritten above
    if (containers.has(t)) records.push(taskRecord(TASK_FIELDS.container, t, null));
    if (modes.has(t)) records.push(taskRecord(TASK_FIELDS.mode, t, null));
  }
  return aligned;
}

/** The standby tasks before (by mode record), sorted, when they are not the plan's standby tasks; else none. */
function standbyBeforeIfChanged(prevModes: ColumnMap<TaskMode>, tasks: PlanTasks): string[] {
  const prevStandby = prevModes.keysOf('Standby').sort(byCodeUnits);
  const nowStandby: string[] = [];
  for (let i = 0; i < tasks.total; i++) if (tasks.modes[i] === 'Standby') nowStandby.push(tasks.nameAt(i));
  nowStandby.sort(byCodeUnits);
  return prevStandby.length !== nowStandby.length || prevStandby.some((t, i) => t !== nowStandby[i]) ? prevStandby : [];
}

/** The changelog records of tasks the previous mapping does not hold (previous entries win). */
function changelogRecords(snap: StoreSnapshot, tasks: PlanTasks, aligned: boolean, records: StoreRecord[]): void {
  const changelog = snap.stored.get(TYPES.changelog)!;
  const prevChangelog = snap.previous.changelog;
  for (let i = 0; i < tasks.total; i++) {
    // (Aligned: row i is task i, and the stored changelog is a column over those rows.)
    if (aligned ? prevChangelog.hasRow(i) : prevChangelog.getAt(tasks.all()[i]!, i) !== undefined) continue;
    const p = tasks.changelog[i]!;
    if (!changelog.holds(tasks.nameAt(i), TASK_FIELDS.changelog.write(p), i, aligned)) records.push(taskRecord(TASK_FIELDS.changelog, tasks.nameAt(i), p));
  }
}

/** The base-count and config records that differ from the stored ones. */
function planRecords(snap: StoreSnapshot, plan: JobModelPlan, records: StoreRecord[]): void {
  const bases = snap.stored.get(TYPES.baseCount)!;
  for (const [name, base] of plan.baseCounts) if (!bases.holds(name, String(base))) records.push(baseCountRecord(name, base));
  const config = snap.stored.get(TYPES.config)!;
  for (const k of config.keys()) if (!plan.config.map.has(k)) records.push(configRecord(k, null));
  for (const [k, v] of plan.config.map) if (!config.holds(k, v)) records.push(configRecord(k, v));
}

/** The report's task and config changes. `sspsSame`: no SSP row changed or went. */
function taskChanges(snap: StoreSnapshot, plan: JobModelPlan, tasks: PlanTasks, aligned: boolean, sspsSame: boolean): Pick<Changes, 'tasksAdded' | 'tasksRemoved' | 'tasksChangedContainer' | 'configChanged'> {
  const prev = snap.previous;
  // Tasks added and removed: when the assignment is unchanged, no task is standby and there are no
  // standby copies, the tasks holding SSPs are the same before and after, so no set of names is built.
  const same = sspsSame && snap.assignment.extra.size === 0 && plan.settings.replicationFactor <= 1 && !prev.taskModes.includes('Standby');
  const prevTasks = same ? undefined : previousActiveTasks(snap);
  // (No set of a million names for a first plan: with no task before, none was added or removed.)
  const nowTasks = prevTasks === undefined || prevTasks.size === 0 ? undefined : new Set(plan.grouping.tasks);
  let tasksChangedContainer = 0;
  const tc = prev.taskContainer;
  const ids = tasks.containerIds;
  for (let i = 0; i < tasks.total; i++) {
    if (aligned ? tc.differsAtRow(i, ids[i]!) : tc.differsAt(tasks.all()[i]!, i, false, ids[i]!)) tasksChangedContainer++;
  }
  const configChanged: string[] = [];
  if (snap.config.size > 0) {
    for (const [k, v] of plan.config.map) if (snap.config.get(k) !== v) configChanged.push(k);
    for (const k of snap.config.keys()) if (!plan.config.map.has(k)) configChanged.push(k);
  }
  return {
    tasksAdded: nowTasks === undefined ? [] : [...nowTasks].filter((t) => !prevTasks!.has(t)).sort(byCodeUnits),
    tasksRemoved: nowTasks === undefined ? [] : [...prevTasks!].filter((t) => !nowTasks.has(t)).sort(byCodeUnits),
    tasksChangedContainer,
    configChanged: configChanged.sort(),
  };
}
/** Tasks with a container record that are active (no mode record: active). */
function countActive(containers: ColumnMap<string>, modes: ColumnMap<TaskMode>): number {
  let n = 0;
  if (containers.rows === modes.rows) {
    // Same rows: compared row by row, no lookups (every row of a full column has a value).
    if (containers.size === containers.rows.n) return containers.size - modes.count('Standby');
    for (let r = 0; r < containers.rows.n; r++) if (containers.hasRow(r) && !modes.isAt(r, 'Standby')) n++;
    return n;
  }
  for (const t of containers.keys()) if ((modes.get(t) ?? 'Active') === 'Active') n++;
  return n;
}

/** Active tasks that held SSPs before (the keys of Samza's previousTaskToSSPAssignment), without inverting it. */
function previousActiveTasks(snap: StoreSnapshot): Set<string> {
  const a = snap.assignment;
  const modes = snap.previous.taskModes;
  const used = new Uint8Array(a.listTasks.length);
  for (let r = 0; r < a.table.rows; r++) if (a.table.list[r]! >= 0) used[a.table.list[r]!] = 1;
  const out = new Set<string>();
  const add = (tasks: readonly string[]): void => {
    for (const t of tasks) if ((modes.get(t) ?? 'Active') === 'Active') out.add(t);
  };
  for (let l = 0; l < used.length; l++) if (used[l] === 1) add(a.listTasks.at(l));
  for (const { tasks } of a.extra.values()) add(tasks);
  return out;
}

type SspChanges = Pick<Changes, 'sspsNew' | 'sspsMoved' | 'sspsGone' | 'movedExamples'>;

/**
 * Compares the new assignment with the stored one: changed rows go to the returned SspRows, key
 * deletions of other forms to `records`; counts new, moved and gone SSPs for the report.
 */
function compareAssignments(snap: StoreSnapshot, plan: JobModelPlan, now: NewAssignment, records: StoreRecord[]): { rows: SspRows; changes: SspChanges } {
  const matched = matchRows(snap, plan, now, records);
  const { sspsGone, gone } = goneRows(snap, plan, now, matched.seen, records);
  const changes = { sspsNew: matched.sspsNew, sspsMoved: matched.sspsMoved, sspsGone, movedExamples: matched.movedExamples };
  return { rows: rowsToWrite(snap, now, matched.changed, matched.nChanged, gone), changes };
}

/** The new SSP's canonical key (row r of the new table). */
function newKeyOf(nt: SspTable, r: number): string {
  const s = nt.streams[nt.stream[r]!]!;
  return canonicalSspKey(s.system, s.stream, nt.partition[r]!, nt.bucket[r]!);
}

/** How the stored list of a row compares with the new one: by small ids, by the one task name, or by text. */
function listComparer(snap: StoreSnapshot, now: NewAssignment): (ol: number, nl: number) => boolean {
  const a = snap.assignment;
  const nt = now.table;
  // The stored texts are read in place (the store may hold them as bytes).
  const oldTexts = a.listTexts;
  // List texts as small integers, so rows compare by number: equal text, equal id. Only worth it
  // when lists are few and shared by many rows (GroupByPartition); with a list per row (a task per
  // SSP) the strings are compared directly, or against the task's name (oneName).
  if (nt.lists.length + oldTexts.length < nt.n / 4) {
    makeListTexts(now);
    const textIds = new Map<string, number>();
    const textId = (t: string): number => {
      let id = textIds.get(t);
      if (id === undefined) textIds.set(t, (id = textIds.size));
      return id;
    };
    const newText = Int32Array.from(nt.lists, textId);
    const oldText = Int32Array.from(a.table.lists, textId);
    return (ol, nl) => oldText[ol] === newText[nl];
  }
  const oneName = now.oneName;
  // A plain one-name text (checked when read) holding exactly this name is the text JSON.stringify makes.
  if (oneName !== undefined) return (ol, nl) => (a.listTasks.isPlainOne(ol) ? a.listTasks.isOneName(ol, oneName, nl) : oldTexts.is(ol, listText(now, nl)));
  return (ol, nl) => oldTexts.is(ol, nt.lists[nl]!);
}

/** Row by row of the new table: which rows changed, which stored rows were seen, and new and moved SSPs. */
function matchRows(snap: StoreSnapshot, plan: JobModelPlan, now: NewAssignment, records: StoreRecord[]) {
  const a = snap.assignment;
  const old = a.table;
  const nt = now.table;
  const dropStale = plan.mapper === 'base';
  const modes = snap.previous.taskModes;
  const standbyBefore = modes.includes('Standby');
  const activeBefore = (t: string): boolean => (modes.get(t) ?? 'Active') === 'Active';
  const oldStream = nt.streams.map((s) => old.streamId(s.system, s.stream));
  const oneName = now.oneName;
  const planNames = oneName ?? planTaskNames(plan.grouping);
  const sameList = listComparer(snap, now);
  const seen = new Uint8Array(old.rows);
  const changed = new Int32Array(nt.n);
  let nChanged = 0;
  let sspsNew = 0;
  let sspsMoved = 0;
  const movedExamples: string[] = [];
  for (let r = 0; r < nt.n; r++) {
    const os = oldStream[nt.stream[r]!]!;
    const orow = os < 0 ? -1 : old.findById(os, nt.partition[r]!, nt.bucket[r]!);
    const t = now.activeTask[r]!;
    let before = ''; // the SSP's single active task before ('' none, SEVERAL more than one)
    let own = false; // ... or this row's task itself (known without its name)
    if (orow >= 0) {
      seen[orow] = 1;
      const ol = old.list[orow]!;
      const same = sameList(ol, nt.list[r]!);
      if (!same) changed[nChanged++] = r;
      // Unchanged `["name"]` with no standby before: its one active task was this row's task.
      if (same && oneName !== undefined && !standbyBefore) own = true;
      else if (t >= 0) before = activeTaskOf(a.listTasks.at(ol), modes, standbyBefore);
    } else {
      changed[nChanged++] = r;
      if (a.extra.size > 0) {
        const e = a.extra.get(newKeyOf(nt, r));
        if (e !== undefined) {
          const act = e.tasks.filter(activeBefore);
          before = act.length === 0 ? '' : act.length === 1 ? act[0]! : SEVERAL;
        }
      }
    }
    if (a.oldKeys.size > 0 && !dropStale) for (const k of a.oldKeys.get(newKeyOf(nt, r)) ?? []) records.push({ type: TYPES.taskPartition, key: k, value: null });
    if (t < 0 || own) continue; // in several tasks or every task: not counted, as before; or where it was
    if (before === '') sspsNew++;
    else if (before !== SEVERAL && !planNames.is(t, before)) {
      sspsMoved++;
      if (movedExamples.length < 5) {
        const s = nt.streams[nt.stream[r]!]!;
        const b = nt.bucket[r]!;
        movedExamples.push(`${s.system}.${s.stream}#${nt.partition[r]}${b === -1 ? '' : `/${b}`}: ${before} -> ${plan.grouping.tasks[t]}`);
      }
    }
  }
  return { seen, changed, nChanged, sspsNew, sspsMoved, movedExamples };
}

/**
 * SSPs stored but no longer in the model: counted; the base mapper deletes them (and every
 * older-form key, into `records`); Samza keeps them. Returns the stored rows to delete.
 */
function goneRows(snap: StoreSnapshot, plan: JobModelPlan, now: NewAssignment, seen: Uint8Array, records: StoreRecord[]): { sspsGone: number; gone: number[] } {
  const a = snap.assignment;
  const old = a.table;
  const nt = now.table;
  const dropStale = plan.mapper === 'base';
  let sspsGone = 0;
  const gone: number[] = [];
  for (let r = 0; r < old.rows; r++) {
    if (old.list[r]! < 0 || seen[r] === 1) continue;
    sspsGone++;
    if (dropStale) gone.push(r);
  }
  for (const { ssp: s } of a.extra.values()) {
    const sid = nt.streamId(s.system, s.stream, false);
    if (sid < 0 || nt.find(sid, s.partition, s.keyBucket) < 0) sspsGone++;
  }
  if (dropStale) {
    // Every older-form key goes (the canonical one replaces it); a canonical one when its SSP is gone.
    for (const key of old.others().keys()) {
      const c = parseCanonical(key);
      const sid = c === undefined ? -1 : nt.streamId(c.system, c.stream, false);
      if (sid < 0 || nt.find(sid, c!.partition, c!.bucket) < 0) records.push({ type: TYPES.taskPartition, key, value: null });
    }
  }
  return { sspsGone, gone };
}

/** The rows to write: the changed rows of the new table, then tombstones for the gone stored rows. */
function rowsToWrite(snap: StoreSnapshot, now: NewAssignment, changed: Int32Array, nChanged: number, gone: readonly number[]): SspRows {
  const old = snap.assignment.table;
  const nt = now.table;
  if (gone.length === 0 && nChanged === nt.n) {
    // Everything changed (a first plan): the new table's columns are the rows, no copy.
    let anyBucket = false;
    for (let r = 0; r < nt.n && !anyBucket; r++) if (nt.bucket[r] !== -1) anyBucket = true;
    makeListTexts(now);
    return { streams: nt.streams, lists: nt.lists, n: nt.n, stream: nt.stream, partition: nt.partition, bucket: anyBucket ? nt.bucket : null, list: nt.list };
  }
  const n = nChanged + gone.length;
  const streams = nt.streams.slice();
  const streamIdOf = new Map<number, number>();
  // Only the lists the changed rows use are written (one changed SSP of a million-task job writes one).
  const lists: string[] = [];
  const listOf = new Int32Array(nt.lists.length).fill(-1);
  const out: SspRows = { streams, lists, n, stream: new Int32Array(n), partition: new Int32Array(n), bucket: null, list: new Int32Array(n) };
  const bucket = new Int32Array(n);
  let anyBucket = false;
  let w = 0;
  for (let i = 0; i < nChanged; i++) {
    const r = changed[i]!;
    const l = nt.list[r]!;
    if (listOf[l] === -1) {
      listOf[l] = lists.length;
      lists.push(listText(now, l));
    }
    out.stream[w] = nt.stream[r]!;
    out.partition[w] = nt.partition[r]!;
    bucket[w] = nt.bucket[r]!;
    out.list[w] = listOf[l]!;
    if (bucket[w] !== -1) anyBucket = true;
    w++;
  }
  for (const r of gone) {
    const os = old.stream[r]!;
    let id = streamIdOf.get(os);
    if (id === undefined) {
      const st = old.streams[os]!;
      id = nt.streamId(st.system, st.stream, false);
      if (id < 0) {
        id = streams.length;
        streams.push(st);
      }
      streamIdOf.set(os, id);
    }
    out.stream[w] = id;
    out.partition[w] = old.partition[r]!;
    bucket[w] = old.bucket[r]!;
    out.list[w] = -1;
    if (bucket[w] !== -1) anyBucket = true;
    w++;
  }
  if (anyBucket) out.bucket = bucket;
  return out;
}
