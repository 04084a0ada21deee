// normalizeCluster: a cluster description checked and put in canonical order, by one of two
// readers that give one behaviour. The columnar reader (input-columns.ts) takes valid input fast;
// anything it does not accept (an error to report, an odd case) goes through the object reader
// (input.ts), which reports the exact first error. Kept apart from both so neither imports the other.
import { normalizeColumns } from './input-columns.js';
import { normalizeObjects, type Cluster } from './input.js';

/** Validates a cluster description and puts it in canonical order. */
export function normalizeCluster(input: unknown): Cluster {
  const spec = withoutNullFields(input);
  let fast: Cluster | undefined;
  try {
    fast = normalizeColumns(spec);
  } catch {
    fast = undefined;
  }
  return fast ?? normalizeObjects(spec);
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function hasNull(o: Record<string, unknown>): boolean {
  return Object.keys(o).some((k) => o[k] === null);
}

/** A copy of `o` without its null members, `clients` replaced when given. */
function copyWithoutNulls(o: Record<string, unknown>, clients?: unknown[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(o)) {
    if (o[k] === null) continue;
    // defineProperty: a member named __proto__ stays a member (assignment would set the prototype).
    Object.defineProperty(out, k, { value: k === 'clients' && clients !== undefined ? clients : o[k], enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/**
 * The one rule of docs/formats.md: an optional field written as null is the same as leaving it
 * out, at the top and in each client (a required one then reads as missing). Tag values and list
 * items are data, not fields, and stay as written. Input without a null is returned as it is.
 */
function withoutNullFields(spec: unknown): unknown {
  if (!isPlainObject(spec)) return spec;
  const list = spec.clients;
  const clientNulls = Array.isArray(list) && list.some((c) => isPlainObject(c) && hasNull(c));
  if (!clientNulls) return hasNull(spec) ? copyWithoutNulls(spec) : spec;
  const clients = (list as unknown[]).map((c) => (isPlainObject(c) && hasNull(c) ? copyWithoutNulls(c) : c));
  return copyWithoutNulls(spec, clients);
}
