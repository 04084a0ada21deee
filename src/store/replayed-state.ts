// The one read side of every coordinator store: the state replayed from Samza's records (key JSON
// `[1,"<type>","<key>"]`, value envelope JSON or null) and the reads of CoordinatorStoreBackend.
// The file store replays its log into it, the Kafka store its topic, the memory store its writes,
// and `samza import` a dump of messages. Last record wins per (type, key), a null value deletes,
// first-write order (StoreState).
import { fail } from '../errors.js';
import { decodeEnvelope, decodeKey, encodeKey, joinEnvelope, KEY_VERSION, type Envelope } from '../coordinator-stream/messages.js';
import { StoreState, sspView } from './state.js';
import type { SspAssignment, TaskTable } from './backend.js';

export class ReplayedState {
  /** What the store holds; subclasses apply their log or topic to it. */
  protected state = new StoreState();
  protected lastTimestamp: number | undefined;

  /** Called before every read; stores override it to refuse use after close. */
  protected checkOpen(): void {}

  /**
   * Applies one record as Samza's CoordinatorStreamStore would: the key must be
   * `[1,"<type>","<key>"]` and a value a JSON object with `values` (E_STORE_FORMAT otherwise,
   * naming `where`, e.g. `topic@offset`).
   */
  applyRecord(keyText: string, valueText: string | null, where: string): void {
    const k = decodeKey(keyText);
    if (k === undefined) {
      fail('E_STORE_FORMAT', `${where}: key ${JSON.stringify(keyText.slice(0, 80))} is not a coordinator-stream key [${KEY_VERSION},"<type>","<key>"]`, where);
    }
    if (valueText === null) {
      this.state.applyMessage(k.type, k.key, null);
      return;
    }
    const env = decodeEnvelope(valueText);
    if (env === undefined) fail('E_STORE_FORMAT', `${where}: the value of ${k.type} ${JSON.stringify(k.key)} is not a JSON object with "values"`, where);
    const usual = reorder(env);
    if (usual !== undefined) this.state.applyMessage(k.type, k.key, usual, undefined);
    else this.state.applyMessage(k.type, k.key, valueText, env);
    if (typeof env.timestamp === 'number' && (this.lastTimestamp === undefined || env.timestamp > this.lastTimestamp)) this.lastTimestamp = env.timestamp;
  }

  get(type: string, key: string): unknown | undefined {
    this.checkOpen();
    checkNames(type, key);
    return this.state.values(type, key);
  }

  has(type: string, key: string): boolean {
    this.checkOpen();
    checkNames(type, key);
    return this.state.has(type, key);
  }

  message(type: string, key: string): Envelope | undefined {
    this.checkOpen();
    checkNames(type, key);
    const text = this.state.envelope(type, key);
    return text === undefined ? undefined : (JSON.parse(text) as Envelope);
  }

  entries(type: string): Map<string, unknown> {
    this.checkOpen();
    checkNames(type, '');
    return new Map(this.state.records(type, false));
  }

  types(): string[] {
    this.checkOpen();
    return [...this.state.types.keys()].filter((t) => this.state.liveOf(t) > 0);
  }

  get size(): number {
    return this.state.size;
  }

  singleFields(type: string, field: string): Map<string, string> | undefined {
    this.checkOpen();
    checkNames(type, field);
    return this.state.singleFields(type, field);
  }

  taskTable(specs: ReadonlyArray<readonly [type: string, field: string]>): TaskTable | undefined {
    this.checkOpen();
    for (const [type, field] of specs) checkNames(type, field);
    return this.state.taskTable(specs);
  }

  sspAssignment(): SspAssignment {
    this.checkOpen();
    return sspView(this.state.sspTable(), this.state);
  }

  /** Every live message in Samza's layout: key JSON and envelope JSON. */
  *messages(): Generator<{ key: string; value: string }> {
    this.checkOpen();
    for (const type of this.state.types.keys()) {
      for (const [key, envelope] of this.state.records(type, true)) yield { key: encodeKey(type, key), value: envelope as string };
    }
  }
}

const ENVELOPE_FIELDS = ['host', 'username', 'source', 'timestamp', 'values'];
/**
 * Samza writes the envelope from a Java HashMap, so its fields come in hash order
 * ({"host","source","values","username","timestamp"}). An envelope with exactly the usual fields and
 * a one-string `values` is re-serialised in the order the stores write, so it is held compactly
 * (the SSP assignment in columns); the content is unchanged, and Samza parses either order.
 */
function reorder(env: Envelope): string | undefined {
  const o = env as unknown as Record<string, unknown>;
  const keys = Object.keys(o);
  if (keys.length !== 5 || !ENVELOPE_FIELDS.every((f) => Object.hasOwn(o, f))) return undefined;
  if (keys.every((k, i) => k === ENVELOPE_FIELDS[i])) return undefined; // already in order: kept verbatim
  if (typeof o.host !== 'string' || typeof o.username !== 'string' || typeof o.source !== 'string' || typeof o.timestamp !== 'number') return undefined;
  const v = o.values;
  if (typeof v !== 'object' || v === null || Array.isArray(v) || Object.keys(v).length !== 1) return undefined;
  if (typeof Object.values(v)[0] !== 'string') return undefined;
  return joinEnvelope(JSON.stringify({ host: o.host, username: o.username, source: o.source, timestamp: o.timestamp }), JSON.stringify(v));
}


export function checkNames(type: unknown, key: unknown, where?: string): asserts type is string {
  if (typeof type !== 'string') fail('E_STORE_ARG', `message type must be a string, got ${typeof type}`, where);
  if (typeof key !== 'string') fail('E_STORE_ARG', `message key must be a string, got ${typeof key}`, where);
}
