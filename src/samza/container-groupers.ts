// Task -> container groupers: GroupByContainerCount (plain round-robin and the
// host-affinity balance path) and GroupByContainerIds (ids and locality paths),
// with Samza's errors. Tasks come in any order (Samza's come as a Set) and are
// sorted by name here, as Samza sorts them; results map task -> container id.
import { AssignorError } from '../errors.js';
import { SamzaError, MSG } from './errors.js';
import { javaHashMapKeyOrder } from './java-order.js';
import { toMap, VALUES, type MapInput } from './inputs.js';
import { byCodeUnits } from '../basics.js';

export const ANY_HOST = 'ANY_HOST';

export interface ContainerAssignment {
  /** Container ids in output order. */
  ids: string[];
  /** containerOf[i] = index into ids of task i (tasks in the order given). */
  containerOf: Int32Array;
}

function byIds(ids: string[], containerOf: Int32Array): ContainerAssignment {
  return { ids, containerOf };
}

function range(n: number): string[] {
  return Array.from({ length: n }, (_, i) => String(i));
}

/** Indices of `tasks` in name order (Java String order); a name given twice is refused (Samza gets a Set). */
function byName(tasks: readonly string[]): Int32Array {
  // The planner hands tasks over sorted already: one pass sees it (and that no name repeats).
  let sorted = true;
  for (let k = 1; k < tasks.length && sorted; k++) sorted = tasks[k - 1]! < tasks[k]!;
  if (sorted) {
    const identity = new Int32Array(tasks.length);
    for (let i = 0; i < identity.length; i++) identity[i] = i;
    return identity;
  }
  const order = Int32Array.from(Array.from(tasks.keys()).sort((a, b) => byCodeUnits(tasks[a]!, tasks[b]!)));
  for (let k = 1; k < order.length; k++) {
    if (tasks[order[k]!] === tasks[order[k - 1]!]) {
      throw new AssignorError('E_SAMZA_DUPLICATE_TASK', `task ${JSON.stringify(tasks[order[k]!])} is given twice`, `tasks[${Math.max(order[k]!, order[k - 1]!)}]`);
    }
  }
  return order;
}

/** Round-robin of the name-sorted tasks over `n` containers: containerOf in the input order. */
function roundRobin(tasks: readonly string[], n: number): Int32Array {
  const containerOf = new Int32Array(tasks.length);
  const order = byName(tasks);
  for (let i = 0; i < order.length; i++) containerOf[order[i]!] = i % n;
  return containerOf;
}

export function groupByContainerCountValidate(n: number, taskCount: number): void {
  if (n <= 0) throw new SamzaError('E_SAMZA_CONTAINERS', 'IllegalArgumentException', MSG.atLeastOneContainer);
  if (taskCount === 0) throw new SamzaError('E_SAMZA_NO_TASKS', 'IllegalArgumentException', MSG.noTasks);
  if (taskCount < n) throw new SamzaError('E_SAMZA_CONTAINERS', 'IllegalArgumentException', MSG.tooManyContainers(n, taskCount));
}

/** GroupByContainerCount.group(tasks): name-sorted task i goes to container i mod n. */
export function groupByContainerCount(tasks: readonly string[], n: number): ContainerAssignment {
  groupByContainerCountValidate(n, tasks.length);
  return byIds(range(n), roundRobin(tasks, n));
}

/**
 * groupByContainerCount for tasks known to be sorted by name and distinct (a grouping's names as
 * the planner makes them): task i goes to container i mod n, with no name read.
 */
export function groupByContainerCountSorted(taskCount: number, n: number): ContainerAssignment {
  groupByContainerCountValidate(n, taskCount);
  const containerOf = new Int32Array(taskCount);
  for (let i = 0; i < taskCount; i++) containerOf[i] = i % n;
  return byIds(range(n), containerOf);
}

export interface BalanceResult extends ContainerAssignment {
  /** Which path ran: plain round-robin fallback, verbatim reuse, or a rebalance. */
  path: 'plain' | 'reuse' | 'balance';
  reason?: string;
}

/**
 * GroupByContainerCount.group(tasks, metadata): keep tasks where they were,
 * moving only the surplus (largest names first) when the container count changes.
 */
export function balanceByContainerCount(tasks: readonly string[], n: number, previousInput: MapInput<string>): BalanceResult {
  groupByContainerCountValidate(n, tasks.length);
  const previous = toMap(previousInput, 'previousTaskToContainer', VALUES.string);
  const plain = (reason: string): BalanceResult => ({ ...groupByContainerCount(tasks, n), path: 'plain', reason });
  if (previous.size === 0) return plain('no previous task-to-container mapping');
  if (previous.size !== tasks.length) return plain(`previous mapping has ${previous.size} tasks, now ${tasks.length}`);
  const index = new Map<string, number>();
  tasks.forEach((t, i) => index.set(t, i));
  // Samza throws a NullPointerException here when the names differ; we fall back instead.
  for (const t of previous.keys()) if (!index.has(t)) return plain(`previous task ${JSON.stringify(t)} is not a current task`);
  const byContainer = new Map<string, string[]>();
  for (const [t, c] of previous) {
    let l = byContainer.get(c);
    if (l === undefined) byContainer.set(c, (l = []));
    l.push(t);
  }
  const k = byContainer.size;
  const old: string[][] = [];
  for (let i = 0; i < k; i++) {
    const l = byContainer.get(String(i));
    if (l === undefined) return plain(`Task mapping is missing container: ${i}`);
    old.push(l.sort(byCodeUnits));
  }
  if (k === 1 || n === 1) return plain(k === 1 ? 'previous layout had one container' : 'one container');
  const containerOf = new Int32Array(tasks.length);
  if (n === k) {
    old.forEach((l, c) => l.forEach((t) => (containerOf[index.get(t)!] = c)));
    return { ids: range(n), containerOf, path: 'reuse' };
  }
  const t = tasks.length;
  const target = (i: number): number => (i < n ? Math.floor(t / n) + (i < t % n ? 1 : 0) : 0);
  const queue: string[] = [];
  for (let i = 0; i < k; i++) while (old[i]!.length > target(i)) queue.push(old[i]!.pop()!);
  const containers = old.slice(0, n);
  while (containers.length < n) containers.push([]);
  let q = 0;
  for (let i = 0; i < n; i++) while (containers[i]!.length < target(i) && q < queue.length) containers[i]!.push(queue[q++]!);
  containers.forEach((l, c) => l.forEach((name) => (containerOf[index.get(name)!] = c)));
  return { ids: range(n), containerOf, path: 'balance' };
}

/** GroupByContainerIds.group(tasks, ids): round-robin over the ids in the given order (smallest t ids when there are more). */
export function groupByContainerIds(tasks: readonly string[], ids: readonly string[] | null, count = 1): ContainerAssignment {
  if (ids === null) {
    // Samza sizes an ArrayList with the count first: a negative count fails there.
    if (count < 0) throw new SamzaError('E_SAMZA_CONTAINERS', 'IllegalArgumentException', `Illegal Capacity: ${count}`);
    return groupByContainerIds(tasks, range(count));
  }
  if (ids.length === 0) throw new SamzaError('E_SAMZA_CONTAINERS', 'IllegalArgumentException', MSG.atLeastOneContainer);
  if (tasks.length === 0) throw new SamzaError('E_SAMZA_NO_TASKS', 'IllegalArgumentException', MSG.emptyGroup(ids));
  const used = ids.length > tasks.length ? [...ids].sort(byCodeUnits).slice(0, tasks.length) : [...ids];
  return byIds(used, roundRobin(tasks, used.length));
}

/**
 * GroupByContainerIds.group(tasks, metadata): tasks whose previous host is
 * known go to a processor on that host with room (fewer than floor(t/p)
 * tasks); the rest fill processors in id order, then round-robin.
 */
export function groupByContainerIdsWithLocality(
  tasks: readonly string[],
  processorLocalityInput: MapInput<string>,
  taskLocalityInput: MapInput<string>,
): ContainerAssignment {
  const processorLocality = toMap(processorLocalityInput, 'processorLocality', VALUES.string);
  const taskLocality = toMap(taskLocalityInput, 'taskLocality', VALUES.string);
  if (tasks.length === 0) throw new SamzaError('E_SAMZA_NO_TASKS', 'IllegalArgumentException', MSG.noTasks);
  if (processorLocality.size === 0) return groupByContainerIds(tasks, []);
  const procs = [...processorLocality.keys()].sort(byCodeUnits).slice(0, tasks.length);
  const perProc = Math.floor(tasks.length / procs.length);
  const load = new Int32Array(procs.length);
  const containerOf = new Int32Array(tasks.length).fill(-1);
  // Samza keeps the processors in a TreeMap, but cuts a longer list down into a HashMap: then the
  // processors of a host, and the round-robin, follow the HashMap's order.
  const walk = processorLocality.size > tasks.length ? javaHashMapKeyOrder(procs).map((id) => procs.indexOf(id)) : procs.map((_, j) => j);
  // Samza walks its task Set (a HashSet, whose order varies between JVM runs); we walk names in order.
  const order = byName(tasks);
  order.forEach((i) => {
    const task = tasks[i]!;
    const host = taskLocality.get(task);
    if (host === undefined) return;
    const p = walk.find((j) => processorLocality.get(procs[j]!) === host && load[j]! < perProc) ?? -1;
    if (p >= 0) {
      containerOf[i] = p;
      load[p]!++;
    }
  });
  let rr = 0;
  order.forEach((i) => {
    if (containerOf[i] !== -1) return;
    let p = -1;
    for (let j = 0; j < procs.length; j++) if (load[j]! < perProc) { p = j; break; }
    if (p < 0) p = walk[rr++ % procs.length]!;
    containerOf[i] = p;
    load[p]!++;
  });
  return byIds(procs, containerOf);
}

/** SingleContainerGrouper: every task in container `processorId`. */
export function singleContainer(tasks: readonly string[], processorId: string): ContainerAssignment {
  return byIds([processorId], new Int32Array(tasks.length));
}

export function standbyTaskName(task: string, replica: number): string {
  return `Standby-${task}-${replica}`;
}

export function standbyContainerId(activeContainer: string, replica: number): string {
  return `${activeContainer}-${replica}`;
}
