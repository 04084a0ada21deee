// The JobModel a plan describes: as objects (API, small jobs) or as JSON text
// produced in chunks (the CLI; large jobs never hold the whole text at once).
import { standbyContainerId, standbyTaskName } from './container-groupers.js';
import { taskSsps, type Grouping } from './grouping.js';
import type { JobModelPlan } from './plan.js';
import { compareSystemStream, type ContainerModel, type SSP, type TaskModel } from './model.js';

export interface JobModel {
  config: Map<string, string>;
  /** Active containers in grouper order, then standby containers (`<id>-<r>`). */
  containers: ContainerModel[];
  maxChangeLogStreamPartitions: number;
}

/** One container's tasks: indices into plan.grouping.tasks, name-sorted. */
export interface ContainerLayout {
  id: string;
  tasks: number[];
  /** -1 for active containers, else the standby replica number r. */
  replica: number;
}

export function containerLayouts(plan: JobModelPlan): ContainerLayout[] {
  const { ids, containerOf } = plan.containers;
  const active: ContainerLayout[] = ids.map((id) => ({ id, tasks: [], replica: -1 }));
  for (let t = 0; t < containerOf.length; t++) active[containerOf[t]!]!.tasks.push(t);
  const out = [...active];
  const r = plan.settings.replicationFactor;
  if (r > 1) for (const c of [...out]) for (let k = 0; k < r - 1; k++) out.push({ id: standbyContainerId(c.id, k), tasks: c.tasks, replica: k });
  return out;
}

export function taskNameIn(plan: JobModelPlan, layout: ContainerLayout, t: number): string {
  const name = plan.grouping.tasks[t]!;
  return layout.replica < 0 ? name : standbyTaskName(name, layout.replica);
}

export function toJobModel(plan: JobModelPlan): JobModel {
  const g: Grouping = plan.grouping;
  const containers: ContainerModel[] = containerLayouts(plan).map((c) => ({
    id: c.id,
    tasks: c.tasks.map(
      (t): TaskModel => ({
        taskName: taskNameIn(plan, c, t),
        ssps: taskSsps(g, t),
        changelogPartition: plan.changelog[t]!,
        mode: c.replica < 0 ? 'Active' : 'Standby',
      }),
    ),
  }));
  return { config: new Map(plan.config.map), containers, maxChangeLogStreamPartitions: plan.maxChangeLogStreamPartitions };
}

const q = JSON.stringify;

function sspJson(s: SSP): string {
  return s.keyBucket === -1
    ? `{"system":${q(s.system)},"stream":${q(s.stream)},"partition":${s.partition}}`
    : `{"system":${q(s.system)},"stream":${q(s.stream)},"partition":${s.partition},"keyBucket":${s.keyBucket}}`;
}

interface JsonParts {
  /** `{"system":..,"stream":..,"partition":` per stream of the rows. */
  prefixes: string[];
  /** The every-task SSPs as JSON, in SSP order. */
  shared: string[];
  /** Their stream as a sort key against the rows' streams: 2j+1 for rows' stream j, 2j between streams j-1 and j. */
  sharedStream: Int32Array;
}

const partsCache = new WeakMap<Grouping, JsonParts>();

function jsonParts(g: Grouping): JsonParts {
  let parts = partsCache.get(g);
  if (parts !== undefined) return parts;
  const sharedStream = new Int32Array(g.everyTask.length);
  g.everyTask.forEach((e, k) => {
    let j = 0;
    while (j < g.streams.length && compareSystemStream(g.streams[j]!, e) < 0) j++;
    sharedStream[k] = j < g.streams.length && compareSystemStream(g.streams[j]!, e) === 0 ? 2 * j + 1 : 2 * j;
  });
  parts = {
    prefixes: g.streams.map((s) => `{"system":${q(s.system)},"stream":${q(s.stream)},"partition":`),
    shared: g.everyTask.map(sspJson),
    sharedStream,
  };
  partsCache.set(g, parts);
  return parts;
}

/**
 * Task t's SSP list as JSON, straight from the flat rows: its rows (already in SSP order) merged with
 * the every-task SSPs (sorted), with no SSP objects even when broadcast inputs join every task.
 */
function taskSspsJson(g: Grouping, t: number): string {
  const { prefixes, shared, sharedStream } = jsonParts(g);
  const bucket = (i: number): number => (g.bucket === null ? -1 : g.bucket[i]!);
  let out = '';
  let e = 0;
  const emitShared = (): void => {
    out += out.length > 0 ? `,${shared[e]}` : shared[e]!;
    e++;
  };
  for (let k = g.taskStart[t]!; k < g.taskStart[t + 1]!; k++) {
    const i = g.order[k]!;
    const st = 2 * g.stream[i]! + 1;
    const p = g.partition[i]!;
    const b = bucket(i);
    // Every-task SSPs that sort before this row; an equal one is the same SSP, written once.
    let same = false;
    while (e < shared.length) {
      const ep = g.everyTask[e]!;
      const c = sharedStream[e]! - st || ep.partition - p || ep.keyBucket - b;
      if (c > 0) break;
      if (c === 0) same = true;
      emitShared();
    }
    if (same) continue;
    if (out.length > 0) out += ',';
    out += prefixes[g.stream[i]!]! + p;
    out += b === -1 ? '}' : `,"keyBucket":${b}}`;
  }
  while (e < shared.length) emitShared();
  return out;
}

/**
 * The JobModel JSON (format in docs/samza.md) in chunks of about one task each.
 * Keys that come from users (config keys) are written with JSON.stringify, never as object properties.
 */
export function* jobModelJsonChunks(plan: JobModelPlan): Generator<string> {
  const configKeys = [...plan.config.map.keys()].sort();
  yield `{"config":{${configKeys.map((k) => `${q(k)}:${q(plan.config.map.get(k))}`).join(',')}},`;
  yield `"mapper":${q(plan.mapper)},"maxChangeLogStreamPartitions":${plan.maxChangeLogStreamPartitions},`;
  yield `"streams":[${plan.streams
    .map((s) => `{"stream":${q(s.name)},"partitions":${s.partitions},"basePartitions":${s.base}}`)
    .join(',')}],"containers":[`;
  const layouts = containerLayouts(plan);
  for (let c = 0; c < layouts.length; c++) {
    const layout = layouts[c]!;
    yield `${c > 0 ? ',' : ''}{"id":${q(layout.id)},"tasks":[`;
    for (let k = 0; k < layout.tasks.length; k++) {
      const t = layout.tasks[k]!;
      yield `${k > 0 ? ',' : ''}{"taskName":${q(taskNameIn(plan, layout, t))},"mode":"${layout.replica < 0 ? 'Active' : 'Standby'}","changelogPartition":${plan.changelog[t]},"ssps":[${taskSspsJson(plan.grouping, t)}]}`;
    }
    yield ']}';
  }
  yield ']}\n';
}

export function jobModelJson(plan: JobModelPlan): string {
  let s = '';
  for (const chunk of jobModelJsonChunks(plan)) s += chunk;
  return s;
}
