// Samza's data model: SystemStream, SystemStreamPartition (with keyBucket),
// task and container models. String formats and orderings are Samza's exactly,
// because task names derived from them are persisted keys.
import { SamzaError, MSG } from './errors.js';
import { byCodeUnits } from '../basics.js';

export interface SystemStream {
  readonly system: string;
  readonly stream: string;
}

export interface SSP extends SystemStream {
  readonly partition: number;
  /** -1 means "no key bucket" (elasticity off). */
  readonly keyBucket: number;
}

/** An SSP as callers may give it: without keyBucket it has none (-1). */
export interface SspInput extends SystemStream {
  readonly partition: number;
  readonly keyBucket?: number;
}

export type TaskMode = 'Active' | 'Standby';


export function ssp(system: string, stream: string, partition: number, keyBucket = -1): SSP {
  return { system, stream, partition, keyBucket };
}

/** `SystemStreamPartition [kafka, PVE, 0]`, or `[kafka, PVE, 0, 1]` with a key bucket. */
export function sspToString(s: SspInput): string {
  const b = s.keyBucket ?? -1;
  return b === -1 ? `SystemStreamPartition [${s.system}, ${s.stream}, ${s.partition}]` : `SystemStreamPartition [${s.system}, ${s.stream}, ${s.partition}, ${b}]`;
}

/** Samza's SSP ordering: system, stream, partition, keyBucket. */
export function compareSsp(a: SspInput, b: SspInput): number {
  return byCodeUnits(a.system, b.system) || byCodeUnits(a.stream, b.stream) || a.partition - b.partition || (a.keyBucket ?? -1) - (b.keyBucket ?? -1);
}

export function compareSystemStream(a: SystemStream, b: SystemStream): number {
  return byCodeUnits(a.system, b.system) || byCodeUnits(a.stream, b.stream);
}

/**
 * An injective string for using an SSP as a Map key (system and stream are
 * length-prefixed, so no separator inside a name can collide).
 */
export function sspId(s: SspInput): string {
  return `${s.system.length}:${s.system}${s.stream.length}:${s.stream}#${s.partition}#${s.keyBucket ?? -1}`;
}

export function systemStreamId(s: SystemStream): string {
  return `${s.system.length}:${s.system}${s.stream.length}:${s.stream}`;
}

export function systemStreamName(s: SystemStream): string {
  return `${s.system}.${s.stream}`;
}

/** `kafka.foo.bar` is system `kafka`, stream `foo.bar`: split at the first dot. */
export function parseSystemStream(name: string, path?: string): SystemStream {
  const dot = name.indexOf('.');
  if (dot < 0) throw new SamzaError('E_SAMZA_STREAM_NAME', 'IllegalArgumentException', MSG.noDot(name), path);
  return { system: name.slice(0, dot), stream: name.slice(dot + 1) };
}

export interface TaskModel {
  readonly taskName: string;
  /** Sorted by Samza's SSP order. */
  readonly ssps: readonly SSP[];
  readonly changelogPartition: number;
  readonly mode: TaskMode;
}

export interface ContainerModel {
  readonly id: string;
  /** Sorted by task name. */
  readonly tasks: readonly TaskModel[];
}

/** Task name → set of SSPs: what an SSP grouper returns. Maps keep user strings out of object keys. */
export type TaskGrouping = Map<string, SspSet>;

/** A set of SSPs keyed by sspId, keeping the SSP objects. */
export class SspSet {
  private readonly items = new Map<string, SSP>();

  static of(ssps: Iterable<SspInput>): SspSet {
    const s = new SspSet();
    for (const x of ssps) s.add(x);
    return s;
  }

  add(s: SspInput): void {
    this.items.set(sspId(s), s.keyBucket === undefined ? ssp(s.system, s.stream, s.partition) : (s as SSP));
  }

  has(s: SspInput): boolean {
    return this.items.has(sspId(s));
  }

  delete(s: SspInput): boolean {
    return this.items.delete(sspId(s));
  }

  get size(): number {
    return this.items.size;
  }

  values(): IterableIterator<SSP> {
    return this.items.values();
  }

  [Symbol.iterator](): IterableIterator<SSP> {
    return this.items.values();
  }

  sorted(): SSP[] {
    return [...this.items.values()].sort(compareSsp);
  }
}
