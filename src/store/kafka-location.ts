// Kafka store locations (`kafka://HOST:PORT[,HOST:PORT...]/TOPIC`), Samza's coordinator topic name,
// and client options. Free of KafkaJS (types included), so the public API can name these without
// making kafkajs a dependency of anyone's type check.
import { fail } from '../errors.js';

export interface KafkaLocation {
  brokers: string[];
  /** Undefined when the location names no topic (the caller derives Samza's name from the job). */
  topic: string | undefined;
}

export function isKafkaLocation(location: string): boolean {
  return location.startsWith('kafka://');
}

// Kafka's own rule for topic names (Topic.validate): 1..249 of [a-zA-Z0-9._-], not "." or "..".
const TOPIC = /^[a-zA-Z0-9._-]{1,249}$/;
const HOST_PORT = /^(\[[0-9a-fA-F:.]+\]|[^\s:/,[\]]+):(\d{1,5})$/;

/** Parses `kafka://HOST:PORT[,HOST:PORT...][/TOPIC]`; errors name what is wrong (E_STORE_ARG). */
export function parseKafkaLocation(location: string, where = '--store'): KafkaLocation {
  if (!isKafkaLocation(location)) fail('E_STORE_ARG', `a Kafka store location starts with kafka://, got ${JSON.stringify(location)}`, where);
  const rest = location.slice('kafka://'.length);
  const slash = rest.indexOf('/');
  const hosts = slash < 0 ? rest : rest.slice(0, slash);
  const topic = slash < 0 ? '' : rest.slice(slash + 1);
  const brokers = hosts.split(',').map((h) => h.trim());
  for (const b of brokers) {
    const m = HOST_PORT.exec(b);
    if (m === null || Number(m[2]) < 1 || Number(m[2]) > 65535) {
      fail('E_STORE_ARG', `${JSON.stringify(location)}: ${JSON.stringify(b)} is not HOST:PORT (expected kafka://HOST:PORT[,HOST:PORT...]/TOPIC)`, where);
    }
  }
  if (topic !== '') checkTopicName(topic, where);
  return { brokers, topic: topic === '' ? undefined : topic };
}

export function checkTopicName(topic: string, where: string): void {
  if (!TOPIC.test(topic) || topic === '.' || topic === '..') {
    fail('E_STORE_ARG', `${JSON.stringify(topic)} is not a valid Kafka topic name (1 to 249 of a-z A-Z 0-9 . _ -)`, where);
  }
}

/** Samza's coordinator stream name for a job: __samza_coordinator_<job.name>_<job.id>, underscores as dashes. */
export function samzaCoordinatorTopic(jobName: string, jobId: string): string {
  return `__samza_coordinator_${jobName.replaceAll('_', '-')}_${jobId.replaceAll('_', '-')}`;
}

/** KafkaJS's retry settings (see its documentation): attempts and exponential backoff. */
export interface RetryOptions {
  retries?: number;
  initialRetryTime?: number;
  maxRetryTime?: number;
  factor?: number;
  multiplier?: number;
}

export interface ClientOptions {
  clientId?: string;
  /** Connection and request timeouts in ms (defaults 3000 and 30000). */
  connectionTimeout?: number;
  requestTimeout?: number;
  /**
   * How long to wait for the cluster's first answer when connecting (ms, default 10000, or
   * ASSIGNOR_KAFKA_CONTACT_TIMEOUT_MS): a broker that accepts connections and never answers fails
   * after this long, with a message saying what each address did.
   */
  contactTimeout?: number;
  /** KafkaJS's retry settings for every request (default: 5 retries from 100 ms, doubling). */
  retry?: RetryOptions;
}

