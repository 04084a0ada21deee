// The one broker a test run shares. In CI, .ci/run starts it and exports KAFKA_BROKERS. A local
// `npm test` (or `npx vitest run <file>`) starts it in the background at the start of the run with
// the same script (test/kafka/broker.ts), and the global teardown stops it. Tests that need Kafka await
// `sharedBroker()`; when no broker can be had they fail with the reason: they never skip.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll } from 'vitest';
import { Kafka, logLevel, type Admin } from 'kafkajs';
import { startBroker, waitForBroker } from './broker.js';

/** Directory of the broker started for this run (set by test/kafka/global-setup.ts). */
export const RUN_DIR_ENV = 'ASSIGNOR_TEST_KAFKA_DIR';
const READY = 'ready';
const FAILED = 'failed';

async function sleep(ms: number): Promise<void> {
  await new Promise((r) => setTimeout(r, ms));
}

let pending: Promise<string> | undefined;

/** `host:port` of the run's broker; starts it on first use when KAFKA_BROKERS is not set. */
export function sharedBroker(): Promise<string> {
  pending ??= resolveBroker();
  return pending;
}

async function resolveBroker(): Promise<string> {
  const given = process.env.KAFKA_BROKERS;
  if (given !== undefined && given !== '') {
    await waitForBroker(given, 60_000);
    return given;
  }
  const dir = process.env[RUN_DIR_ENV];
  if (dir === undefined) throw new Error(`no Kafka broker: KAFKA_BROKERS is not set and ${RUN_DIR_ENV} is missing (run the tests through vitest, or start one with npx tsx test/kafka/broker.ts start)`);
  // The global setup is starting it in the background; wait for its address.
  const deadline = Date.now() + 300_000;
  while (!existsSync(join(dir, READY))) {
    if (existsSync(join(dir, FAILED))) throw new Error(`the Kafka broker for this run did not start: ${readFileSync(join(dir, FAILED), 'utf8')}`);
    if (Date.now() > deadline) throw new Error('timed out waiting for the Kafka broker of this run to start');
    await sleep(250);
  }
  return readFileSync(join(dir, READY), 'utf8');
}

/** Starts the run's broker in `dir` and records its address (READY) or the failure (FAILED). */
export async function startRunBroker(dir: string): Promise<void> {
  try {
    const b = await startBroker({ dir: join(dir, 'broker'), timeoutMs: 240_000 });
    writeFileSync(join(dir, READY), b.brokers);
  } catch (e) {
    writeFileSync(join(dir, FAILED), (e as Error).message);
  }
}

/**
 * For a test file that needs Kafka: waits (in a beforeAll, up to 5 minutes: the broker may still be
 * booting) for the run's broker. The returned function gives its address inside tests.
 */
export function useSharedBroker(): () => string {
  let brokers: string | undefined;
  beforeAll(async () => {
    brokers = await sharedBroker();
  }, 300_000);
  return () => {
    if (brokers === undefined) throw new Error('the Kafka broker is not available (see the beforeAll failure)');
    return brokers;
  };
}

/** A KafkaJS client for the shared broker (quiet unless ASSIGNOR_KAFKA_LOG is set). */
export async function sharedKafka(clientId = 'assignor-test'): Promise<Kafka> {
  const brokers = await sharedBroker();
  return new Kafka({ clientId, brokers: [brokers], logLevel: process.env.ASSIGNOR_KAFKA_LOG ? logLevel.INFO : logLevel.NOTHING });
}

/** A topic name no other test (or earlier run on the same broker) uses. */
export function uniqueTopic(prefix: string): string {
  return `${prefix}-${process.pid}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
}

/** Runs fn with a connected admin client and disconnects it afterwards. */
export async function withAdmin<T>(fn: (admin: Admin) => Promise<T>): Promise<T> {
  const admin = (await sharedKafka('assignor-test-admin')).admin();
  await admin.connect();
  try {
    return await fn(admin);
  } finally {
    await admin.disconnect();
  }
}
