// Two coordinators for the same job on the same Kafka coordinator stream: the second fences the
// first (same transactional id). When the partition count changes both see it, exactly one writes,
// and the fenced one stops with one clear line and exit 2, having written nothing more.
import { afterAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { KafkaCoordinatorStore } from '../../src/store/kafka-store.js';
import { uniqueTopic, useSharedBroker } from '../kafka/shared-broker.js';
import { cleanupTempDirs, jobFileJson, sspTasks, startCli, statefulConfig, tempDir } from './helpers.js';
import { commits, readRaw } from './kafka-helpers.js';

const brokers = useSharedBroker();
afterAll(cleanupTempDirs);

describe('fencing between coordinators of one job', () => {
  it('the newer coordinator fences the older: after a change exactly one writes, the fenced one exits 2', async () => {
    const coord = uniqueTopic('fence-coord');
    const location = `kafka://${brokers()}/${coord}`;
    const stream = 'kafka.fenced-input';
    const config = statefulConfig([stream]);
    const job = join(tempDir(), 'job.json');
    writeFileSync(job, jobFileJson(config, { [stream]: 4 }));
    const args = ['samza', 'watch', '--job', job, '--store', location, '--interval', '200ms'];
    const a = startCli(args);
    try {
      await a.lines(1, 120_000);
      const second = startCli(args);
      try {
        await second.lines(1, 120_000);
        expect(second.err()).toContain('the store already holds this job model');
        const before = commits(await readRaw(coord)).length;
        writeFileSync(job, jobFileJson(config, { [stream]: 8 }));
        await second.lines(2, 60_000);
        expect(await a.exited).toBe(2);
        const lines = a.err().trim().split('\n');
        expect(lines[lines.length - 1]).toMatch(/^assignor: another writer of Kafka topic .* took over while writing: this coordinator is fenced and writes nothing more/);
        expect(a.out.length).toBe(1);
        // Exactly one more transaction: the second coordinator's.
        expect(commits(await readRaw(coord)).length).toBe(before + 1);
        const s = await KafkaCoordinatorStore.open(location, { readOnly: true });
        expect(sspTasks(s).size).toBe(8);
        await s.close();
        second.child.kill('SIGTERM');
        expect(await second.exited).toBe(0);
      } finally {
        second.child.kill('SIGKILL');
      }
    } finally {
      a.child.kill('SIGKILL');
    }
  }, 300_000);
});
