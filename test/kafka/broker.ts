// A real single-node Kafka (KRaft, broker and controller in one JVM) for the tests, from the
// kafka_2.13 jars that test/kafka/pom.xml fetches from Maven Central.
//
//   npx tsx test/kafka/broker.ts start [--dir DIR] [--port PORT]   prints KAFKA_BROKERS=127.0.0.1:PORT
//   npx tsx test/kafka/broker.ts stop --dir DIR
//
// start formats a fresh storage in DIR (a new temp dir unless given; an already formatted DIR is
// reused, which is how a test restarts a broker with its data), starts the broker on 127.0.0.1
// on a free port, and returns once the broker answers a metadata request. The JVM is detached and
// its pid kept in DIR/broker.json, so `stop` works from another process. The broker's own log is
// DIR/broker.log.
import { spawn, execFileSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Kafka, logLevel } from 'kafkajs';
import { classpath } from './jvm.js';

export interface Broker {
  /** `127.0.0.1:PORT`, for KafkaJS's `brokers` and the CLI's `--brokers`. */
  brokers: string;
  port: number;
  controllerPort: number;
  dir: string;
  pid: number;
}

export interface StartOptions {
  /** Storage and state directory; a fresh temp dir when absent. Reused (not reformatted) when already formatted. */
  dir?: string;
  /** Listener port; a free one when absent (a restart passes the old one so clients find it again). */
  port?: number;
  controllerPort?: number;
  /** How long to wait for the broker to answer, in ms. */
  timeoutMs?: number;
}

const STATE = 'broker.json';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

function properties(dir: string, port: number, controllerPort: number): string {
  return [
    'process.roles=broker,controller',
    'node.id=1',
    `controller.quorum.voters=1@127.0.0.1:${controllerPort}`,
    `listeners=PLAINTEXT://127.0.0.1:${port},CONTROLLER://127.0.0.1:${controllerPort}`,
    `advertised.listeners=PLAINTEXT://127.0.0.1:${port}`,
    'controller.listener.names=CONTROLLER',
    'listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT',
    'inter.broker.listener.name=PLAINTEXT',
    `log.dirs=${join(dir, 'data')}`,
    'num.partitions=1',
    'offsets.topic.replication.factor=1',
    'offsets.topic.num.partitions=4',
    'transaction.state.log.replication.factor=1',
    'transaction.state.log.min.isr=1',
    'transaction.state.log.num.partitions=4',
    'share.coordinator.state.topic.replication.factor=1',
    'share.coordinator.state.topic.min.isr=1',
    'group.initial.rebalance.delay.ms=0',
    // Tests create their topics explicitly; a typo must not silently create one.
    'auto.create.topics.enable=false',
    // Compaction of the coordinator-stream topic is exercised by tests; let the cleaner run soon.
    'log.cleaner.backoff.ms=1000',
    '',
  ].join('\n');
}

export function log4j(dir: string): string {
  return [
    'rootLogger.level=INFO',
    'rootLogger.appenderRef.file.ref=file',
    'appender.file.type=File',
    'appender.file.name=file',
    `appender.file.fileName=${join(dir, 'broker.log')}`,
    'appender.file.layout.type=PatternLayout',
    'appender.file.layout.pattern=[%d] %p %m (%c)%n',
    '',
  ].join('\n');
}

/**
 * Kafka's cluster ids are 16 random bytes in URL-safe base64 without padding. Like Kafka's
 * Uuid.randomUuid, skip ids that start with '-': StorageTool would read one as an option.
 */
export function clusterId(): string {
  for (;;) {
    const id = randomBytes(16).toString('base64url');
    if (!id.startsWith('-')) return id;
  }
}

export function jvmArgs(dir: string): string[] {
  return ['-Xms256m', '-Xmx768m', '-XX:+UseG1GC', `-Dlog4j2.configurationFile=${join(dir, 'log4j2.properties')}`, '-Djava.awt.headless=true'];
}

/** Resolves once a metadata request to `brokers` succeeds, or rejects after `timeoutMs`. */
export async function waitForBroker(brokers: string, timeoutMs = 90_000, isAlive: () => boolean = () => true): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    if (!isAlive()) throw new Error('the broker process exited while starting');
    const admin = new Kafka({ clientId: 'assignor-broker-probe', brokers: [brokers], logLevel: logLevel.NOTHING, retry: { retries: 0 }, connectionTimeout: 2000 }).admin();
    try {
      await admin.connect();
      const meta = await admin.describeCluster();
      if (meta.brokers.length > 0 && meta.controller !== null) return;
    } catch (e) {
      last = e;
    } finally {
      await admin.disconnect().catch(() => undefined);
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`no Kafka broker answered at ${brokers} within ${timeoutMs} ms: ${(last as Error)?.message ?? 'no answer'}`);
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Formats (first time) and starts a broker; resolves when it answers metadata requests. */
export async function startBroker(options: StartOptions = {}): Promise<Broker> {
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'assignor-kafka-'));
  mkdirSync(dir, { recursive: true });
  const previous = readState(dir);
  if (previous !== undefined && alive(previous.pid)) throw new Error(`a broker (pid ${previous.pid}) is already running in ${dir}`);
  const port = options.port ?? previous?.port ?? (await freePort());
  const controllerPort = options.controllerPort ?? previous?.controllerPort ?? (await freePort());
  const cp = classpath('kafka');
  const props = join(dir, 'server.properties');
  writeFileSync(props, properties(dir, port, controllerPort));
  writeFileSync(join(dir, 'log4j2.properties'), log4j(dir));
  if (!existsSync(join(dir, 'data', 'meta.properties'))) {
    execFileSync('java', [...jvmArgs(dir), '-cp', cp, 'kafka.tools.StorageTool', 'format', '--cluster-id', clusterId(), '--config', props], { stdio: ['ignore', 'ignore', 'pipe'] });
  }
  const out = openSync(join(dir, 'broker.out'), 'a');
  const child = spawn('java', [...jvmArgs(dir), '-cp', cp, 'kafka.Kafka', props], { detached: true, stdio: ['ignore', out, out] });
  closeSync(out);
  child.unref();
  const pid = child.pid;
  if (pid === undefined) throw new Error('could not start java for the Kafka broker');
  const broker: Broker = { brokers: `127.0.0.1:${port}`, port, controllerPort, dir, pid };
  writeFileSync(join(dir, STATE), JSON.stringify(broker));
  try {
    await waitForBroker(broker.brokers, options.timeoutMs, () => alive(pid));
  } catch (e) {
    stopPid(pid, 0);
    const tail = existsSync(join(dir, 'broker.out')) ? readFileSync(join(dir, 'broker.out'), 'utf8').slice(-2000) : '';
    throw new Error(`${(e as Error).message}\n${tail}`);
  }
  return broker;
}

function readState(dir: string): Broker | undefined {
  const file = join(dir, STATE);
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Broker) : undefined;
}

export function stopPid(pid: number, graceMs: number): Promise<void> | void {
  if (!alive(pid)) return;
  try {
    process.kill(pid, graceMs === 0 ? 'SIGKILL' : 'SIGTERM');
  } catch {
    return;
  }
  // A crash too returns only once the process is gone (reaped), so a restart right after it finds no live pid.
  if (graceMs === 0) return waitGone(pid);
  return (async () => {
    const deadline = Date.now() + graceMs;
    while (alive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    if (alive(pid)) process.kill(pid, 'SIGKILL');
    while (alive(pid)) await new Promise((r) => setTimeout(r, 50));
  })();
}

export async function waitGone(pid: number, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (alive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
}

/**
 * Stops the broker in `dir`: SIGTERM (a controlled shutdown), SIGKILL after `graceMs`, or at once
 * with `graceMs: 0` (a crash). Keeps the data so `startBroker({ dir })` restarts it; `remove`
 * deletes the directory too.
 */
export async function stopBroker(dir: string, options: { graceMs?: number; remove?: boolean } = {}): Promise<void> {
  const state = readState(dir);
  if (state !== undefined) await stopPid(state.pid, options.graceMs ?? 30_000);
  if (options.remove) rmSync(dir, { recursive: true, force: true });
}

async function main(argv: string[]): Promise<void> {
  const [cmd, ...rest] = argv;
  const opt = (name: string): string | undefined => {
    const i = rest.indexOf(name);
    return i >= 0 ? rest[i + 1] : undefined;
  };
  if (cmd === 'start') {
    const port = opt('--port');
    const b = await startBroker({ dir: opt('--dir'), port: port === undefined ? undefined : Number(port) });
    process.stdout.write(`KAFKA_BROKERS=${b.brokers}\nKAFKA_DIR=${b.dir}\n`);
  } else if (cmd === 'stop') {
    const dir = opt('--dir');
    if (dir === undefined) throw new Error('stop needs --dir DIR');
    await stopBroker(dir, { remove: rest.includes('--remove') });
  } else if (cmd === 'fetch') {
    classpath('kafka');
  } else {
    throw new Error('usage: broker.ts start [--dir DIR] [--port PORT] | stop --dir DIR [--remove] | fetch');
  }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  main(process.argv.slice(2)).then(
    () => process.exit(0),
    (e: unknown) => {
      process.stderr.write(`broker: ${(e as Error).message}\n`);
      process.exit(1);
    },
  );
}
