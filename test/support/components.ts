// Tests that need a real component (a Kafka broker, Chromium, a JVM) run against the real thing.
// The rule, the same for every component: when the component is missing, the test FAILS in CI
// (CI=true, which .ci/run sets) and says what is missing; outside CI it is skipped with the same
// reason in its name, so a developer without Chromium still sees what did not run.
import { spawnSync } from 'node:child_process';
import { it } from 'vitest';

/** The part of vitest's `it` these tests use. */
export type Test = (name: string, fn: () => unknown, timeout?: number) => void;

export interface Component {
  name: string;
  /** Absent when available; otherwise why not and how to get it. */
  missing?: string;
}

export const inCI = process.env.CI === 'true' || process.env.CI === '1';

function onPath(command: string): string | undefined {
  const r = spawnSync('sh', ['-c', `command -v ${command}`], { encoding: 'utf8' });
  const path = r.stdout.trim();
  return r.status === 0 && path !== '' ? path : undefined;
}

/** A command on PATH, e.g. component('chromium', 'apt-get install chromium'). */
export function command(name: string, install: string): Component & { path: string } {
  const path = onPath(name);
  return path === undefined ? { name, path: '', missing: `${name} is not installed (${install})` } : { name, path };
}

/** `it` when every component is there; otherwise a failing test in CI and a skipped one elsewhere. */
export function itNeeds(...components: Component[]): Test {
  const missing = components.filter((c) => c.missing !== undefined);
  if (missing.length === 0) return it;
  const reason = missing.map((c) => c.missing).join('; ');
  if (!inCI) return it.skip;
  return (name) =>
    it(`${name} [needs ${missing.map((c) => c.name).join(', ')}]`, () => {
      throw new Error(`missing in CI: ${reason}`);
    });
}
