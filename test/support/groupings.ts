// Conversions between the Map-based grouping (Samza's own shape, which the oracles build) and the
// planner's flat Grouping, for tests that compare the two.
import { compareSystemStream, SspSet, systemStreamId, type SystemStream, type TaskGrouping } from '../../src/samza/model.js';
import { taskSsps, withNames, type Grouping } from '../../src/samza/grouping.js';
import { byCodeUnits } from '../../src/basics.js';

/** Converts a Map-based grouping (the exact-semantics path) to the flat form. */
export function fromTaskGrouping(grouping: TaskGrouping): Grouping {
  const streamMap = new Map<string, SystemStream>();
  for (const set of grouping.values()) for (const s of set) streamMap.set(systemStreamId(s), { system: s.system, stream: s.stream });
  const streams = [...streamMap.values()].sort(compareSystemStream);
  const streamIndex = new Map<string, number>();
  streams.forEach((s, i) => streamIndex.set(systemStreamId(s), i));
  const tasks = [...grouping.keys()].sort(byCodeUnits);
  let n = 0;
  for (const set of grouping.values()) n += set.size;
  const taskStart = new Int32Array(tasks.length + 1);
  const stream = new Int32Array(n);
  const partition = new Int32Array(n);
  const bucket = new Int32Array(n);
  let any = false;
  let i = 0;
  tasks.forEach((t, ti) => {
    taskStart[ti] = i;
    for (const s of grouping.get(t)!.sorted()) {
      stream[i] = streamIndex.get(systemStreamId(s))!;
      partition[i] = s.partition;
      bucket[i] = s.keyBucket;
      if (s.keyBucket !== -1) any = true;
      i++;
    }
  });
  taskStart[tasks.length] = i;
  const order = new Int32Array(n);
  for (let k = 0; k < n; k++) order[k] = k;
  return withNames({ streams, taskStart, order, stream, partition, bucket: any ? bucket : null, everyTask: [] }, tasks);
}

/** The Map-based view of a flat grouping (every-task SSPs included). */
export function toTaskGrouping(g: Grouping): TaskGrouping {
  const out: TaskGrouping = new Map();
  g.tasks.forEach((t, ti) => out.set(t, SspSet.of(taskSsps(g, ti))));
  return out;
}
