// Vitest global setup: when no broker is given (KAFKA_BROKERS, as in CI), starts one for the run
// in the background, so it boots while the first tests run; tests that need it wait for it
// (shared-broker.ts). The teardown stops it, also when tests failed. A broker given by
// KAFKA_BROKERS belongs to whoever started it.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stopBroker } from './broker.js';
import { RUN_DIR_ENV, startRunBroker } from './shared-broker.js';

let dir: string | undefined;
let starting: Promise<void> | undefined;

export function setup(): void {
  if (process.env.KAFKA_BROKERS) return;
  dir = mkdtempSync(join(tmpdir(), 'assignor-test-kafka-'));
  process.env[RUN_DIR_ENV] = dir;
  starting = startRunBroker(dir);
}

export async function teardown(): Promise<void> {
  if (dir === undefined) return;
  await starting;
  if (existsSync(join(dir, 'broker'))) await stopBroker(join(dir, 'broker'), { graceMs: 15_000 });
  rmSync(dir, { recursive: true, force: true });
}
