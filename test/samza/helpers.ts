// Small builders for the Samza tests.
import { SamzaConfig } from '../../src/samza/config.js';
import { ssp, type SSP, type TaskGrouping } from '../../src/samza/model.js';

export function config(entries: Record<string, string>): SamzaConfig {
  return new SamzaConfig(Object.entries(entries));
}

export function ssps(system: string, stream: string, from: number, to: number): SSP[] {
  const out: SSP[] = [];
  for (let p = from; p <= to; p++) out.push(ssp(system, stream, p));
  return out;
}

/** task -> sorted "system.stream#p[/bucket]" strings, for readable assertions. */
export function view(g: TaskGrouping): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const name of [...g.keys()].sort()) {
    out[name] = g.get(name)!.sorted().map((s) => `${s.system}.${s.stream}#${s.partition}${s.keyBucket === -1 ? '' : `/${s.keyBucket}`}`);
  }
  return out;
}

export const STATEFUL = { 'stores.store1.factory': 'org.apache.samza.storage.kv.RocksDbKeyValueStorageEngineFactory' };

import { emptyPrevious, type JobModelPlan, type PreviousState } from '../../src/samza/plan.js';
import { taskSsps } from '../../src/samza/grouping.js';

/** The previous state a plan leaves behind (what the store cycle persists), without a store. */
export function after(plan: JobModelPlan): PreviousState {
  const taskToSsps = new Map<string, SSP[]>();
  plan.grouping.tasks.forEach((t, i) => taskToSsps.set(t, taskSsps(plan.grouping, i)));
  const changelog = new Map(plan.grouping.tasks.map((t, i) => [t, plan.changelog[i]!] as [string, number]));
  const taskContainer = new Map(plan.grouping.tasks.map((t, i) => [t, plan.containers.ids[plan.containers.containerOf[i]!]!] as [string, string]));
  return { ...emptyPrevious(), baseCounts: plan.baseCounts, taskToSsps, changelog, taskContainer };
}
