// Round trip with Samza's own coordinator-stream code (samza-core 1.8.0, run by
// java/SamzaCoordinatorStream.java over kafka-clients): Samza writes a job's state to its
// coordinator stream; `assignor samza import` reads it (from the topic, and from a dump made by
// `export`); `plan` continues from it; `export` and a re-import give a topic from which Samza reads
// back exactly what it wrote; after a 4 -> 8 plan Samza reads our new model.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execFileSync } from 'node:child_process';
import { calculateJobModel } from '../../src/samza/plan.js';
import { toJobModel } from '../../src/samza/job-model.js';
import { CoordinatorStore } from '../../src/store/index.js';
import { KafkaCoordinatorStore } from '../../src/store/kafka-store.js';
import { classpath, runJava } from '../kafka/jvm.js';
import { uniqueTopic, useSharedBroker, withAdmin } from '../kafka/shared-broker.js';
import { cli } from '../helpers.js';
import { cleanupTempDirs, contents, jobFileJson, statefulConfig, tempDir } from './helpers.js';

const brokers = useSharedBroker();
const SOURCE = fileURLToPath(new URL('./java/SamzaCoordinatorStream.java', import.meta.url));
let cp: string;

beforeAll(() => {
  // samza-core's classpath has no Kafka client; kafka-clients 4.4.0 (and the slf4j-api it needs,
  // ahead of samza's older one) come from the Kafka project.
  const kafka = classpath('kafka')
    .split(':')
    .filter((j) => /\/(slf4j-api|kafka-clients|zstd-jni|lz4-java|snappy-java)-[^/]*\.jar$/.test(j));
  const samza = classpath('samza');
  const out = join(tmpdir(), 'assignor-samza-coordinator-java');
  mkdirSync(out, { recursive: true });
  execFileSync('javac', ['-nowarn', '-encoding', 'UTF-8', '-cp', [...kafka, samza].join(':'), '-d', out, SOURCE], { stdio: ['ignore', 'inherit', 'inherit'] });
  cp = [out, ...kafka, samza].join(':');
}, 600_000);
afterAll(cleanupTempDirs);

/** What Samza's managers read from a job's coordinator stream. */
interface SamzaState {
  config: Record<string, string>;
  assignments: Array<{ system: string; stream: string; partition: number; keyBucket: number; tasks: string[] }>;
  changelog: Record<string, number>;
  taskContainer: Record<string, string>;
  taskModes: Record<string, string>;
}

function samzaRead(job: string): SamzaState {
  return JSON.parse(runJava(cp, 'SamzaCoordinatorStream', ['read', brokers(), job]).stdout) as SamzaState;
}

async function createCoordinatorTopic(topic: string): Promise<void> {
  await withAdmin((a) => a.createTopics({ waitForLeaders: true, topics: [{ topic, numPartitions: 1, configEntries: [{ name: 'cleanup.policy', value: 'compact' }] }] }));
}

describe("Samza's coordinator stream in and out", () => {
  it('Samza writes, assignor imports, plans, exports; Samza reads back the same state, then our 4 -> 8 model', async () => {
    const job = uniqueTopic('rt').replaceAll('-', 'x');
    const job2 = `${job}y`;
    const samzaTopic = `__samza_coordinator_${job}_1`;
    const ourTopic = `__samza_coordinator_${job2}_1`;
    const stream = 'kafka.PageViewEvent';
    const config = statefulConfig([stream], { 'job.name': job });
    // The state a Samza job at 4 partitions leaves (our planner is Samza-exact for these groupers).
    const plan = toJobModel(calculateJobModel({ config, partitionCounts: new Map([[stream, 4]]) }));
    const state = {
      config: Object.fromEntries(config.map),
      assignments: plan.containers.flatMap((c) => c.tasks.flatMap((t) => t.ssps.map((s) => ({ system: s.system, stream: s.stream, partition: s.partition, tasks: [t.taskName] })))),
      changelog: Object.fromEntries(plan.containers.flatMap((c) => c.tasks.map((t) => [t.taskName, t.changelogPartition]))),
      containers: Object.fromEntries(plan.containers.map((c) => [c.id, Object.fromEntries(c.tasks.map((t) => [t.taskName, t.mode]))])),
    };
    await createCoordinatorTopic(samzaTopic);
    runJava(cp, 'SamzaCoordinatorStream', ['write', brokers(), job], JSON.stringify(state));
    const original = samzaRead(job);
    expect(original.assignments.length).toBe(4);
    expect(original.assignments.map((a) => [a.partition, a.keyBucket, a.tasks])).toEqual([0, 1, 2, 3].map((p) => [p, -1, [`Partition ${p}`]]));

    // Import from the topic into a new coordinator stream; the state is message for message Samza's.
    const i = cli(['samza', 'import', '--from', `kafka://${brokers()}/${samzaTopic}`, '--store', `kafka://${brokers()}/${ourTopic}`]);
    expect(i.stderr).toMatch(/import: \d+ messages \(4 SSP assignments/);
    expect(i.status).toBe(0);
    const src = await KafkaCoordinatorStore.open(`kafka://${brokers()}/${samzaTopic}`, { readOnly: true });
    const imported = await KafkaCoordinatorStore.open(`kafka://${brokers()}/${ourTopic}`, { readOnly: true });
    expect(contents(imported)).toEqual(contents(src));
    await imported.close();

    // The same through a dump: export Samza's topic, import the dump into a file store.
    const dir = tempDir();
    const dump = join(dir, 'samza.jsonl');
    expect(cli(['samza', 'export', '--store', `kafka://${brokers()}/${samzaTopic}`, '--out', dump]).status).toBe(0);
    expect(cli(['samza', 'import', '--from', dump, '--store', join(dir, 'store')]).status).toBe(0);
    const fileStore = CoordinatorStore.open(join(dir, 'store'), { readOnly: true });
    expect(contents(fileStore)).toEqual(contents(src));
    fileStore.close();

    // plan continues from the imported state: same counts, nothing moves; only our base counts are added.
    const jobFile = join(dir, 'job.json');
    writeFileSync(jobFile, jobFileJson(statefulConfig([stream], { 'job.name': job2 }), { [stream]: 4 }));
    const same = cli(['samza', 'plan', '--job', jobFile, '--store', `kafka://${brokers()}/${ourTopic}`]);
    expect(same.status).toBe(0);
    expect(same.stderr).toContain('0 SSPs new; 0 moved to another task; 0 gone; 0 tasks changed container');
    const after = await KafkaCoordinatorStore.open(`kafka://${brokers()}/${ourTopic}`, { readOnly: true });
    const expected = contents(src);
    const got = contents(after);
    await after.close();
    expect(Object.keys(got['set-stream-base-partition-count']!)).toEqual([stream]);
    delete got['set-stream-base-partition-count'];
    expected['set-config']!['job.name'] = { value: job2 };
    expect(got).toEqual(expected);
    await src.close();

    // Samza reads our topic: the same assignments, changelog, containers and modes it wrote.
    const back = samzaRead(job2);
    expect({ ...back, config: undefined }).toEqual({ ...original, config: undefined });
    expect(back.config).toEqual({ ...original.config, 'job.name': job2 });

    // Grow to 8 with Samza's mapper: Samza reads our model (p joins the task of p mod 4, as Samza's HashSystemStreamPartitionMapper does).
    writeFileSync(jobFile, jobFileJson(statefulConfig([stream], { 'job.name': job2 }), { [stream]: 8 }));
    const grown = cli(['samza', 'plan', '--job', jobFile, '--store', `kafka://${brokers()}/${ourTopic}`, '--mapper', 'samza']);
    expect(grown.status).toBe(0);
    const at8 = samzaRead(job2);
    expect(at8.assignments.map((a) => [a.partition, a.tasks])).toEqual([0, 1, 2, 3, 4, 5, 6, 7].map((p) => [p, [`Partition ${p % 4}`]]));
    expect(at8.changelog).toEqual(original.changelog);
    expect(at8.taskContainer).toEqual(original.taskContainer);

    // And out again: export our topic, import the dump, the same messages.
    const ourDump = join(dir, 'ours.jsonl');
    expect(cli(['samza', 'export', '--store', `kafka://${brokers()}/${ourTopic}`, '--out', ourDump]).status).toBe(0);
    expect(cli(['samza', 'import', '--from', ourDump, '--store', join(dir, 'store2')]).status).toBe(0);
    const again = CoordinatorStore.open(join(dir, 'store2'), { readOnly: true });
    const ours = await KafkaCoordinatorStore.open(`kafka://${brokers()}/${ourTopic}`, { readOnly: true });
    expect(contents(again)).toEqual(contents(ours));
    again.close();
    await ours.close();
  }, 600_000);
});
