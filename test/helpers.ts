// Shared test helpers: engines to compare, and running the built CLI as a user would.
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { AssignorError } from '../src/errors.js';
import { loadKernels, type Kernels } from '../src/engine/kernels.js';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const CLI = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));

/** Every engine: the reference twin, WASM scalar and WASM SIMD. */
export function engines(): Kernels[] {
  return [loadKernels({ engine: 'reference' }), loadKernels({ engine: 'wasm-scalar' }), loadKernels({ engine: 'wasm-simd' })];
}

/** Runs `assignor <args>` (the built dist/ binary) with optional stdin. */
export function cli(args: string[], input?: string | Buffer, env: NodeJS.ProcessEnv = {}): SpawnSyncReturns<string> {
  if (input !== undefined && input.length > 32_768 && IN_DENO) return cliFromFile(args, input, env);
  return spawnSync(process.execPath, [CLI, ...args], {
    input,
    encoding: 'utf8',
    cwd: ROOT,
    env: { ...process.env, ...env },
    maxBuffer: 1 << 30,
  });
}

const IN_DENO = typeof (globalThis as { Deno?: unknown }).Deno !== 'undefined';

/**
 * Deno's spawnSync writes all of `input` before it reads the child's output, so a child whose
 * output fills the pipe first never finishes (Deno 2.9); there the input goes through a file.
 */
function cliFromFile(args: string[], input: string | Buffer, env: NodeJS.ProcessEnv): SpawnSyncReturns<string> {
  const dir = mkdtempSync(join(tmpdir(), 'assignor-cli-input-'));
  try {
    writeFileSync(join(dir, 'stdin'), input);
    return spawnSync('sh', ['-c', 'f=$1; shift; exec "$@" < "$f"', 'sh', join(dir, 'stdin'), process.execPath, CLI, ...args], {
      encoding: 'utf8',
      cwd: ROOT,
      env: { ...process.env, ...env },
      maxBuffer: 1 << 30,
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs fn, expects it to throw an AssignorError, and returns it (for code/path/message checks). */
export function caught(fn: () => unknown): AssignorError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(AssignorError);
    return e as AssignorError;
  }
  throw new Error('expected an AssignorError');
}

/** A command line for util-linux `script`, run in a terminal 300 columns wide (a pseudo-terminal starts at 0 or 80 columns), so the progress bar is never cut to fit. */
export function wide(cmd: string): string {
  return `stty cols 300 2>/dev/null; ${cmd}`;
}
