// What differs between the runtimes the library suite runs on (Node, Bun, Deno) when a test starts
// a child process of its own runtime: Deno runs a script as `deno run -A SCRIPT` and evaluates code
// with `deno eval`, where Node and Bun take `node SCRIPT` and `--input-type=module -e`. A test
// that checks a Node-only behaviour says so with itUnlessDeno and the reason, which stands in its
// name in Deno's run (docs/design.md, "Runtimes", lists them).
import { it } from 'vitest';

export const IN_DENO = typeof (globalThis as { Deno?: unknown }).Deno !== 'undefined';
export const IN_BUN = typeof (globalThis as { Bun?: unknown }).Bun !== 'undefined';

/** Arguments that make this runtime evaluate `code` as an ES module. */
export function moduleEvalArgs(code: string): string[] {
  return IN_DENO ? ['eval', code] : ['--input-type=module', '-e', code];
}

/** The words before a script's path on a shell command line that runs it under this runtime. */
export function scriptPrefix(): string[] {
  return IN_DENO ? [process.execPath, 'run', '-A'] : [process.execPath];
}

/** The part of vitest's `it` these tests use (as in components.ts, which this file must not import). */
type Test = (name: string, fn: () => unknown, timeout?: number) => void;

/** `it`, except under Deno, where the test is skipped with the reason in its name. */
export function itUnlessDeno(reason: string): Test {
  return IN_DENO ? (name) => it.skip(`${name} [not under Deno: ${reason}]`, () => undefined) : it;
}
