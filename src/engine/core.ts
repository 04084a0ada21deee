// Loads a kernel module synchronously and owns its arena. This file and
// src/engine/wasm/* are the only code that sees pointers or linear memory.
import { AssignorError } from '../errors.js';
import { RELEASE_WASM_BASE64, SIMD_WASM_BASE64 } from './wasm-binaries.js';

/** Raw exports of assembly/index.ts (pointer ABI: numbers in, numbers out). */
export interface RawExports {
  memory: WebAssembly.Memory;
  alloc(bytes: number): number;
  reset(): void;
  simdEnabled(): number;
  hashVar(data: number, offsets: number, count: number, n: number, out: number): void;
  hashFixed(data: number, keyLen: number, count: number, n: number, out: number): void;
  foldPartitions(streams: number, partitions: number, count: number, bases: number, nBases: number): number;
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
  put(src: Uint8Array | Int32Array | Float64Array | Uint32Array | BigInt64Array): number {
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

  /**
   * A new instance of the same kernels with its own memory and arena, for data that must stay in
   * kernel memory across calls (hashing's KeyBatch): the shared instance resets its arena per call.
   */
  fork(): WasmCore {
    return instantiate(this.simd);
  }
}

// The modules are embedded in the package as base64 (scripts/embed-wasm.mjs), so loading needs
// no file system and no URL: bundlers and CommonJS take them as they are.
// Node's Buffer decodes base64 natively. The atob loop below runs interpreted in a fresh process:
// 5-15 ms of a cold CLI run for the 28 KB SIMD module, against under 0.5 ms. (Typed here, not from
// @types/node: the root export's types need no Node types.)
const NodeBuffer = (globalThis as { Buffer?: { from(text: string, encoding: 'base64'): Uint8Array } }).Buffer;

function moduleBytes(simd: boolean): Uint8Array<ArrayBuffer> {
  const base64 = simd ? SIMD_WASM_BASE64 : RELEASE_WASM_BASE64;
  if (typeof NodeBuffer?.from === 'function') {
    const b = NodeBuffer.from(base64, 'base64');
    return new Uint8Array(b.buffer as ArrayBuffer, b.byteOffset, b.byteLength);
  }
  const text = atob(base64);
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return bytes;
}

let simdFlag: boolean | undefined;

// Each module is decoded and compiled once; instances (the shared one, every KeyBatch's fork) reuse it.
const compiled = new Map<boolean, WebAssembly.Module>();
function compiledModule(simd: boolean): WebAssembly.Module {
  let m = compiled.get(simd);
  if (m === undefined) compiled.set(simd, (m = new WebAssembly.Module(moduleBytes(simd))));
  return m;
}

/**
 * True when this runtime validates the SIMD build (checked once). Compiling validates the whole
 * module, so the check is the compile itself, kept for the first instance: a separate
 * WebAssembly.validate would decode and validate the module a second time (~10 ms of a cold CLI run).
 */
export function simdSupported(): boolean {
  if (simdFlag === undefined) {
    try {
      compiledModule(true);
      simdFlag = true;
    } catch (e) {
      // What WebAssembly.validate reports as false; anything else (out of memory) is not an answer.
      if (!(e instanceof WebAssembly.CompileError)) throw e;
      simdFlag = false;
    }
  }
  return simdFlag;
}

/** Reads an AssemblyScript string (UTF-16, byte length in the word before it) for abort messages. */
function readString(memory: WebAssembly.Memory, ptr: number): string {
  if (ptr === 0) return '';
  const bytes = new Uint32Array(memory.buffer, ptr - 4, 1)[0]!;
  return String.fromCharCode(...new Uint16Array(memory.buffer, ptr, Math.min(bytes >>> 1, 512)));
}

/** A fresh instance of the SIMD or scalar module, with its own memory. */
function instantiate(simd: boolean): WasmCore {
  let memory: WebAssembly.Memory | undefined;
  // A kernel aborts only on a broken invariant (the release builds carry no assertions), so an
  // abort is a bug in assignor (a plain Error, not an input error), with the kernel's own words.
  const abort = (msg: number, file: number, line: number, column: number): never => {
    const where = memory === undefined ? '' : ` at ${readString(memory, file)}:${line}:${column}`;
    throw new Error(`assignor kernel aborted: ${memory === undefined ? 'unknown' : readString(memory, msg)}${where}`);
  };
  const instance = new WebAssembly.Instance(compiledModule(simd), { env: { abort } });
  const raw = instance.exports as unknown as RawExports;
  memory = raw.memory;
  return new WasmCore(raw);
}

const cores = new Map<boolean, WasmCore>();

/** Instantiates (once per build) the SIMD or scalar kernel module. */
export function loadWasmCore(simd: boolean): WasmCore {
  let core = cores.get(simd);
  if (core === undefined) {
    if (simd && !simdSupported()) {
      throw new AssignorError('E_ENGINE', 'this runtime does not support WebAssembly SIMD; use engine "wasm" or "wasm-scalar"');
    }
    core = instantiate(simd);
    cores.set(simd, core);
  }
  return core;
}
