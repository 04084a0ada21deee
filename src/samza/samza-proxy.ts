// The `samza` mapper mode: Samza's HashSystemStreamPartitionMapper and
// SSPGrouperProxy with their conditions, counting rules and error texts,
// quirks included (see docs/samza.md, "Samza quirks reproduced").
import { SamzaError, MSG } from './errors.js';
import { SamzaConfig, broadcastSsps, persistentStoreCount, type ConfigInput } from './config.js';
import { ssp, sspId, SspSet, systemStreamId, type SSP, type SspInput, type TaskGrouping } from './model.js';
import { entriesOf, toSsps, type MapInput } from './inputs.js';
import type { SspGrouper } from './groupers.js';
import { byCodeUnits } from '../basics.js';

/** New partition n came from old partition n mod previousCount; only integer multiples are accepted. */
export function hashMapperPreviousSsp(current: SspInput | null, previousCount: number, currentCount: number): SSP {
  if (current === null) throw new SamzaError('E_SAMZA_NULL', 'NullPointerException', 'currentSSP is null');
  if (previousCount === 0) throw new SamzaError('E_SAMZA_ARITHMETIC', 'IllegalArgumentException', '/ by zero');
  if (currentCount % previousCount !== 0) {
    throw new SamzaError('E_SAMZA_NOT_MULTIPLE', 'IllegalArgumentException', MSG.notMultiple(currentCount, previousCount));
  }
  return ssp(current.system, current.stream, current.partition % previousCount);
}

function countByStream(grouping: ReadonlyMap<string, Iterable<SSP>>): Map<string, number> {
  // Occurrences, not distinct partitions: Samza's choice, inflated by broadcast and bucket copies.
  const counts = new Map<string, number>();
  for (const set of grouping.values()) for (const s of set) counts.set(systemStreamId(s), (counts.get(systemStreamId(s)) ?? 0) + 1);
  return counts;
}

export interface ProxyResult {
  grouping: TaskGrouping;
  /** Why the raw grouping was returned unchanged, when it was. */
  bypass?: 'stateless' | 'first-run';
}

/**
 * SSPGrouperProxy.group: raw grouping, then (stateful jobs with a previous
 * assignment only) every SSP goes back to its previous task, through the hash
 * mapper when its stream's occurrence count changed.
 */
export function sspGrouperProxy(
  grouper: SspGrouper,
  configInput: ConfigInput,
  ssps: readonly SspInput[],
  previousInput: MapInput<readonly SspInput[]>,
): ProxyResult {
  const config = SamzaConfig.from(configInput);
  const previousTaskToSsps = new Map<string, SSP[]>();
  for (const [task, list] of entriesOf(previousInput, 'previousTaskToSsps')) previousTaskToSsps.set(task, toSsps(list, `previousTaskToSsps[${JSON.stringify(task)}]`));
  const grouped = grouper.group(toSsps(ssps, 'ssps'));
  if (persistentStoreCount(config) === 0) return { grouping: grouped, bypass: 'stateless' };
  if (previousTaskToSsps.size === 0) return { grouping: grouped, bypass: 'first-run' };
  const broadcast = SspSet.of(broadcastSsps(config));

  // Samza iterates a HashMap here (last task wins, order unspecified); we iterate task names in order.
  const prevSspToTask = new Map<string, string>();
  const prevTasks = [...previousTaskToSsps.keys()].sort(byCodeUnits);
  for (const task of prevTasks) for (const s of previousTaskToSsps.get(task)!) if (!broadcast.has(s)) prevSspToTask.set(sspId(s), task);

  const prevCount = countByStream(previousTaskToSsps);
  const curCount = countByStream(grouped);

  const copy: TaskGrouping = new Map();
  for (const [task, set] of grouped) copy.set(task, SspSet.of(set));
  try {
    for (const [task, set] of grouped) {
      for (const s of set) {
        if (broadcast.has(s)) continue;
        const p = prevCount.get(systemStreamId(s)) ?? 0;
        const c = curCount.get(systemStreamId(s)) ?? 0;
        let prevTask: string | undefined;
        if (p > 0 && c !== p) prevTask = prevSspToTask.get(sspId(hashMapperPreviousSsp(s, p, c)));
        else prevTask = prevSspToTask.get(sspId(s));
        if (prevTask !== undefined && prevTask !== task) {
          copy.get(task)!.delete(s);
          const target = copy.get(prevTask);
          // Java dereferences a missing group here: NullPointerException, wrapped below.
          if (target === undefined) {
            throw new SamzaError('E_SAMZA_NULL', 'NullPointerException', `previous task ${JSON.stringify(prevTask)} of ${JSON.stringify(s)} is not a task of the current grouping`);
          }
          target.add(s);
        }
      }
    }
  } catch (e) {
    throw new SamzaError('E_SAMZA_PROXY', 'SamzaException', MSG.proxy, undefined, e as Error);
  }
  const out: TaskGrouping = new Map();
  for (const [task, set] of copy) if (set.size > 0) out.set(task, set);
  return { grouping: out };
}

