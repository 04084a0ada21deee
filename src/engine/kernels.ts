// The one boundary between domain code and the kernels. Domain code asks for
// `loadKernels()` and calls these methods with typed arrays; only src/engine/
// knows about WASM pointers, the arena and memory growth.
//
// Every kernel family (hash, fold, channels, standby, samza, group, streams) declares its interface in
// ./abi.ts (re-exported here) and has two implementations: src/engine/reference/<family>.ts
// (pure TS, the obviously-correct twin) and src/engine/wasm/<family>.ts (the WASM binding).
import { AssignorError, describe } from '../errors.js';
import { referenceHash } from './reference/hash.js';
import { referenceFold } from './reference/fold.js';
import { referenceChannels } from './reference/channels.js';
import { referenceStandby } from './reference/standby.js';
import { referenceSamza } from './reference/samza.js';
import { referenceGroup } from './reference/group-plan.js';
import { referenceStreams } from './reference/streams.js';
import { loadWasmCore, simdSupported, type WasmCore } from './core.js';
import { wasmHash } from './wasm/hash.js';
import { wasmFold } from './wasm/fold.js';
import { wasmChannels } from './wasm/channels.js';
import { wasmStandby } from './wasm/standby.js';
import { wasmSamza } from './wasm/samza.js';
import { wasmGroup } from './wasm/group.js';
import { wasmStreams } from './wasm/streams.js';
import type { EngineChoice, EngineName, EngineOptions, Kernels } from './abi.js';
export * from './abi.js';

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
export function loadKernels(options: EngineOptions = {}): Kernels {
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
    return { name, ...referenceHash(), ...referenceFold(), ...referenceChannels(), ...referenceStandby(), ...referenceSamza(), ...referenceGroup(), ...referenceStreams() };
  }
  return { name, ...wasmHash(core), ...wasmFold(core), ...wasmChannels(core), ...wasmStandby(core), ...wasmSamza(core), ...wasmGroup(core), ...wasmStreams(core) };
}
