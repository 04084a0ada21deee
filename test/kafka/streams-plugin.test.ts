// Kafka Streams on the streams group protocol (KIP-1071) on a real 4.4 broker, assigned by the
// broker plugin assignor-streams (dev.assignor.broker.StreamsAssignor from build/assignor-broker.jar)
// and, on the same broker, by the built-in sticky (issue 31, part 5).
//
// The broker lists group.streams.assignors=dev.assignor.broker.StreamsAssignor,sticky (ours is the
// default), group.streams.rack.aware.assignment.tags=zone,cluster and one standby per task. Nine
// instances (test/kafka/java/StreamsInstance.java, one JVM each, one stream thread) over 3 zones x
// 3 clusters run a stateful topology (count by key over a 9-partition topic: 9 stateful tasks).
// The same run twice: application "tags-app" with the plugin, then "sticky-app" with the group
// config streams.assignor.name=sticky. After each event the test waits until every instance runs
// and the tasks stop moving, then checks:
//  - start: every task has its active and its standby on two instances; with the plugin every
//    standby is in another zone and another cluster than its active (the tags allow it here);
//  - one instance is killed (SIGKILL): its tasks' actives move to the instances that held their
//    standbys, and restore from there;
//  - it is restarted with its state directory (the same process id): every task again has a
//    standby, with the plugin again in another zone and cluster.
// The built-in's spread is reported beside the plugin's (it varies with the random process ids);
// the built-in must move the killed instance's actives to their standbys too (its Phase B).
//
// The broker and the JVMs are required: with no java or no Maven jars the test fails, never skips.
// ASSIGNOR_KAFKA_LOG=1 prints each step; ASSIGNOR_KEEP_WORK=1 keeps the work dir (logs).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, type WriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { Kafka, logLevel, Partitioners } from 'kafkajs';
import { startCluster, stopCluster, type Cluster } from './cluster.js';
import { compileJava } from './jvm.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const JAR = process.env.ASSIGNOR_BROKER_JAR ?? join(ROOT, 'build', 'assignor-broker.jar');
const SOURCE = fileURLToPath(new URL('./java/StreamsInstance.java', import.meta.url));
const VERBOSE = process.env.ASSIGNOR_KAFKA_LOG !== undefined;
const TASKS = 9;
const ZONES = ['z1', 'z2', 'z3'];
const CLUSTERS = ['c1', 'c2', 'c3'];

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

interface Report { state: string; active: string[]; standby: string[] }

/** The instances of one application: their JVMs and what each last reported. */
class App {
  readonly reports = new Map<string, Report>();
  readonly restored: { name: string; task: string; records: number }[] = [];
  private readonly children = new Map<string, ChildProcess>();

  constructor(readonly id: string, private readonly cp: string, private readonly brokers: string, private readonly work: string, private readonly log: WriteStream) {}

  static tagsOf(name: string): { zone: string; cluster: string } {
    const i = Number(name.slice(1));
    return { zone: ZONES[i % 3]!, cluster: CLUSTERS[Math.floor(i / 3)]! };
  }

  start(name: string): void {
    const { zone, cluster } = App.tagsOf(name);
    const dir = join(this.work, this.id, name);
    mkdirSync(dir, { recursive: true });
    const child = spawn('java', ['-Xmx192m', '-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC', '-cp', this.cp, 'StreamsInstance', this.brokers, this.id, name, zone, cluster, dir], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stderr!.pipe(this.log, { end: false });
    createInterface({ input: child.stdout! }).on('line', (line) => {
      this.log.write(`${this.id} ${line}\n`);
      const msg = JSON.parse(line) as { name: string; state?: string; active?: string[]; standby?: string[]; restored?: string; records?: number };
      if (msg.restored !== undefined) this.restored.push({ name: msg.name, task: msg.restored, records: msg.records! });
      else this.reports.set(msg.name, { state: msg.state!, active: msg.active!, standby: msg.standby! });
    });
    this.children.set(name, child);
  }

  kill(name: string): void {
    this.children.get(name)?.kill('SIGKILL');
    this.children.delete(name);
    this.reports.delete(name);
  }

  stopAll(): void {
    for (const name of [...this.children.keys()]) this.kill(name);
  }

  /** Waits until every named instance runs, every task has one active and one standby, and nothing moved for `quietMs`. */
  async stable(names: readonly string[], quietMs = 5000, timeoutMs = 150_000): Promise<Map<string, Report>> {
    const deadline = Date.now() + timeoutMs;
    let last = '';
    let since = Date.now();
    for (;;) {
      const now = names.map((n) => this.reports.get(n));
      const text = JSON.stringify(now);
      if (text !== last) {
        last = text;
        since = Date.now();
      }
      const complete = now.every((r) => r?.state === 'RUNNING') && count(now, 'active') === TASKS && count(now, 'standby') === TASKS;
      if (complete && Date.now() - since >= quietMs) return new Map(names.map((n) => [n, this.reports.get(n)!]));
      if (Date.now() > deadline) throw new Error(`${this.id}: no stable assignment within ${timeoutMs} ms; last: ${text}`);
      await sleep(250);
    }
  }
}

function count(reports: (Report | undefined)[], kind: 'active' | 'standby'): number {
  return new Set(reports.flatMap((r) => r?.[kind] ?? [])).size === reports.reduce((s, r) => s + (r?.[kind].length ?? 0), 0)
    ? reports.reduce((s, r) => s + (r?.[kind].length ?? 0), 0)
    : -1;
}

interface Placement { active: Map<string, string>; standby: Map<string, string> }

function placement(reports: Map<string, Report>): Placement {
  const active = new Map<string, string>();
  const standby = new Map<string, string>();
  for (const [name, r] of reports) {
    for (const t of r.active) active.set(t, name);
    for (const t of r.standby) standby.set(t, name);
  }
  return { active, standby };
}

/** Tasks whose standby is in another zone and another cluster than their active. */
function spread(p: Placement): number {
  let n = 0;
  for (const [t, a] of p.active) {
    const s = p.standby.get(t);
    if (s === undefined) continue;
    const x = App.tagsOf(a);
    const y = App.tagsOf(s);
    if (x.zone !== y.zone && x.cluster !== y.cluster) n++;
  }
  return n;
}

const NAMES = Array.from({ length: 9 }, (_, i) => `i${i}`);

interface RunResult { start: number; afterKill: number; afterRestart: number; movedToStandby: number; killedTasks: number; takeoverRestores: number[] }

async function scenario(app: App, log: (s: string) => void): Promise<RunResult> {
  for (const n of NAMES) app.start(n);
  const first = placement(await app.stable(NAMES));
  for (const [t, a] of first.active) expect(first.standby.get(t), `${app.id}: ${t}`).not.toBe(a);
  const start = spread(first);
  log(`${app.id} start: ${start}/${TASKS} standbys in another zone and cluster`);
  // Kill an instance that runs an active task.
  const victim = NAMES.find((n) => [...first.active.values()].includes(n))!;
  const itsTasks = [...first.active].filter(([, a]) => a === victim).map(([t]) => t);
  const restoredBefore = app.restored.length;
  app.kill(victim);
  const rest = NAMES.filter((n) => n !== victim);
  const second = placement(await app.stable(rest));
  let movedToStandby = 0;
  for (const t of itsTasks) if (second.active.get(t) === first.standby.get(t)) movedToStandby++;
  // What the new actives restored of the killed instance's stores (the standby had the rest).
  const takeoverRestores = app.restored.slice(restoredBefore).filter((r) => itsTasks.some((t) => r.task === `${app.id}-counts-changelog:${t.split('_')[1]}` && r.name === second.active.get(t))).map((r) => r.records);
  log(`${app.id} ${victim} killed: its ${itsTasks.length} tasks ${itsTasks.join(',')} -> ${itsTasks.map((t) => second.active.get(t)).join(',')}, standbys were on ${itsTasks.map((t) => first.standby.get(t)).join(',')}`);
  const afterKill = spread(second);
  app.start(victim);
  const third = placement(await app.stable(NAMES));
  const afterRestart = spread(third);
  log(`${app.id} ${victim} back: ${afterRestart}/${TASKS} spread`);
  app.stopAll();
  return { start, afterKill, afterRestart, movedToStandby, killedTasks: itsTasks.length, takeoverRestores };
}

describe('Kafka Streams on a real broker, assigned by assignor-streams and by the built-in sticky', () => {
  let cluster: Cluster | undefined;
  let work = '';
  let log: WriteStream;
  let cp = '';
  const apps: App[] = [];

  beforeAll(async () => {
    if (!existsSync(JAR)) throw new Error(`${JAR} is missing: npm run build:jvm`);
    work = mkdtempSync(join(tmpdir(), 'assignor-streams-'));
    log = createWriteStream(join(work, 'instances.log'));
    cp = compileJava('kafka', [SOURCE], join(ROOT, 'test', 'kafka', 'target', 'streams-instance'));
    cluster = await startCluster({
      dir: join(work, 'cluster'),
      racks: ['a'],
      jars: [JAR],
      properties: {
        'group.streams.assignors': 'dev.assignor.broker.StreamsAssignor,sticky',
        'group.streams.rack.aware.assignment.tags': 'zone,cluster',
        'group.streams.num.standby.replicas': 1,
        'group.streams.session.timeout.ms': 6000,
        'group.streams.min.session.timeout.ms': 3000,
        'group.streams.heartbeat.interval.ms': 500,
        'group.streams.min.heartbeat.interval.ms': 500,
        'group.streams.initial.rebalance.delay.ms': 500,
      },
      timeoutMs: 150_000,
    });
    const kafka = new Kafka({ brokers: cluster.brokers.split(','), logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: 'input', numPartitions: TASKS, replicationFactor: 1 }, { topic: 'output', numPartitions: 1, replicationFactor: 1 }] });
    await admin.disconnect();
    const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
    await producer.connect();
    for (let b = 0; b < 10; b++) await producer.send({ topic: 'input', messages: Array.from({ length: 500 }, (_, i) => ({ key: `k${(b * 500 + i) % 997}`, value: 'v' })) });
    await producer.disconnect();
  }, 300_000);

  afterAll(async () => {
    for (const a of apps) a.stopAll();
    if (cluster) await stopCluster(cluster.dir, { remove: process.env.ASSIGNOR_KEEP_WORK === undefined });
    log?.end();
    if (work !== '' && process.env.ASSIGNOR_KEEP_WORK === undefined) rmSync(work, { recursive: true, force: true });
  }, 120_000);

  it('spreads every standby over zones and clusters and moves a killed instance\'s actives to their standbys; reports the built-in beside it', async () => {
    const say = (s: string): void => {
      log.write(`${s}\n`);
      if (VERBOSE) console.log(s);
    };
    const ours = new App('tags-app', cp, cluster!.brokers, work, log);
    apps.push(ours);
    const a = await scenario(ours, say);
    expect(a.start).toBe(TASKS);
    expect(a.movedToStandby).toBe(a.killedTasks);
    expect(a.afterRestart).toBe(TASKS);
    // Each store the standby held was up to date: taking over restored (almost) nothing.
    expect(a.takeoverRestores.length).toBe(a.killedTasks);
    for (const n of a.takeoverRestores) expect(n).toBeLessThan(50);
    // The plugin answered every time (no fallback to the broker's own answer).
    expect(readFileSync(join(cluster!.dir, 'node-1', 'broker.log'), 'utf8')).not.toContain('assignor-streams: the tag-aware step failed');

    // The same with the built-in sticky assignor, chosen by the group config streams.assignor.name.
    const set = spawn('java', ['-cp', cp, 'StreamsInstance', '--group-assignor', cluster!.brokers, 'sticky-app', 'sticky'], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolve, reject) => set.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`setting streams.assignor.name exited ${code}`)))));
    const sticky = new App('sticky-app', cp, cluster!.brokers, work, log);
    apps.push(sticky);
    const b = await scenario(sticky, say);
    console.log(`streams on a real broker, tasks with their standby in another zone and cluster (of ${TASKS}): assignor-streams ${a.start} at start, ${a.afterKill} after a kill, ${a.afterRestart} after the restart; built-in sticky ${b.start}, ${b.afterKill}, ${b.afterRestart}. A killed instance's actives went to their standbys' instances: assignor-streams ${a.movedToStandby}/${a.killedTasks}, sticky ${b.movedToStandby}/${b.killedTasks}; records restored on taking over: ${a.takeoverRestores.join(', ')}.`);
    expect(b.movedToStandby).toBe(b.killedTasks);
  }, 900_000);
});
