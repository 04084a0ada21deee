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
  const head = JSON.stringify({ host: meta.host, username: meta.username, source: SAMZA_SOURCE, timestamp: meta.timestamp });
  return `${head.slice(0, -1)},"values":${text}}`;
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
