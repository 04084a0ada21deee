// `assignor samza watch` following a real topic as it grows: 4 -> 8 -> 16 partitions with admin
// createPartitions. Within two poll intervals of each growth the Kafka store holds the folded model
// (one write per change), and every one of 10,000 random keys stays on its task: the key's
// partition by Kafka's hasher at 4, 8 and 16 partitions maps to the same task.
import { afterAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { partitionsForKeys } from '../../src/hashing/index.js';
import { KafkaCoordinatorStore } from '../../src/store/kafka-store.js';
import { uniqueTopic, useSharedBroker, withAdmin } from '../kafka/shared-broker.js';
import { cleanupTempDirs, jobFileJson, sspTasks, startCli, statefulConfig, tempDir } from './helpers.js';
import { commits, readRaw } from './kafka-helpers.js';

const brokers = useSharedBroker();
afterAll(cleanupTempDirs);

const INTERVAL_MS = 2000;

/** Deterministic random keys (mulberry32), strings of 1..24 printable and non-ASCII characters. */
function randomKeys(n: number, seed: number): string[] {
  let a = seed >>> 0;
  const next = (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789-_:/ éßжλ中文🙂';
  const chars = [...alphabet];
  return Array.from({ length: n }, () => Array.from({ length: 1 + Math.floor(next() * 24) }, () => chars[Math.floor(next() * chars.length)]).join(''));
}

async function storedTasks(location: string): Promise<Map<string, string[]>> {
  const s = await KafkaCoordinatorStore.open(location, { readOnly: true });
  try {
    return sspTasks(s);
  } finally {
    await s.close();
  }
}

describe('watch follows partition growth on the broker', () => {
  it('4 -> 8 -> 16: the folded model is stored within two intervals, one write per change, and 10,000 keys keep their tasks', async () => {
    const input = uniqueTopic('growth-input');
    const coord = uniqueTopic('growth-coord');
    const stream = `kafka.${input}`;
    const location = `kafka://${brokers()}/${coord}`;
    await withAdmin((a) => a.createTopics({ waitForLeaders: true, topics: [{ topic: input, numPartitions: 4 }] }));
    const job = join(tempDir(), 'job.json');
    writeFileSync(job, jobFileJson(statefulConfig([stream]), {}));
    const w = startCli(['samza', 'watch', '--job', job, '--store', location, '--brokers', brokers(), '--interval', `${INTERVAL_MS}ms`]);
    try {
      await w.lines(1, 120_000);
      const keys = randomKeys(10_000, 20261201);
      const taskOf = (tasks: Map<string, string[]>, n: number): string[] => {
        const parts = partitionsForKeys(keys, n);
        return Array.from(parts, (p) => {
          const t = tasks.get(`${stream}#${p}`);
          if (t === undefined || t.length !== 1) throw new Error(`no single task for ${stream}#${p} at ${n} partitions`);
          return t[0]!;
        });
      };
      const at4 = await storedTasks(location);
      expect(at4.size).toBe(4);
      const keyTasks = taskOf(at4, 4);
      expect(new Set(keyTasks).size).toBe(4);

      const timings: number[] = [];
      for (const [n, line] of [
        [8, 2],
        [16, 3],
      ] as const) {
        const t0 = Date.now();
        await withAdmin((a) => a.createPartitions({ topicPartitions: [{ topic: input, count: n }] }));
        await w.lines(line, 4 * INTERVAL_MS + 30_000);
        timings.push(Date.now() - t0);
        const model = JSON.parse(w.out[line - 1]!) as { streams: Array<{ partitions: number; basePartitions: number }> };
        expect(model.streams[0]).toMatchObject({ partitions: n, basePartitions: 4 });
        const tasks = await storedTasks(location);
        expect(tasks.size).toBe(n);
        for (let p = 0; p < n; p++) expect(tasks.get(`${stream}#${p}`)).toEqual(at4.get(`${stream}#${p % 4}`));
        expect(taskOf(tasks, n)).toEqual(keyTasks);
      }
      console.log(`growth: model stored ${timings.map((t) => `${t} ms`).join(' and ')} after createPartitions (interval ${INTERVAL_MS} ms)`);
      for (const t of timings) expect(t).toBeLessThanOrEqual(2 * INTERVAL_MS);
      // Some more polls see 16 again: nothing more is written.
      await new Promise((r) => setTimeout(r, 2 * INTERVAL_MS));
      expect(w.out.length).toBe(3);
      w.child.kill('SIGTERM');
      expect(await w.exited).toBe(0);
      expect(w.err()).toContain('watch: stopped');
      // One transaction at start and one per change.
      expect(commits(await readRaw(coord)).length).toBe(3);
    } finally {
      w.child.kill('SIGKILL');
    }
  }, 400_000);
});
