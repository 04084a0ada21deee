// normalizeCluster: a cluster description checked and put in canonical order, by one of two
// readers that give one behaviour. The columnar reader (input-columns.ts) takes valid input fast;
// anything it does not accept (an error to report, an odd case) goes through the object reader
// (input.ts), which reports the exact first error. Kept apart from both so neither imports the other.
import { normalizeColumns } from './input-columns.js';
import { normalizeObjects, type Cluster } from './input.js';

/** Validates a cluster description and puts it in canonical order. */
export function normalizeCluster(spec: unknown): Cluster {
  let fast: Cluster | undefined;
  try {
    fast = normalizeColumns(spec);
  } catch {
    fast = undefined;
  }
  return fast ?? normalizeObjects(spec);
}
