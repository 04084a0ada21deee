// A broker outage during `assignor samza watch`, on a broker of its own (killed and restarted with
// its data): the coordinator reports the failures and retries with backoff, keeps running, and
// once the broker is back it catches up with a partition change made meanwhile, writing it once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { startBroker, stopBroker, type Broker } from '../kafka/broker.js';
import { KafkaCoordinatorStore } from '../../src/store/kafka-store.js';
import { cleanupTempDirs, jobFileJson, sspTasks, startCli, statefulConfig, tempDir } from './helpers.js';

let dir: string;
let broker: Broker | undefined;

beforeAll(async () => {
  dir = tempDir('assignor-restart-broker-');
  broker = await startBroker({ dir, timeoutMs: 400_000 });
}, 450_000);

afterAll(async () => {
  await stopBroker(dir, { graceMs: 0, remove: true });
  cleanupTempDirs();
}, 60_000);

async function admin<T>(fn: (a: ReturnType<Kafka['admin']>) => Promise<T>): Promise<T> {
  const a = new Kafka({ clientId: 'assignor-test-restart', brokers: [broker!.brokers], logLevel: logLevel.NOTHING }).admin();
  await a.connect();
  try {
    return await fn(a);
  } finally {
    await a.disconnect();
  }
}

describe('broker restart during watch', () => {
  it('retries while the broker is down and catches up with the change made after it came back', async () => {
    const b = broker!.brokers;
    const input = 'restart-input';
    const location = `kafka://${b}/restart-coord`;
    await admin((a) => a.createTopics({ waitForLeaders: true, topics: [{ topic: input, numPartitions: 4 }] }));
    const job = join(tempDir(), 'job.json');
    writeFileSync(job, jobFileJson(statefulConfig([`kafka.${input}`]), {}));
    const w = startCli(['samza', 'watch', '--job', job, '--store', location, '--brokers', b, '--interval', '1s']);
    try {
      await w.lines(1, 120_000);
      await stopBroker(dir, { graceMs: 0 }); // a crash, not a controlled shutdown
      await w.stderrMatch(/watch: cannot read partition counts from Kafka at .*; retrying in \d/, 60_000);
      broker = await startBroker({ dir, timeoutMs: 400_000 });
      expect(broker.brokers).toBe(b);
      expect(w.child.exitCode).toBeNull();
      await admin((a) => a.createPartitions({ topicPartitions: [{ topic: input, count: 8 }] }));
      await w.lines(2, 180_000);
      const model = JSON.parse(w.out[1]!) as { streams: Array<{ partitions: number; basePartitions: number }> };
      expect(model.streams[0]).toMatchObject({ partitions: 8, basePartitions: 4 });
      const s = await KafkaCoordinatorStore.open(location, { readOnly: true });
      const tasks = sspTasks(s);
      await s.close();
      expect(tasks.size).toBe(8);
      for (let p = 0; p < 8; p++) expect(tasks.get(`kafka.${input}#${p}`)).toEqual(tasks.get(`kafka.${input}#${p % 4}`));
      await new Promise((r) => setTimeout(r, 3000));
      expect(w.out.length).toBe(2);
      w.child.kill('SIGTERM');
      expect(await w.exited).toBe(0);
    } finally {
      w.child.kill('SIGKILL');
    }
  }, 900_000);
});
