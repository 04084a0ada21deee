// kill -9 of the coordinator (`assignor samza watch` on the Kafka store) at random moments during
// persists, restarting it each time. Half the kills come at a random delay after the partition
// count changed (before, during or after the write), half at a random delay after the first records
// of the write reached the broker (a tail consumer, read_uncommitted, sees them), so most of those
// land inside the transaction; the coordinator sends 10 records per request here to make writes
// span 50-150 requests (with 100 per request a local broker took a whole write in less time than
// the tail takes to see its first records: 0 or 1 of 30 kills cut a write short). Every committed transaction on the topic must leave exactly one
// of the job models the cycle computes (the previous one or the new one, never part of one), the
// restarted coordinator resumes from the store, and the final state is the last model. Writes cut
// short by a kill are aborted transactions: they are on the topic (read_uncommitted shows them) but
// never visible. This is also issue 14's kill property for the Kafka store (20+ kills by default).
// 30 kills by default, 100 with ASSIGNOR_LONG=1.
import { afterAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CoordinatorStore } from '../../src/store/index.js';
import { persistCycle } from '../../src/coordinator/persist.js';
import { uniqueTopic, useSharedBroker } from '../kafka/shared-broker.js';
import { cleanupTempDirs, contents, jobFileJson, startCli, statefulConfig, tempDir, until, type Running } from './helpers.js';
import { commits, readRaw, replay, tailTopic } from './kafka-helpers.js';

const brokers = useSharedBroker();
afterAll(cleanupTempDirs);

const KILLS = Number(process.env.ASSIGNOR_LONG) ? 100 : 30;
const BASE = 500;
const STREAM = 'kafka.crash-input';
/** Partition counts: multiples of the base, up and down, so every step moves no key and writes 500 to 1,500 records. */
const countAt = (k: number): number => BASE * (1 + (k % 4));

describe('kill -9 during persists (Kafka store)', () => {
  it(`${KILLS} kills: every committed write is a whole model, the restarted coordinator resumes, aborted writes stay invisible`, async () => {
    const config = statefulConfig([STREAM]);
    // The models the cycle computes for each step, each from the previous one (file store, same code).
    const expected: string[] = [];
    const model = CoordinatorStore.open(tempDir());
    for (let k = 0; k <= KILLS + 1; k++) {
      await persistCycle(model, { config, partitionCounts: new Map([[STREAM, countAt(k)]]) });
      expected.push(JSON.stringify(contents(model)));
    }
    model.close();

    const coord = uniqueTopic('crash-coord');
    const job = join(tempDir(), 'job.json');
    const args = ['samza', 'watch', '--job', job, '--store', `kafka://${brokers()}/${coord}`, '--interval', '100ms', '--quiet'];
    writeFileSync(job, jobFileJson(config, { [STREAM]: countAt(0) }));
    const env = { ASSIGNOR_KAFKA_CHUNK: '10' };
    let w: Running = startCli(args, env);
    let tail: Awaited<ReturnType<typeof tailTopic>> | undefined;
    let window = 0;
    try {
      await w.lines(1, 120_000);
      tail = await tailTopic(coord);
      // Calibrate: how long from a job-file change to the persisted model, without a kill.
      const t0 = Date.now();
      writeFileSync(job, jobFileJson(config, { [STREAM]: countAt(1) }));
      await w.lines(2, 60_000);
      window = Math.max(300, 1.5 * (Date.now() - t0));
      let seed = 7;
      const random = (): number => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 4294967296);
      for (let k = 2; k <= KILLS + 1; k++) {
        const mark = tail.last;
        const seen = tail;
        writeFileSync(job, jobFileJson(config, { [STREAM]: countAt(k) }));
        if (k % 2 === 0) await new Promise((r) => setTimeout(r, random() * window));
        else {
          await until(() => seen.last > mark, 60_000, 'the first records of the write').catch(() => undefined);
          await new Promise((r) => setTimeout(r, random() * 100));
        }
        w.child.kill('SIGKILL');
        expect(await w.exited).toBe('SIGKILL');
        w = startCli(args, env);
        // The restarted coordinator resumes: its first model is for the job file's counts, persisted if the kill came first.
        const [first] = await w.lines(1, 120_000);
        expect((JSON.parse(first!) as { streams: Array<{ partitions: number }> }).streams[0]!.partitions).toBe(countAt(k));
      }
      w.child.kill('SIGTERM');
      expect(await w.exited).toBe(0);
    } finally {
      w.child.kill('SIGKILL');
      await tail?.stop();
    }

    // Replay the committed transactions one by one: each leaves one of the models.
    const committed = await readRaw(coord);
    const txs = commits(committed);
    const state = replay([]);
    let last = -1;
    for (const tx of txs) {
      for (const r of tx) state.applyRecord(r.key, r.value, `${coord}@${r.offset}`);
      // The next model (counts repeat every 4 steps, so search forward from the last one).
      const i = expected.indexOf(JSON.stringify(contents(state)), last + 1);
      expect(i, `the state after the transaction at offset ${tx[0]!.offset} is no model after model ${last}`).toBeGreaterThan(last);
      last = i;
    }
    expect(last).toBe(KILLS + 1);
    // Writes cut short: records on the topic that read_committed never returns.
    const committedOffsets = new Set(committed.map((r) => r.offset));
    const aborted = commits((await readRaw(coord, { readUncommitted: true })).filter((r) => !committedOffsets.has(r.offset)));
    console.log(`crash: ${KILLS} kills; ${txs.length} committed writes; ${aborted.length} writes cut short by a kill (${aborted.reduce((n, t) => n + t.length, 0)} records, never visible); kill window ${Math.round(window)} ms`);
    expect(aborted.length).toBeGreaterThan(0);
  }, 1_200_000);
});
