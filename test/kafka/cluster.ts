// A small real Kafka cluster (KRaft) for the tests that need more than one broker: node 1 is
// broker and controller, the others are brokers only, each in its own JVM on 127.0.0.1 with its
// own `broker.rack`. The same Maven jars as the single node of broker.ts (test/kafka/pom.xml), plus
// extra jars on the brokers' classpath (a broker-side assignor plugin) and extra properties.
//
//   npx tsx test/kafka/cluster.ts start [--dir DIR] [--racks a,b,c] [--jar JAR]... [--prop k=v]...
//       prints KAFKA_BROKERS=127.0.0.1:P1,127.0.0.1:P2,... and KAFKA_DIR=DIR
//   npx tsx test/kafka/cluster.ts stop --dir DIR [--remove]
//
// DIR/cluster.json records the nodes (ports, pids, racks), so `stop` works from another process;
// node i lives in DIR/node-i (its log is DIR/node-i/broker.log). Everything fails loudly: no JVM,
// a missing jar or a node that does not come up throws.
import { spawn, execFileSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Kafka, logLevel } from 'kafkajs';
import { alive, clusterId, freePort, jvmArgs, log4j, stopPid } from './broker.js';
import { classpath } from './jvm.js';

export interface ClusterNode {
  id: number;
  rack: string;
  port: number;
  /** Only node 1 (the controller) has one. */
  controllerPort?: number;
  dir: string;
  pid: number;
}

export interface Cluster {
  /** `127.0.0.1:P1,127.0.0.1:P2,...`: every broker, for clients' bootstrap lists. */
  brokers: string;
  nodes: ClusterNode[];
  dir: string;
}

export interface ClusterOptions {
  /** State directory; a fresh temp dir when absent. */
  dir?: string;
  /** One broker per entry, node ids 1.. in this order; default `['a', 'b', 'c']`. */
  racks?: string[];
  /** Jars (or class directories) appended to every broker's classpath; each must exist. */
  jars?: string[];
  /** Extra (or overriding) broker properties, the same on every node. */
  properties?: Record<string, string | number | boolean>;
  /** How long to wait for every broker to register, in ms. */
  timeoutMs?: number;
}

/**
 * Group-coordinator settings under which a consumer-protocol group notices a dead member within
 * seconds (6 s session, 500 ms heartbeats) and recomputes its target assignment promptly.
 */
export const FAST_CONSUMER_GROUPS: Record<string, number> = {
  'group.consumer.session.timeout.ms': 6000,
  'group.consumer.min.session.timeout.ms': 3000,
  'group.consumer.heartbeat.interval.ms': 500,
  'group.consumer.min.heartbeat.interval.ms': 500,
  'group.consumer.assignment.interval.ms': 200,
};

const STATE = 'cluster.json';

function nodeProperties(node: ClusterNode, controllerPort: number, extra: Record<string, string | number | boolean>): string {
  const controller = node.controllerPort !== undefined;
  const props: Record<string, string | number | boolean> = {
    'process.roles': controller ? 'broker,controller' : 'broker',
    'node.id': node.id,
    'controller.quorum.voters': `1@127.0.0.1:${controllerPort}`,
    listeners: controller ? `PLAINTEXT://127.0.0.1:${node.port},CONTROLLER://127.0.0.1:${controllerPort}` : `PLAINTEXT://127.0.0.1:${node.port}`,
    'advertised.listeners': `PLAINTEXT://127.0.0.1:${node.port}`,
    'controller.listener.names': 'CONTROLLER',
    'listener.security.protocol.map': 'PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT',
    'inter.broker.listener.name': 'PLAINTEXT',
    'broker.rack': node.rack,
    'log.dirs': join(node.dir, 'data'),
    'num.partitions': 1,
    'offsets.topic.replication.factor': 1,
    'offsets.topic.num.partitions': 4,
    'transaction.state.log.replication.factor': 1,
    'transaction.state.log.min.isr': 1,
    'transaction.state.log.num.partitions': 4,
    'share.coordinator.state.topic.replication.factor': 1,
    'share.coordinator.state.topic.min.isr': 1,
    'group.initial.rebalance.delay.ms': 0,
    'auto.create.topics.enable': false,
    ...extra,
  };
  return Object.entries(props).map(([k, v]) => `${k}=${String(v)}`).join('\n') + '\n';
}

function readState(dir: string): Cluster | undefined {
  const file = join(dir, STATE);
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Cluster) : undefined;
}

/** Resolves once every one of `count` brokers is registered with the controller, or rejects after `timeoutMs`. */
export async function waitForCluster(brokers: string, count: number, timeoutMs = 120_000, isAlive: () => string | undefined = () => undefined): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer';
  while (Date.now() < deadline) {
    const dead = isAlive();
    if (dead !== undefined) throw new Error(dead);
    const admin = new Kafka({ clientId: 'assignor-cluster-probe', brokers: brokers.split(','), logLevel: logLevel.NOTHING, retry: { retries: 0 }, connectionTimeout: 2000 }).admin();
    try {
      await admin.connect();
      const meta = await admin.describeCluster();
      if (meta.brokers.length >= count && meta.controller !== null) return;
      last = `${meta.brokers.length} of ${count} brokers registered`;
    } catch (e) {
      last = (e as Error).message;
    } finally {
      await admin.disconnect().catch(() => undefined);
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`the Kafka cluster at ${brokers} was not up within ${timeoutMs} ms: ${last}`);
}

/** Formats and starts a fresh cluster; resolves when every broker has registered. */
export async function startCluster(options: ClusterOptions = {}): Promise<Cluster> {
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'assignor-cluster-'));
  mkdirSync(dir, { recursive: true });
  const previous = readState(dir);
  if (previous !== undefined && previous.nodes.some((n) => alive(n.pid))) throw new Error(`a cluster is already running in ${dir}`);
  const racks = options.racks ?? ['a', 'b', 'c'];
  if (racks.length === 0) throw new Error('a cluster needs at least one node');
  const jars = (options.jars ?? []).map((j) => resolve(j));
  for (const j of jars) if (!existsSync(j)) throw new Error(`cluster: no such jar ${j}`);
  const cp = [classpath('kafka'), ...jars].join(':');
  const id = clusterId();
  const controllerPort = await freePort();
  const nodes: ClusterNode[] = [];
  for (let i = 0; i < racks.length; i++) {
    const node: ClusterNode = { id: i + 1, rack: racks[i]!, port: await freePort(), dir: join(dir, `node-${i + 1}`), pid: 0 };
    if (i === 0) node.controllerPort = controllerPort;
    nodes.push(node);
  }
  for (const node of nodes) {
    mkdirSync(node.dir, { recursive: true });
    const props = join(node.dir, 'server.properties');
    writeFileSync(props, nodeProperties(node, controllerPort, options.properties ?? {}));
    writeFileSync(join(node.dir, 'log4j2.properties'), log4j(node.dir));
    if (!existsSync(join(node.dir, 'data', 'meta.properties'))) {
      execFileSync('java', [...jvmArgs(node.dir), '-cp', cp, 'kafka.tools.StorageTool', 'format', '--cluster-id', id, '--config', props], { stdio: ['ignore', 'ignore', 'pipe'] });
    }
  }
  for (const node of nodes) {
    const out = openSync(join(node.dir, 'broker.out'), 'a');
    const child = spawn('java', [...jvmArgs(node.dir), '-cp', cp, 'kafka.Kafka', join(node.dir, 'server.properties')], { detached: true, stdio: ['ignore', out, out] });
    closeSync(out);
    child.unref();
    if (child.pid === undefined) throw new Error(`could not start java for Kafka node ${node.id}`);
    node.pid = child.pid;
  }
  const cluster: Cluster = { brokers: nodes.map((n) => `127.0.0.1:${n.port}`).join(','), nodes, dir };
  writeFileSync(join(dir, STATE), JSON.stringify(cluster));
  const dead = (): string | undefined => {
    const n = nodes.find((x) => !alive(x.pid));
    return n === undefined ? undefined : `Kafka node ${n.id} (rack ${n.rack}) exited while starting`;
  };
  try {
    await waitForCluster(cluster.brokers, nodes.length, options.timeoutMs, dead);
  } catch (e) {
    const tails = nodes.map((n) => {
      const f = join(n.dir, 'broker.out');
      return `--- node ${n.id} ---\n${existsSync(f) ? readFileSync(f, 'utf8').slice(-1500) : ''}`;
    });
    await stopCluster(dir, { graceMs: 0 });
    throw new Error(`${(e as Error).message}\n${tails.join('\n')}`);
  }
  return cluster;
}

/**
 * Stops every node of the cluster in `dir`: SIGTERM, SIGKILL after `graceMs` (at once with 0).
 * Brokers first, the controller last, so the brokers' controlled shutdown finds it. `remove`
 * deletes the directory too.
 */
export async function stopCluster(dir: string, options: { graceMs?: number; remove?: boolean } = {}): Promise<void> {
  const state = readState(dir);
  if (state !== undefined) {
    const grace = options.graceMs ?? 20_000;
    const [controller, ...others] = state.nodes;
    await Promise.all(others.map((n) => stopPid(n.pid, grace)));
    if (controller !== undefined) await stopPid(controller.pid, grace);
  }
  if (options.remove) rmSync(dir, { recursive: true, force: true });
}

async function main(argv: string[]): Promise<void> {
  const [cmd, ...rest] = argv;
  const opt = (name: string): string | undefined => {
    const i = rest.indexOf(name);
    return i >= 0 ? rest[i + 1] : undefined;
  };
  const all = (name: string): string[] => rest.flatMap((a, i) => (a === name && rest[i + 1] !== undefined ? [rest[i + 1]!] : []));
  if (cmd === 'start') {
    const properties: Record<string, string> = {};
    for (const kv of all('--prop')) {
      const eq = kv.indexOf('=');
      if (eq <= 0) throw new Error(`--prop wants key=value, got ${kv}`);
      properties[kv.slice(0, eq)] = kv.slice(eq + 1);
    }
    const racks = opt('--racks')?.split(',');
    const c = await startCluster({ dir: opt('--dir'), racks, jars: all('--jar'), properties });
    process.stdout.write(`KAFKA_BROKERS=${c.brokers}\nKAFKA_DIR=${c.dir}\n`);
  } else if (cmd === 'stop') {
    const dir = opt('--dir');
    if (dir === undefined) throw new Error('stop needs --dir DIR');
    await stopCluster(dir, { remove: rest.includes('--remove') });
  } else {
    throw new Error('usage: cluster.ts start [--dir DIR] [--racks a,b,c] [--jar JAR]... [--prop k=v]... | stop --dir DIR [--remove]');
  }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  main(process.argv.slice(2)).then(
    () => process.exit(0),
    (e: unknown) => {
      process.stderr.write(`cluster: ${(e as Error).message}\n`);
      process.exit(1);
    },
  );
}
