// The one boundary between domain code and the kernels. Domain code asks for
// `getKernels()` and calls these methods with typed arrays; only src/engine/
// knows about WASM pointers, the arena and memory growth.
//
// Each kernel family (hash, fold, channels, standby) declares its interface
// here and has two implementations: src/engine/reference/<family>.ts (pure TS,
// the obviously-correct twin) and src/engine/wasm/<family>.ts (the WASM binding).
import { AssignorError, describe } from '../errors.js';
import { referenceHash } from './reference/hash.js';
import { referenceFold } from './reference/fold.js';
import { referenceChannels } from './reference/channels.js';
import { referenceStandby } from './reference/standby.js';
import { referenceSamza } from './reference/samza.js';
import { referenceGroup } from './reference/group.js';
import { loadWasmCore, simdSupported, type WasmCore } from './core.js';
import { wasmHash } from './wasm/hash.js';
import { wasmFold } from './wasm/fold.js';
import { wasmChannels } from './wasm/channels.js';
import { wasmStandby } from './wasm/standby.js';
import { wasmSamza } from './wasm/samza.js';
import { wasmGroup } from './wasm/group.js';
export type { ChannelKernels } from './reference/channels.js';
export type { StandbyKernels } from './reference/standby.js';
import type { ChannelKernels } from './reference/channels.js';
import type { StandbyKernels } from './reference/standby.js';
export type { GroupKernels, GroupProblem } from './reference/group.js';
import type { GroupKernels } from './reference/group.js';

/**
 * Kernel memory for hashing string keys run by run (a run: consecutive keys of
 * one batch). Per run, the producer writes cumulative unit counts into
 * offsets[from .. to] (offsets[from] = 0) and either the keys' UTF-16 units into
 * `units` (then hashUnits) or, when it knows them to be ASCII, their bytes into
 * `bytes` (then hashBytes: ASCII bytes are the UTF-16 units, so the offsets hold).
 * The views stay valid for the whole producer call.
 */
export interface StringRuns {
  /** Room for one run's UTF-16 code units, as bytes (UTF-16LE). */
  readonly units: Uint8Array;
  /** Room for one run's bytes: 3 per unit, plus 4. */
  readonly bytes: Uint8Array;
  /** count + 1 entries. */
  readonly offsets: Int32Array;
  /** The results, count entries; the producer may fill some itself (null keys). */
  readonly out: Int32Array;
  /**
   * Encodes keys from .. to-1 from `units`, each on its own, as Java's
   * String.getBytes(UTF_8) does (an unpaired surrogate is '?', and no pair
   * forms across two keys), and hashes them into out[from .. to). Returns the
   * run's byte count (equal to its unit count when the run was ASCII).
   */
  hashUnits(from: number, to: number): number;
  /** Hashes keys from .. to-1 from `bytes` into out[from .. to). */
  hashBytes(from: number, to: number): void;
}

export interface HashKernels {
  /**
   * Key i is data[offsets[i] .. offsets[i+1]). Returns, per key,
   * toPositive(murmur2(key)) % n when n > 0, or the signed murmur2 when n == 0.
   */
  hashVar(data: Uint8Array, offsets: Int32Array, count: number, n: number): Int32Array;
  /** Key i is data[i*keyLen .. (i+1)*keyLen); results as for hashVar. */
  hashFixed(data: Uint8Array, keyLen: number, count: number, n: number): Int32Array;
  /**
   * Hashes `count` keys that a producer writes run by run into kernel memory
   * (see StringRuns); runs hold at most `runUnits` UTF-16 units. Results as for hashVar.
   */
  hashRuns(count: number, runUnits: number, n: number, produce: (runs: StringRuns) => void): Int32Array;
  /**
   * Kernel memory that stays put across calls (see PinnedKeys): room for
   * `maxBytes` key bytes and `maxKeys` keys. The WASM engines give it an
   * instance of its own, so no other call ever touches it.
   */
  pinKeys(maxBytes: number, maxKeys: number): PinnedKeys;
}

/**
 * Key bytes that a caller writes straight into kernel memory once and hashes
 * in place: no copy in, no copy out (results are a view of `out`). The caller
 * checks bounds; the kernels trust them.
 */
export interface PinnedKeys {
  readonly bytes: Uint8Array;
  /** maxKeys + 1 entries: key i is bytes[offsets[i] .. offsets[i+1]). */
  readonly offsets: Int32Array;
  /** maxKeys entries: results of the last call. */
  readonly out: Int32Array;
  /** out[i] for key i = bytes[i*keyLen .. (i+1)*keyLen), i < count; results as for hashVar. */
  hashFixed(keyLen: number, count: number, n: number): void;
  /** out[i] for key i = bytes[offsets[i] .. offsets[i+1]), i < count. */
  hashVar(count: number, n: number): void;
}

export interface FoldKernels {
  /**
   * out[i] = partitions[i] mod bases[streams[i]]: the task slot of partition
   * partitions[i] of stream streams[i] when that stream's task set is fixed at
   * its base partition count (bases must be >= 1). Returns `{ bad }` instead,
   * the index of the first item with a stream index outside bases or a
   * negative partition, when there is one.
   */
  foldPartitions(streams: Int32Array, partitions: Int32Array, bases: Int32Array): Int32Array | { bad: number };
}

/** rowTask value of a row whose SSP is in every task (AllSspToSingleTask), in SamzaProxyInput. */
export const EVERY_TASK = -2;
/** SamzaProxyResult.failKind: the mapper refused a count that is not a multiple / the previous task is not a current task. */
export const FAIL_NOT_MULTIPLE = 1;
export const FAIL_NO_TASK = 2;

/**
 * Samza's SSPGrouperProxy + HashSystemStreamPartitionMapper on flat rows (assembly/samza-proxy.ts
 * says how the SSP -> task table is laid out). Streams are indices of the current input streams.
 */
export interface SamzaProxyInput {
  /** Previous assignment, one row per (task, SSP) occurrence: stream is an index into prevStreamToCur. */
  prevStream: Int32Array;
  /** Previous stream -> current input stream index, or -1 for a stream that is no input now. */
  prevStreamToCur: Int32Array;
  prevPartition: Int32Array;
  /** null: every previous row has key bucket -1. */
  prevBucket: Int32Array | null;
  /** Index of the row's previous task (into prevToCur and prevRank). */
  prevTask: Int32Array;
  /** Rank of each previous task in Java String order; needed only when an SSP has several previous tasks. */
  prevRank: Int32Array | null;
  /** Previous task -> current task index, or -1 when it is not a task of the raw grouping. */
  prevToCur: Int32Array;
  /** Per stream: its partition count (the table covers partitions below it). */
  limit: Int32Array;
  /** Per stream: first table slot; offset[S] = table size. */
  offset: Int32Array;
  /** Slots per partition: 1 (elasticity off), or factor + 1 (key buckets -1 .. factor - 1). */
  width: number;
  /** Per stream: its (task, SSP) occurrences in the raw grouping. */
  curCount: Int32Array;
  /** Table slots of broadcast SSPs (never moved, never looked up). */
  exclude: Int32Array;
  /** The raw grouping's rows in SSP order. */
  stream: Int32Array;
  partition: Int32Array;
  bucket: Int32Array | null;
  /** Raw task of each row, or EVERY_TASK. */
  rowTask: Int32Array;
  nTasks: number;
}

export type SamzaProxyResult =
  | { needsRanks: true }
  | {
      needsRanks: false;
      /** Task of each row after the proxy (EVERY_TASK rows that stay everywhere keep EVERY_TASK). */
      task: Int32Array;
      /** Per stream: its (task, SSP) occurrences in the previous assignment. */
      prevCount: Int32Array;
      /** The row Samza fails at first, or -1; with failKind and the previous task involved. */
      failedRow: number;
      failKind: number;
      failPrevTask: number;
    };

export interface SamzaKernels {
  /** Returns `{ needsRanks: true }` when an SSP has two previous tasks and prevRank is null. */
  samzaProxy(input: SamzaProxyInput): SamzaProxyResult;
}

export interface Kernels extends HashKernels, FoldKernels, ChannelKernels, StandbyKernels, SamzaKernels, GroupKernels {
  /** 'reference', 'wasm-scalar' or 'wasm-simd'. */
  readonly name: EngineName;
}

export type EngineName = 'reference' | 'wasm-scalar' | 'wasm-simd';
/** What a caller may ask for: `wasm` picks SIMD when the runtime validates it. */
export type EngineChoice = 'wasm' | EngineName;
export interface EngineOptions {
  engine?: EngineChoice;
}

/** Every value `{ engine }`, `--engine` and ASSIGNOR_ENGINE accept. */
export const ENGINE_CHOICES: readonly EngineChoice[] = ['wasm', 'reference', 'wasm-scalar', 'wasm-simd'];
const cache = new Map<EngineName, Kernels>();

function resolve(choice: EngineChoice): EngineName {
  if (choice === 'wasm') return simdSupported() ? 'wasm-simd' : 'wasm-scalar';
  return choice;
}

function parseChoice(value: unknown, where: string): EngineChoice {
  if (typeof value === 'string' && (ENGINE_CHOICES as readonly string[]).includes(value)) return value as EngineChoice;
  throw new AssignorError('E_ENGINE', `unknown engine ${describe(value)} in ${where}: expected one of ${ENGINE_CHOICES.join(', ')}`, where);
}

// ASSIGNOR_ENGINE is read once per process, at the first call that needs the
// default (a per-call process.env read costs more than hashing a short key).
// A bad value is remembered too, so every call refuses it the same way.
let envDefault: EngineChoice | AssignorError | undefined;

function defaultChoice(): EngineChoice {
  if (envDefault === undefined) {
    // Browsers and workers have no `process`: there the default is simply 'wasm'.
    const env = typeof process === 'undefined' ? undefined : process.env?.ASSIGNOR_ENGINE;
    try {
      envDefault = env === undefined || env === '' ? 'wasm' : parseChoice(env, 'ASSIGNOR_ENGINE');
    } catch (e) {
      envDefault = e as AssignorError;
    }
  }
  if (envDefault instanceof AssignorError) throw envDefault;
  return envDefault;
}

/**
 * Forgets the ASSIGNOR_ENGINE value read so far; the next call reads it again.
 * For tests and for programs that change the variable after the first call.
 */
export function rereadEngineSetting(): void {
  envDefault = undefined;
}

/**
 * True when neither the options nor ASSIGNOR_ENGINE name an engine: the caller leaves the path to
 * assignor, which may then take a plain-JS path where that is faster on this runtime (hashing).
 */
export function engineLeftToUs(options?: EngineOptions): boolean {
  return options?.engine === undefined && defaultChoice() === 'wasm';
}

/** The engine from options, else ASSIGNOR_ENGINE (read once), else WASM (SIMD when available). */
export function getKernels(options: EngineOptions = {}): Kernels {
  const choice = options.engine !== undefined ? parseChoice(options.engine, 'options.engine') : defaultChoice();
  const name = resolve(choice);
  let k = cache.get(name);
  if (k === undefined) {
    k = name === 'reference' ? build(name, null) : build(name, loadWasmCore(name === 'wasm-simd'));
    cache.set(name, k);
  }
  return k;
}

function build(name: EngineName, core: WasmCore | null): Kernels {
  if (core === null) {
    return { name, ...referenceHash(), ...referenceFold(), ...referenceChannels(), ...referenceStandby(), ...referenceSamza(), ...referenceGroup() };
  }
  return { name, ...wasmHash(core), ...wasmFold(core), ...wasmChannels(core), ...wasmStandby(core), ...wasmSamza(core), ...wasmGroup(core) };
}
