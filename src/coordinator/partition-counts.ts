// Where the monitor gets partition counts from (Samza's StreamPartitionCountMonitor re-fetches the
// system's stream metadata): Kafka's topic metadata through an admin client, or the job file,
// re-read on every poll so editing its "partitions" is a partition change.
import type { Admin } from 'kafkajs';
import { AssignorError } from '../errors.js';
import { readFileSync } from 'node:fs';
import { parseJobFile } from '../samza/job-file.js';
import { createKafka, kafkaMessage } from '../store/kafka-client.js';
import type { ClientOptions } from '../store/kafka-location.js';
import { ContactLog, contactTimeoutMs, firstContact } from '../store/kafka-contact.js';

export interface PartitionCountSource {
  /** What the counts come from, for messages (`Kafka at host:port`, `job file job.json`). */
  readonly name: string;
  /**
   * The partition count of each stream (`system.stream`), fetched now. Throws an AssignorError when
   * a count cannot be had (the coordinator reports it and retries with backoff).
   */
  counts(streams: readonly string[]): Promise<Map<string, number>>;
  close(): Promise<void>;
}

/** Counts from a Kafka cluster's metadata: stream `system.stream` is topic `stream`. */
export class KafkaPartitionCounts implements PartitionCountSource {
  readonly name: string;
  private admin: Admin | undefined;
  private readonly contactTimeout: number;

  constructor(
    private readonly brokers: readonly string[],
    private readonly options: ClientOptions = {},
  ) {
    this.name = `Kafka at ${brokers.join(',')}`;
    this.contactTimeout = contactTimeoutMs(options.contactTimeout);
  }

  async counts(streams: readonly string[]): Promise<Map<string, number>> {
    const topics = [...new Set(streams.map(topicOf))];
    try {
      if (this.admin === undefined) {
        const contact = new ContactLog(); // one per client: a client that failed first contact is dropped
        const kafka = await createKafka([...this.brokers], { ...this.options, clientId: this.options.clientId ?? 'assignor-partition-monitor', retry: this.options.retry ?? { retries: 2, initialRetryTime: 200 } }, contact);
        const admin = kafka.admin();
        await firstContact(() => admin.connect(), contact, this.brokers, this.contactTimeout, () => admin.disconnect());
        this.admin = admin;
      }
      const have = new Set(await this.admin.listTopics());
      const missing = topics.filter((t) => !have.has(t));
      if (missing.length > 0) throw new AssignorError('E_COUNTS_TOPIC', `${this.name} has no topic ${missing.join(', ')} (input streams ${streams.filter((s) => missing.includes(topicOf(s))).join(', ')})`, missing[0]);
      const meta = await this.admin.fetchTopicMetadata({ topics });
      const byTopic = new Map(meta.topics.map((t) => [t.name, t.partitions.length]));
      const out = new Map<string, number>();
      for (const s of streams) out.set(s, byTopic.get(topicOf(s))!);
      return out;
    } catch (e) {
      // A fresh client next time: KafkaJS's own reconnection after a broker restart is not reliable for admins.
      await this.close();
      if (e instanceof AssignorError) throw e;
      throw new AssignorError('E_COUNTS_KAFKA', `cannot read partition counts from ${this.name}: ${kafkaMessage(e)}`, this.brokers.join(','));
    }
  }

  async close(): Promise<void> {
    const a = this.admin;
    this.admin = undefined;
    if (a !== undefined) await a.disconnect().catch(() => undefined);
  }
}

/** The topic of a `system.stream` name: everything after the first dot (Samza's split). */
function topicOf(stream: string): string {
  const dot = stream.indexOf('.');
  return dot < 0 ? stream : stream.slice(dot + 1);
}

/** Counts from the job file's "partitions", re-read and re-parsed on every poll. */
export class JobFilePartitionCounts implements PartitionCountSource {
  readonly name: string;

  constructor(private readonly path: string) {
    this.name = `job file ${path}`;
  }

  async counts(streams: readonly string[]): Promise<Map<string, number>> {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (e) {
      throw new AssignorError('E_COUNTS_FILE', `cannot read ${this.path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, this.path);
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (e) {
      // A half-saved file (an editor writing it) is retried like any other failure.
      throw new AssignorError('E_COUNTS_FILE', `${this.path} is not valid JSON: ${(e as Error).message}`, this.path);
    }
    const job = parseJobFile(json);
    const out = new Map<string, number>();
    for (const s of streams) {
      const c = job.partitionCounts.get(s);
      if (c === undefined) throw new AssignorError('E_COUNTS_FILE', `${this.path} gives no partition count for input stream ${s}`, `partitions.${s}`);
      out.set(s, c);
    }
    return out;
  }

  async close(): Promise<void> {}
}

/** A fixed set of counts (tests, and callers that poll something else): `set` changes them. */
export class StaticPartitionCounts implements PartitionCountSource {
  readonly name = 'given counts';
  private current: Map<string, number>;

  constructor(counts: ReadonlyMap<string, number>) {
    this.current = new Map(counts);
  }

  set(counts: ReadonlyMap<string, number>): void {
    this.current = new Map(counts);
  }

  async counts(streams: readonly string[]): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    for (const s of streams) {
      const c = this.current.get(s);
      if (c === undefined) throw new AssignorError('E_COUNTS_MISSING', `no partition count for input stream ${s}`, s);
      out.set(s, c);
    }
    return out;
  }

  async close(): Promise<void> {}
}
