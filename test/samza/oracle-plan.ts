// The `samza` mapper's grouping step as it was before it moved to flat rows and
// the WASM kernel (commit b1b70b0): Samza's grouper on SSP objects, then
// sspGrouperProxy on Maps, then the flat form. Kept as the oracle the new path
// must equal byte for byte (JobModel JSON) and error for error.
import { readSettings, KEYS, type SamzaConfig } from '../../src/samza/config.js';
import { createSspGrouper } from '../../src/samza/groupers.js';
import { sspGrouperProxy } from '../../src/samza/samza-proxy.js';
import type { Grouping } from '../../src/samza/grouping.js';
import { fromTaskGrouping } from '../support/groupings.js';
import { ssp, type SSP } from '../../src/samza/model.js';

export interface OracleJob {
  config: SamzaConfig;
  partitionCounts: ReadonlyMap<string, number>;
}

/** The grouping calculateJobModel produced with `mapper: 'samza'` (processor ids "0".."n-1" as it used). */
export function oracleSamzaGrouping(job: OracleJob, previousTaskToSsps: ReadonlyMap<string, readonly SSP[]>, processorIds: readonly string[]): Grouping {
  const settings = readSettings(job.config);
  const withProcs = job.config.with(KEYS.processorList, processorIds.join(','));
  const grouper = createSspGrouper(withProcs, settings.grouper);
  const ssps: SSP[] = [];
  for (const s of settings.inputs) {
    const c = job.partitionCounts.get(`${s.system}.${s.stream}`)!;
    for (let p = 0; p < c; p++) ssps.push(ssp(s.system, s.stream, p));
  }
  if (!settings.expansionEnabled) return fromTaskGrouping(grouper.group(ssps));
  return fromTaskGrouping(sspGrouperProxy(grouper, withProcs, ssps, previousTaskToSsps).grouping);
}
