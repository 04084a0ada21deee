// Samza coordinator-stream message shapes (spec §7.1): key `[1,"<type>","<key>"]`, value envelope.
import { fail } from '../errors.js';

/** Protocol version that leads every Samza coordinator-stream key. */
export const KEY_VERSION = 1;

/** The `source` Samza's metadata-store path writes into every value envelope. */
export const SAMZA_SOURCE = 'SamzaContainer';

/** Message types (namespaces) used for assignment. Any other string is accepted too. */
export const MessageType = {
  TaskPartitionAssignment: 'set-task-partition-assignment',
  Changelog: 'set-changelog',
  TaskContainerAssignment: 'set-task-container-assignment',
  TaskModeAssignment: 'set-task-mode-assignment',
  ContainerHostAssignment: 'set-container-host-assignment',
  Config: 'set-config',
} as const;

/** The value of a coordinator-stream message. `values` is the payload `get` returns. */
export interface Envelope {
  host: string;
  username: string;
  source: string;
  timestamp: number;
  values: unknown;
}

/** Compact JSON, exactly as Samza writes it: no whitespace (whitespace would make a different key). */
export function encodeKey(type: string, key: string): string {
  return JSON.stringify([KEY_VERSION, type, key]);
}

export function decodeKey(text: string): { type: string; key: string } | undefined {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!Array.isArray(v) || v.length !== 3 || v[0] !== KEY_VERSION) return undefined;
  const [, type, key] = v as unknown[];
  return typeof type === 'string' && typeof key === 'string' ? { type, key } : undefined;
}

export interface EnvelopeMeta {
  host: string;
  username: string;
  timestamp: number;
}

/** Serialises the envelope around `values`; throws E_STORE_VALUE when `values` is not JSON. */
export function encodeEnvelope(values: unknown, meta: EnvelopeMeta, where: string): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(values);
  } catch (e) {
    fail('E_STORE_VALUE', `value for ${where} cannot be stored as JSON: ${(e as Error).message}`, where);
  }
  if (text === undefined) fail('E_STORE_VALUE', `value for ${where} cannot be stored as JSON (got ${typeof values})`, where);
  return joinEnvelope(envelopeHead(meta), text);
}

/** The envelope without `values`: `{"host":…,"username":…,"source":"SamzaContainer","timestamp":…}`. */
export function envelopeHead(meta: EnvelopeMeta): string {
  return JSON.stringify({ host: meta.host, username: meta.username, source: SAMZA_SOURCE, timestamp: meta.timestamp });
}

/** The envelope text from its head and the JSON text of `values`. */
export function joinEnvelope(head: string, valuesJson: string): string {
  return `${head.slice(0, -1)},"values":${valuesJson}}`;
}

/**
 * Splits an envelope whose bytes are exactly joinEnvelope(head, {"<field>":"<string>"}) (fields in
 * the order we write them, no whitespace, all strings well-formed) into its parts; undefined for
 * any other envelope, which is then kept verbatim.
 */
export function splitEnvelope(text: string, parsed: Envelope): { head: string; field: string; value: string } | undefined {
  const keys = Object.keys(parsed);
  if (keys.length !== 5 || keys[0] !== 'host' || keys[1] !== 'username' || keys[2] !== 'source' || keys[3] !== 'timestamp' || keys[4] !== 'values') return undefined;
  const v = parsed.values;
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
  const fields = Object.keys(v);
  if (fields.length !== 1) return undefined;
  const field = fields[0]!;
  const value = (v as Record<string, unknown>)[field];
  if (typeof value !== 'string' || !field.isWellFormed() || !value.isWellFormed()) return undefined;
  const p = parsed as unknown as Record<string, unknown>;
  if (typeof p.host !== 'string' || typeof p.username !== 'string' || typeof p.source !== 'string' || typeof p.timestamp !== 'number') return undefined;
  const head = JSON.stringify({ host: p.host, username: p.username, source: p.source, timestamp: p.timestamp });
  if (joinEnvelope(head, JSON.stringify({ [field]: value })) !== text) return undefined;
  return { head, field, value };
}

/**
 * The field and value when `values` is a plain object with exactly one own string member (Samza's
 * usual shape), so it can be stored compactly; undefined otherwise.
 */
export function singleField(values: unknown): { field: string; value: string } | undefined {
  if (typeof values !== 'object' || values === null || Array.isArray(values)) return undefined;
  const proto = Object.getPrototypeOf(values) as unknown;
  if (proto !== Object.prototype && proto !== null) return undefined;
  if (typeof (values as { toJSON?: unknown }).toJSON === 'function') return undefined;
  const fields = Object.keys(values);
  if (fields.length !== 1 || Object.getOwnPropertySymbols(values).length !== 0) return undefined;
  const field = fields[0]!;
  const value = (values as Record<string, unknown>)[field];
  if (typeof value !== 'string' || !field.isWellFormed() || !value.isWellFormed()) return undefined;
  return { field, value };
}

export function decodeEnvelope(text: string): Envelope | undefined {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v) || !Object.hasOwn(v, 'values')) return undefined;
  return v as Envelope;
}
