// The first contact with Kafka, bounded and explained (src/store/kafka-contact.ts): an address that
// accepts TCP connections and never answers (a local server on 127.0.0.1 that reads and says
// nothing), and a port that refuses. Each failure is one line saying what was tried, where, and for
// how long, within the contact timeout (default 10 s, ASSIGNOR_KAFKA_CONTACT_TIMEOUT_MS), not after
// KafkaJS's 30 s with "Broker not connected".
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server, type Socket } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AssignorError } from '../../src/errors.js';
import { KafkaPartitionCounts } from '../../src/coordinator/partition-counts.js';
import { KafkaCoordinatorStore } from '../../src/store/kafka-store.js';
import { withinDeadline } from '../../src/store/kafka-contact.js';
import { cleanupTempDirs, jobFileJson, startCli, statefulConfig, tempDir } from './helpers.js';

let silent: Server;
let silentPort = 0;
let refusedPort = 0;
const held: Socket[] = [];

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)));
}

beforeAll(async () => {
  // Accepts, reads whatever comes, never writes a byte.
  silent = createServer((s) => {
    held.push(s);
    s.on('data', () => undefined);
    s.on('error', () => undefined);
  });
  silentPort = await listen(silent);
  // A port that was just free: nothing listens there, so connections are refused.
  const probe = createServer();
  refusedPort = await listen(probe);
  await new Promise((r) => probe.close(r));
});

afterAll(async () => {
  for (const s of held) s.destroy();
  await new Promise((r) => silent.close(r));
  cleanupTempDirs();
});

async function timedCli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | string; err: string; ms: number }> {
  const started = Date.now();
  const r = startCli(args, env);
  const code = await r.exited;
  return { code, err: r.err(), ms: Date.now() - started };
}

describe('a broker that accepts connections and never answers', () => {
  it('store inspect: one line naming the address, what it did and the wait, after the contact timeout (2 s here)', async () => {
    const r = await timedCli(['store', 'inspect', '--store', `kafka://127.0.0.1:${silentPort}/t`], { ASSIGNOR_KAFKA_CONTACT_TIMEOUT_MS: '2000' });
    expect(r.code).toBe(2);
    expect(r.err.trim().split('\n')).toHaveLength(1);
    expect(r.err).toMatch(
      new RegExp(`^assignor: opening kafka://127\\.0\\.0\\.1:${silentPort}/t failed: no answer from Kafka at 127\\.0\\.0\\.1:${silentPort} within 2\\.0 s: 127\\.0\\.0\\.1:${silentPort} accepted the connection but never answered the first request \\(ApiVersions\\) \\(contactTimeout 2000 ms; ASSIGNOR_KAFKA_CONTACT_TIMEOUT_MS for the CLI\\)`),
    );
    expect(r.err).not.toContain('Broker not connected');
    // The wait is the contact timeout; KafkaJS's retries of the abandoned connect end within its backoff.
    expect(r.ms).toBeGreaterThanOrEqual(2000);
    expect(r.ms).toBeLessThan(12_000);
  }, 60_000);

  it('samza plan with the default: the wait is bounded at 10 s, and a refusing address beside it is named too', async () => {
    const job = join(tempDir(), 'job.json');
    writeFileSync(job, jobFileJson(statefulConfig(['kafka.PVE']), { 'kafka.PVE': 4 }));
    const r = await timedCli(['samza', 'plan', '--job', job, '--store', `kafka://127.0.0.1:${refusedPort},127.0.0.1:${silentPort}/t`]);
    expect(r.code).toBe(2);
    expect(r.err.trim().split('\n')).toHaveLength(1);
    expect(r.err).toContain(`no answer from Kafka at 127.0.0.1:${refusedPort},127.0.0.1:${silentPort} within 10.0 s: `);
    expect(r.err).toContain(`127.0.0.1:${silentPort} accepted the connection but never answered the first request (ApiVersions)`);
    expect(r.ms).toBeGreaterThanOrEqual(10_000);
    expect(r.ms).toBeLessThan(20_000);
  }, 60_000);

  it('samza watch --brokers: the partition-count read says the same, and is retried with backoff', async () => {
    const dir = tempDir();
    const job = join(dir, 'job.json');
    writeFileSync(job, jobFileJson(statefulConfig(['kafka.PVE']), {}));
    const w = startCli(['samza', 'watch', '--job', job, '--store', join(dir, 'store'), '--brokers', `127.0.0.1:${silentPort}`, '--interval', '1s'], { ASSIGNOR_KAFKA_CONTACT_TIMEOUT_MS: '1000' });
    try {
      await w.stderrMatch(/retrying in 1\.0 s\n/, 30_000);
      const lines = w.err().split('\n').filter((l) => l.includes('retrying in'));
      expect(lines[0]).toBe(
        `watch: cannot read partition counts from Kafka at 127.0.0.1:${silentPort}: no answer from Kafka at 127.0.0.1:${silentPort} within 1.0 s: 127.0.0.1:${silentPort} accepted the connection but never answered the first request (ApiVersions) (contactTimeout 1000 ms; ASSIGNOR_KAFKA_CONTACT_TIMEOUT_MS for the CLI); retrying in 0.5 s`,
      );
      expect(w.child.exitCode).toBeNull();
    } finally {
      w.child.kill('SIGKILL');
    }
  }, 60_000);

  it('the API: contactTimeout bounds KafkaCoordinatorStore.open and KafkaPartitionCounts', async () => {
    const started = Date.now();
    const e = await KafkaCoordinatorStore.open(`kafka://127.0.0.1:${silentPort}/t`, { readOnly: true, contactTimeout: 500 }).then(
      () => undefined,
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(AssignorError);
    expect((e as AssignorError).code).toBe('E_STORE_KAFKA');
    expect((e as AssignorError).message).toContain('within 0.5 s: ');
    expect(Date.now() - started).toBeLessThan(5000);
    const counts = new KafkaPartitionCounts([`127.0.0.1:${silentPort}`], { contactTimeout: 500 });
    const c = await counts.counts(['kafka.PVE']).then(
      () => undefined,
      (x: unknown) => x,
    );
    await counts.close();
    expect((c as AssignorError).code).toBe('E_COUNTS_KAFKA');
    expect((c as AssignorError).message).toContain('accepted the connection but never answered the first request (ApiVersions)');
    expect(() => new KafkaPartitionCounts(['127.0.0.1:1'], { contactTimeout: 0 })).toThrow('contactTimeout must be a positive whole number of milliseconds');
  }, 60_000);
});

describe('a port that refuses connections', () => {
  it('one line: the address refused, how many attempts, how long it took', async () => {
    const r = await timedCli(['store', 'export', '--store', `kafka://127.0.0.1:${refusedPort}/t`]);
    expect(r.code).toBe(2);
    expect(r.err.trim().split('\n')).toHaveLength(1);
    expect(r.err).toMatch(new RegExp(`^assignor: opening kafka://127\\.0\\.0\\.1:${refusedPort}/t failed: no answer from Kafka at 127\\.0\\.0\\.1:${refusedPort} after \\d+\\.\\d s: 127\\.0\\.0\\.1:${refusedPort} refused the connection \\(\\d+ attempts\\)`));
    expect(r.ms).toBeLessThan(12_000);
  }, 60_000);

  it('a bad ASSIGNOR_KAFKA_CONTACT_TIMEOUT_MS is one line, exit 2', async () => {
    const r = await timedCli(['store', 'inspect', '--store', `kafka://127.0.0.1:${refusedPort}/t`], { ASSIGNOR_KAFKA_CONTACT_TIMEOUT_MS: 'soon' });
    expect(r.code).toBe(2);
    expect(r.err).toBe('assignor: ASSIGNOR_KAFKA_CONTACT_TIMEOUT_MS must be a positive whole number of milliseconds, got "soon" (at ASSIGNOR_KAFKA_CONTACT_TIMEOUT_MS)\n');
  }, 60_000);
});

describe('withinDeadline: the bound on each step of open after first contact', () => {
  it('passes a result or an error through, and names the step that did not finish in time', async () => {
    expect(await withinDeadline(Promise.resolve(7), 1000, 'a step')).toBe(7);
    await expect(withinDeadline(Promise.reject(new Error('refused')), 1000, 'a step')).rejects.toThrow('refused');
    const started = Date.now();
    let settle!: (e: Error) => void;
    const stuck = new Promise<number>((_, reject) => (settle = reject));
    await expect(withinDeadline(stuck, 200, 'fencing earlier writers of t')).rejects.toThrow('fencing earlier writers of t did not finish within 0.2 s');
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    settle(new Error('late')); // an abandoned step that fails later is no unhandled rejection
    await new Promise((r) => setTimeout(r, 20));
  });
});
