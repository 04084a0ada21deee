// The Kafka side of the coordinator store: loading KafkaJS (an optional peer dependency, so it is
// imported only here, on first use), `kafka://` locations, the coordinator-stream topic's settings,
// and sorting KafkaJS errors into "fenced" and "try again". Nothing here knows Samza's records.
import type { Admin, Kafka } from 'kafkajs';
import type { ClientOptions } from './kafka-location.js';
import type { ContactLog } from './kafka-contact.js';
import { AssignorError, fail } from '../errors.js';

/** The KafkaJS module (types only at compile time; loaded with loadKafkaJs at run time). */
export type KafkaJs = typeof import('kafkajs');

// A variable, not a literal: bundlers must not try to bundle (or resolve) the optional peer.
const KAFKAJS = 'kafkajs';
let loaded: Promise<KafkaJs> | undefined;

/** Imports KafkaJS once; a clear AssignorError (E_KAFKAJS_MISSING) when it is not installed. */
export function loadKafkaJs(): Promise<KafkaJs> {
  loaded ??= (async () => {
    try {
      const m = (await import(KAFKAJS)) as KafkaJs & { default?: KafkaJs };
      // KafkaJS is CommonJS: from ESM its module.exports is `default` (the named exports are a guess of Node's).
      return m.default !== undefined && typeof m.default.Kafka === 'function' ? m.default : m;
    } catch (e) {
      loaded = undefined;
      throw new AssignorError(
        'E_KAFKAJS_MISSING',
        `the Kafka coordinator store needs the kafkajs package, an optional peer dependency of assignor (npm install kafkajs@^2.2.4): ${(e as Error).message}`,
        'kafkajs',
      );
    }
  })();
  return loaded;
}

/** Samza's coordinator-stream topic: one partition, compacted (KafkaSystemAdmin's coordinator stream properties). */
export const TOPIC_PARTITIONS = 1;
export const CLEANUP_POLICY = 'compact';
/** Samza's default for job.coordinator.segment.bytes. */
export const SEGMENT_BYTES = '26214400';
/** Samza's default for job.coordinator.replication.factor (capped at the number of brokers). */
export const DEFAULT_REPLICATION = 3;

/**
 * A KafkaJS client, quiet unless ASSIGNOR_KAFKA_LOG is set (errors reach the caller as
 * AssignorErrors). With a ContactLog its sockets are recorded, for firstContact's messages.
 */
export async function createKafka(brokers: string[], options: ClientOptions = {}, contact?: ContactLog): Promise<Kafka> {
  const kafkajs = await loadKafkaJs();
  return new kafkajs.Kafka({
    ...(contact !== undefined ? { socketFactory: contact.socketFactory } : {}),
    clientId: options.clientId ?? 'assignor',
    brokers,
    logLevel: process.env.ASSIGNOR_KAFKA_LOG ? kafkajs.logLevel.INFO : kafkajs.logLevel.NOTHING,
    connectionTimeout: options.connectionTimeout ?? 3000,
    requestTimeout: options.requestTimeout ?? 30000,
    retry: options.retry ?? { initialRetryTime: 100, retries: 5 },
  });
}

/**
 * Makes sure the topic is a coordinator stream: creates it (one partition, compacted, Samza's
 * segment size) when missing and `create` is set, and refuses a topic with other settings, naming
 * the setting. Returns whether the topic was created.
 */
export async function ensureCoordinatorTopic(admin: Admin, kafkajs: KafkaJs, topic: string, create: boolean, replicationFactor: number | undefined): Promise<boolean> {
  let created = false;
  if (!(await admin.listTopics()).includes(topic)) {
    if (!create) fail('E_STORE_NOT_FOUND', `Kafka topic ${topic} does not exist (a reader does not create it)`, topic);
    const brokers = (await admin.describeCluster()).brokers.length;
    const rf = replicationFactor ?? Math.min(DEFAULT_REPLICATION, Math.max(1, brokers));
    try {
      created = await admin.createTopics({
        waitForLeaders: true,
        topics: [
          {
            topic,
            numPartitions: TOPIC_PARTITIONS,
            replicationFactor: rf,
            configEntries: [
              { name: 'cleanup.policy', value: CLEANUP_POLICY },
              { name: 'segment.bytes', value: SEGMENT_BYTES },
            ],
          },
        ],
      });
    } catch (e) {
      // Another process may have created it meanwhile: then it is checked like any existing topic.
      if (!hasErrorType(e, 'TOPIC_ALREADY_EXISTS')) throw e;
    }
  }
  const meta = await admin.fetchTopicMetadata({ topics: [topic] });
  const partitions = meta.topics[0]?.partitions.length ?? 0;
  if (partitions !== TOPIC_PARTITIONS) {
    fail(
      'E_STORE_KAFKA_TOPIC',
      `Kafka topic ${topic} has ${partitions} partitions; a coordinator stream has exactly ${TOPIC_PARTITIONS} (setting: partitions). Use another topic, or recreate this one with 1 partition`,
      topic,
    );
  }
  const described = await admin.describeConfigs({
    includeSynonyms: false,
    resources: [{ type: kafkajs.ConfigResourceTypes.TOPIC, name: topic, configNames: ['cleanup.policy'] }],
  });
  const policy = described.resources[0]?.configEntries.find((c) => c.configName === 'cleanup.policy')?.configValue;
  if (policy !== CLEANUP_POLICY) {
    fail(
      'E_STORE_KAFKA_TOPIC',
      `Kafka topic ${topic} has cleanup.policy=${policy ?? '(unknown)'}; a coordinator stream needs cleanup.policy=compact (with "delete" the job's state would be dropped after retention.ms). Set it with kafka-configs --alter --add-config cleanup.policy=compact, or use another topic`,
      topic,
    );
  }
  return created;
}

interface ErrorLike {
  type?: unknown;
  name?: unknown;
  message?: unknown;
  cause?: unknown;
  originalError?: unknown;
  errors?: unknown;
}

/** KafkaJS protocol error types in an error and everything it wraps (retriers and aggregates nest them). */
export function errorTypes(e: unknown, out: string[] = [], depth = 0): string[] {
  if (typeof e !== 'object' || e === null || depth > 8) return out;
  const x = e as ErrorLike;
  if (typeof x.type === 'string') out.push(x.type);
  errorTypes(x.cause, out, depth + 1);
  errorTypes(x.originalError, out, depth + 1);
  if (Array.isArray(x.errors)) for (const inner of x.errors) errorTypes(inner, out, depth + 1);
  return out;
}

export function hasErrorType(e: unknown, type: string): boolean {
  return errorTypes(e).includes(type);
}

/** Errors that mean a newer producer with the same transactional id exists: this one may never write again. */
const FENCED = new Set(['PRODUCER_FENCED', 'INVALID_PRODUCER_EPOCH', 'TRANSACTIONAL_ID_AUTHORIZATION_FAILED']);

export function isFenced(e: unknown): boolean {
  return errorTypes(e).some((t) => FENCED.has(t));
}

/** The innermost useful message of a KafkaJS error, for one-line reports. */
export function kafkaMessage(e: unknown): string {
  const x = e as ErrorLike;
  const msg = typeof x?.message === 'string' ? x.message : String(e);
  const inner = x?.originalError ?? x?.cause;
  if (inner !== undefined && inner !== null && typeof (inner as ErrorLike).message === 'string' && (inner as ErrorLike).message !== msg) {
    return `${msg} (${kafkaMessage(inner)})`;
  }
  return msg;
}
