// Loads a kernel module synchronously and owns its arena. This file and
// src/engine/wasm/* are the only code that sees pointers or linear memory.
import { readFileSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { instantiateSync } from '@assemblyscript/loader';
import { AssignorError } from '../errors.js';

/** Raw exports of assembly/index.ts (pointer ABI: numbers in, numbers out). */
export interface RawExports {
  memory: WebAssembly.Memory;
  alloc(bytes: number): number;
  reset(): void;
  simdEnabled(): number;
  hashVar(data: number, offsets: number, count: number, n: number, out: number): void;
  hashFixed(data: number, keyLen: number, count: number, n: number, out: number): void;
  foldPartitions(streams: number, partitions: number, count: number, bases: number, nBases: number, out: number): number;
  [kernel: string]: unknown;
}

/**
 * One instantiated module plus its arena. Usage per call: `begin()`, then
 * `alloc` every buffer the call needs, then take views (`u8`, `i32`, ...)
 * only after the last allocation, because growing memory detaches old views.
 */
export class WasmCore {
  readonly raw: RawExports;
  readonly simd: boolean;

  constructor(raw: RawExports) {
    this.raw = raw;
    this.simd = raw.simdEnabled() === 1;
  }

  /** Starts a call: everything the previous call allocated is released. */
  begin(): void {
    this.raw.reset();
  }

  /** Allocates `bytes` (16-byte aligned) in the arena; may grow memory. */
  alloc(bytes: number): number {
    if (bytes > 0x7fff0000) {
      throw new AssignorError('E_TOO_LARGE', `a single call needs ${bytes} bytes of kernel memory, more than the 2 GiB one call may use; split the input into batches`);
    }
    return this.raw.alloc(bytes) >>> 0;
  }

  /** Copies `src` into a fresh allocation and returns its pointer. */
  put(src: Uint8Array | Int32Array | Float64Array | Uint32Array): number {
    const ptr = this.alloc(src.byteLength);
    new Uint8Array(this.raw.memory.buffer, ptr, src.byteLength).set(new Uint8Array(src.buffer, src.byteOffset, src.byteLength));
    return ptr;
  }

  u8(ptr: number, length: number): Uint8Array {
    return new Uint8Array(this.raw.memory.buffer, ptr, length);
  }

  i32(ptr: number, length: number): Int32Array {
    return new Int32Array(this.raw.memory.buffer, ptr, length);
  }



  /** Copies an Int32Array result out of kernel memory (the caller owns it). */
  takeI32(ptr: number, length: number): Int32Array {
    return this.i32(ptr, length).slice();
  }

  /** Current size of linear memory in bytes (tests check it stays flat). */
  memoryBytes(): number {
    return this.raw.memory.buffer.byteLength;
  }
}

// The modules sit in dist/wasm/ once built, or in build/ when running from src/.
function locate(file: string): string {
  for (const rel of [`../wasm/${file}`, `../../build/${file}`]) {
    const path = fileURLToPath(new URL(rel, import.meta.url));
    if (existsSync(path)) return path;
  }
  throw new AssignorError('E_NO_WASM', `kernel module ${file} not found: run \`npm run build\` first`);
}

let simdFlag: boolean | undefined;

/** True when this runtime validates the SIMD build (checked once). */
export function simdSupported(): boolean {
  if (simdFlag === undefined) simdFlag = WebAssembly.validate(readFileSync(locate('release.simd.wasm')));
  return simdFlag;
}

const cores = new Map<string, WasmCore>();

/** Instantiates (once) the SIMD, scalar or debug build through the AssemblyScript loader. */
export function loadWasmCore(simd: boolean, debug = false): WasmCore {
  const file = debug ? 'debug.wasm' : simd ? 'release.simd.wasm' : 'release.wasm';
  let core = cores.get(file);
  if (core === undefined) {
    if (simd && !simdSupported()) {
      throw new AssignorError('E_ENGINE', 'this runtime does not support WebAssembly SIMD; use engine "wasm" or "wasm-scalar"');
    }
    const { exports } = instantiateSync<Record<string, unknown>>(readFileSync(locate(file)), {});
    core = new WasmCore(exports as unknown as RawExports);
    cores.set(file, core);
  }
  return core;
}
