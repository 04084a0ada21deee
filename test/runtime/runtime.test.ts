// The runtime matrix runs what it says: .ci/run sets ASSIGNOR_EXPECT_RUNTIME for each suite it
// starts (node24, node22, node26, bun, deno; see scripts/runtimes.mjs), and this test fails when
// the tests are in fact running somewhere else (a wrapper that fell back to the preinstalled Node,
// a vitest worker started under another binary).
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { CLI } from '../helpers.js';

declare const Bun: { version: string } | undefined;
declare const Deno: { version: { deno: string } } | undefined;

/** The runtime this process is, as scripts/runtimes.mjs names it (Node by its major line). */
function runtimeName(): string {
  if (typeof Bun !== 'undefined') return 'bun';
  if (typeof Deno !== 'undefined') return 'deno';
  return `node${process.versions.node.split('.')[0]}`;
}

describe('the runtime under test', () => {
  const expected = process.env.ASSIGNOR_EXPECT_RUNTIME;

  it.runIf(expected !== undefined)(`is ${expected ?? 'the one .ci/run asked for'}`, () => {
    expect(runtimeName()).toBe(expected);
  });

  it('runs the built CLI under this same runtime (process.execPath)', () => {
    const r = spawnSync(process.execPath, [CLI, 'hash', '--partitions', '12', '--key', '100:48069'], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.stdout.trim()).toBe('9');
  });
});
