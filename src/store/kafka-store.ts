// The coordinator stream on Kafka, as Samza keeps it: one partition of a compacted topic holding
// Samza's coordinator-stream records (key `[1,"<type>","<key>"]`, value envelope, null value =
// delete), replayed at open (last record wins). Each commit is one Kafka transaction, so a batch is
// visible whole or not at all; the transactional id belongs to the topic, so a newer writer fences
// an older one, which then fails every write with E_STORE_FENCED. docs/coordinator.md describes it.
import os from 'node:os';
import type { Admin, Kafka, Producer } from 'kafkajs';
import { AssignorError, fail } from '../errors.js';
import { encodeEnvelope, encodeKey, envelopeHead, joinEnvelope, KEY_VERSION, SAMZA_SOURCE } from '../coordinator-stream/messages.js';
import { sspKeyParts } from '../coordinator-stream/ssp-key.js';
import { StoreState, SSP_TYPE } from './state.js';
import { checkSspRows, type StoreRecord, type CoordinatorStoreBackend, type SspRows, type StoreStats } from './backend.js';
import { checkNames, ReplayedState } from './replayed-state.js';
import { createKafka, ensureCoordinatorTopic, isFenced, kafkaMessage, loadKafkaJs } from './kafka-client.js';
import { ContactLog, contactTimeoutMs, firstContact, STEP_MS, withinDeadline } from './kafka-contact.js';
import { checkTopicName, parseKafkaLocation, type ClientOptions } from './kafka-location.js';
import { REOPEN_SETTLE_MS, replayTopic, type RawRecord } from './kafka-replay.js';

export interface KafkaStoreOptions extends ClientOptions {
  /** Read the topic once and never write (no producer, no fencing, no topic creation). */
  readOnly?: boolean;
  /** The topic, when the location names none (e.g. Samza's __samza_coordinator_<job>_<id>). */
  topic?: string;
  /** Writer: create the topic when it is missing (default true). */
  create?: boolean;
  /** Replication factor of a created topic (default min(3, brokers), as Samza's job.coordinator.replication.factor). */
  replicationFactor?: number;
  /** Default `assignor-coordinator-<topic>`: every writer of one coordinator stream shares it, so the newest fences the others. */
  transactionalId?: string;
  /** Transaction timeout in ms (default 600000; the broker caps it at transaction.max.timeout.ms, 900000 by default). */
  transactionTimeoutMs?: number;
  /** A read that makes no progress for this long fails (ms, default 60000). */
  readStallTimeoutMs?: number;
  /** `host` and `username` in value envelopes (default os.hostname() and the user name), clock for `timestamp`. */
  host?: string;
  username?: string;
  now?: () => number;
}

/** A record batch stays under Kafka's default message.max.bytes (1 MiB) with room for record overhead. */
const CHUNK_BYTES = 900 * 1024;
// KafkaJS groups a send's messages by partition with an array spread per message (quadratic in
// the count), so sends stay small in records too; measured best at about 1,000 on 2026-12 hardware.
const CHUNK_RECORDS = Number(process.env.ASSIGNOR_KAFKA_CHUNK ?? 1000);
const DISCONNECT_MS = 5_000;

/** What open found. */
export interface KafkaOpenReport {
  topicCreated: boolean;
  /** Offsets replayed: [low, high). */
  low: number;
  high: number;
  /** Committed data records read at open. */
  records: number;
  bytes: number;
  /** Milliseconds spent reading. */
  readMs: number;
}

export class KafkaCoordinatorStore extends ReplayedState implements CoordinatorStoreBackend {
  readonly location: string;
  readonly topic: string;
  readonly brokers: readonly string[];
  readonly readOnly: boolean;
  readonly transactionalId: string | undefined;
  openReport: KafkaOpenReport = { topicCreated: false, low: 0, high: 0, records: 0, bytes: 0, readMs: 0 };
  /**
   * A lower bound of the topic's end: the furthest end a replay reached, plus what each commit
   * since added (its records and its commit marker, after everything it had read). Offsets never go back.
   */
  private readUpTo = 0;

  private kafka: Kafka | undefined;
  private producer: Producer | undefined;
  private closed = false;
  /** Set once a newer writer fenced this one: every later write fails with this message. */
  private fencedBy: string | undefined;
  /** Set when a write failed with an unknown outcome: writes are refused until reopen() re-reads the topic. */
  private broken: string | undefined;
  private commits = 0;
  private committing = false;
  private bytesWritten = 0;
  private recordsWritten = 0;
  private readonly options: KafkaStoreOptions;
  /** The sockets of `kafka`, for the first-contact messages; a client that failed first contact is replaced. */
  private contact = new ContactLog();
  private readonly contactTimeout: number;
  private readonly meta: { host: string; username: string; now: () => number };

  private constructor(location: string, brokers: string[], topic: string, options: KafkaStoreOptions) {
    super();
    this.location = location;
    this.brokers = brokers;
    this.topic = topic;
    this.readOnly = options.readOnly === true;
    this.transactionalId = this.readOnly ? undefined : (options.transactionalId ?? `assignor-coordinator-${topic}`);
    this.options = options;
    this.contactTimeout = contactTimeoutMs(options.contactTimeout);
    this.meta = { host: options.host ?? os.hostname(), username: options.username ?? safeUsername(), now: options.now ?? Date.now };
  }

  /**
   * Opens the coordinator stream at `kafka://HOST:PORT[,HOST:PORT...]/TOPIC`. A writer creates the
   * topic if missing (one partition, compacted), refuses a topic with other settings, fences every
   * earlier writer of the topic (aborting its open transaction), then replays the topic. A reader
   * only replays. Throws AssignorError: E_KAFKAJS_MISSING, E_STORE_ARG, E_STORE_NOT_FOUND,
   * E_STORE_KAFKA_TOPIC, E_STORE_FORMAT, E_STORE_FENCED, E_STORE_KAFKA.
   */
  static async open(location: string, options: KafkaStoreOptions = {}): Promise<KafkaCoordinatorStore> {
    const loc = parseKafkaLocation(location);
    const topic = loc.topic ?? options.topic;
    if (topic === undefined) fail('E_STORE_ARG', `${location} names no topic: use kafka://HOST:PORT/TOPIC`, location);
    checkTopicName(topic, location);
    const where = loc.topic === undefined ? `${location.replace(/\/$/, '')}/${topic}` : location;
    const store = new KafkaCoordinatorStore(where, loc.brokers, topic, options);
    try {
      await store.connect();
    } catch (e) {
      await store.close();
      throw wrap(e, `opening ${where}`, topic);
    }
    return store;
  }

  /**
   * After a failed write (or any time): drops the producer and the state, fences again and replays
   * the topic, so the state is what Kafka holds. Fails with E_STORE_FENCED once fenced.
   */
  async reopen(): Promise<void> {
    this.checkOpen();
    if (this.fencedBy !== undefined) fail('E_STORE_FENCED', this.fencedBy, this.topic);
    const seen = this.readUpTo;
    await this.disconnect();
    // A fresh client too: the old one's metadata and sockets may still point at a broker that restarted.
    this.kafka = undefined;
    this.state = new StoreState();
    this.broken = undefined;
    try {
      await this.connect(REOPEN_SETTLE_MS);
    } catch (e) {
      throw wrap(e, `reopening ${this.location}`, this.topic);
    }
    // Offsets never go back: a topic that now ends before what this store already read or wrote is
    // a broker still recovering (its commit markers not yet written), not a shorter history. Taking
    // it as the state would recompute a model from nothing over the stored one; retry instead.
    if (this.openReport.high < seen) {
      this.broken = `reopening ${this.location} read the topic only up to offset ${this.openReport.high}, before offset ${seen} this store had read or written`;
      fail('E_STORE_KAFKA', `${this.broken}: the broker has not finished recovering its transactions yet`, this.topic);
    }
  }

  /** `settleMs`: how long a replay asks again while the topic's committed records seem to end where they begin. */
  private async connect(settleMs?: number): Promise<void> {
    const kafkajs = await loadKafkaJs();
    if (this.kafka === undefined) {
      this.contact = new ContactLog();
      this.kafka = await createKafka([...this.brokers], { ...this.options, clientId: this.options.clientId ?? 'assignor-coordinator-store' }, this.contact);
    }
    const admin: Admin = this.kafka.admin();
    try {
      await firstContact(() => admin.connect(), this.contact, this.brokers, this.contactTimeout, () => admin.disconnect());
    } catch (e) {
      this.kafka = undefined; // abandoned: the next reopen starts with a fresh client
      throw e;
    }
    const creating = ensureCoordinatorTopic(admin, kafkajs, this.topic, !this.readOnly && this.options.create !== false, this.options.replicationFactor);
    try {
      this.openReport.topicCreated = await withinDeadline(creating, STEP_MS, `checking the topic ${this.topic}`);
    } catch (e) {
      void admin.disconnect().catch(() => undefined); // not awaited: it waits for a stuck request
      this.dropClient(e);
    }
    await admin.disconnect().catch(() => undefined);
    if (!this.readOnly) await withinDeadline(this.fence(), STEP_MS, `fencing earlier writers of ${this.topic}`).catch(this.dropClient);
    const started = Date.now();
    // (A topic this open created holds nothing but what a fenced writer could not commit: no first commit to wait for.)
    const r = await replayTopic(this.kafka, this.topic, (batch) => this.applyRaw(batch), { stallTimeoutMs: this.options.readStallTimeoutMs, created: this.openReport.topicCreated, settleMs });
    this.openReport = { ...this.openReport, low: r.low, high: r.high, records: r.records, bytes: r.bytes, readMs: Date.now() - started };
    this.readUpTo = Math.max(this.readUpTo, r.high);
  }

  /**
   * Fences every earlier writer before the replay: once our producer id is initialised no older
   * writer can commit, and its open transaction is aborted, so the replay sees the final state.
   */
  private async fence(): Promise<void> {
    const producer = this.kafka!.producer({
      transactionalId: this.transactionalId,
      idempotent: true,
      maxInFlightRequests: 1,
      transactionTimeout: this.options.transactionTimeoutMs ?? 600_000,
      allowAutoTopicCreation: false,
      // One partition: no key hashing per message (KafkaJS's default partitioner hashes every key).
      createPartitioner: () => () => 0,
    });
    this.producer = producer;
    await producer.connect();
    try {
      const tx = await producer.transaction(); // InitProducerId: bumps the epoch, fencing the others
      await tx.abort(); // nothing was sent: no marker is written
    } catch (e) {
      if (isFenced(e)) this.fencedBy = fencedMessage(this.topic, this.transactionalId!, 'at open');
      throw e;
    }
  }

  /** After a step that failed or never finished: the next open starts with a fresh client. */
  private readonly dropClient = (e: unknown): never => {
    const p = this.producer;
    this.producer = undefined;
    this.kafka = undefined;
    void p?.disconnect().catch(() => undefined); // not awaited: it waits for a stuck request
    throw e;
  };

  private applyRaw(batch: RawRecord[]): void {
    for (const m of batch) this.applyRecord(m.key === null ? '' : m.key.toString('utf8'), m.value === null ? null : m.value.toString('utf8'), `${this.topic}@${m.offset}`);
  }

  // ---- reads: from memory (ReplayedState) -------------------------------------------------

  stats(): StoreStats {
    this.checkOpen();
    const live = this.state.size;
    return {
      location: this.location,
      log: `Kafka topic ${this.topic}, partition 0`,
      formatVersion: KEY_VERSION,
      fileBytes: this.openReport.bytes + this.bytesWritten,
      goodBytes: this.openReport.bytes + this.bytesWritten,
      frames: this.commits,
      records: this.state.logRecords,
      liveKeys: live,
      deadRecords: Math.max(0, this.state.logRecords - live),
      types: this.types().map((type) => ({ type, keys: this.state.liveOf(type) })),
      lastWrite: this.lastTimestamp,
      modified: undefined,
      tornBytes: 0,
    };
  }

  /** Commits since open, and the data records and bytes they wrote. */
  get written(): { commits: number; records: number; bytes: number } {
    return { commits: this.commits, records: this.recordsWritten, bytes: this.bytesWritten };
  }

  /** Whether a newer writer fenced this store (every write fails from then on). */
  get fenced(): boolean {
    return this.fencedBy !== undefined;
  }

  // ---- writes ------------------------------------------------------------------------------

  /**
   * Writes the records in order, then the SSP rows (one record per SSP, as Samza writes them), as
   * ONE Kafka transaction, and applies them to the in-memory state once it committed. Values are
   * checked before anything is sent. On E_STORE_FENCED the store never writes again; on any other
   * failure (E_STORE_KAFKA) the outcome may be unknown, so writes are refused until reopen().
   */
  async commit(records: ReadonlyArray<StoreRecord>, ssps?: SspRows): Promise<void> {
    this.checkWritable();
    // One transaction at a time per producer (KafkaJS's rule): a second commit must await the first.
    if (this.committing) fail('E_STORE_ARG', `a commit to ${this.location} is already in progress: await it before the next`, this.topic);
    if (!Array.isArray(records)) fail('E_STORE_ARG', 'commit expects an array of { type, key, value }');
    const rows = ssps === undefined ? 0 : checkSspRows(ssps);
    if (records.length === 0 && rows === 0) return;
    const meta = { host: this.meta.host, username: this.meta.username, timestamp: this.meta.now() };
    const head = envelopeHead(meta);
    // Encode (and so validate) every plain record before the transaction starts.
    const encoded: Array<{ type: string; key: string; keyJson: string; value: string | null }> = records.map((r, i) => {
      const where = `records[${i}]`;
      if (typeof r !== 'object' || r === null) fail('E_STORE_ARG', `${where} must be an object { type, key, value }`, where);
      checkNames(r.type, r.key, where);
      return { type: r.type, key: r.key, keyJson: encodeKey(r.type, r.key), value: r.value === null ? null : encodeEnvelope(r.value, meta, `${r.type} ${JSON.stringify(r.key)}`) };
    });
    const producer = this.producer!;
    let bytes = 0;
    let sent = 0;
    let tx: Awaited<ReturnType<Producer['transaction']>> | undefined;
    this.committing = true;
    try {
      tx = await withinDeadline(producer.transaction(), STEP_MS, 'starting the transaction');
      for (const chunk of chunks(encoded, ssps, rows, head)) {
        await withinDeadline(tx.send({ topic: this.topic, acks: -1, messages: chunk.messages }), STEP_MS, `sending records ${sent}..${sent + chunk.messages.length}`);
        bytes += chunk.bytes;
        sent += chunk.messages.length;
      }
      await withinDeadline(tx.commit(), STEP_MS, 'committing the transaction');
    } catch (e) {
      if (tx?.isActive()) await withinDeadline(tx.abort(), DISCONNECT_MS, 'aborting').catch(() => undefined);
      if (isFenced(e)) {
        this.fencedBy = fencedMessage(this.topic, this.transactionalId!, 'while writing');
        fail('E_STORE_FENCED', this.fencedBy, this.topic);
      }
      this.broken = `a write to ${this.location} failed (${kafkaMessage(e)}); its outcome is unknown until the store is reopened`;
      throw new AssignorError('E_STORE_KAFKA', this.broken, this.topic);
    } finally {
      this.committing = false;
    }
    this.commits++;
    // The records, then the transaction's commit marker: the topic ends at least that much further.
    this.readUpTo += sent + 1;
    this.bytesWritten += bytes;
    this.recordsWritten += sent;
    this.lastTimestamp = meta.timestamp;
    // Committed: apply exactly what was written, in the same order.
    const parsedHead = { host: meta.host, username: meta.username, source: SAMZA_SOURCE, timestamp: meta.timestamp };
    for (let i = 0; i < encoded.length; i++) {
      const r = encoded[i]!;
      this.state.applyMessage(r.type, r.key, r.value, r.value === null ? undefined : { ...parsedHead, values: records[i]!.value });
    }
    if (ssps !== undefined && rows > 0) {
      this.state.applySsps(
        { streams: ssps.streams, lists: ssps.lists, n: rows, stream: ssps.stream, partition: ssps.partition, bucket: ssps.bucket, list: ssps.list, meta: null },
        Int32Array.of(this.state.metaId(head)),
      );
    }
  }

  /** Disconnects. Safe to call twice. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.disconnect();
  }

  private async disconnect(): Promise<void> {
    const p = this.producer;
    this.producer = undefined;
    // Bounded: KafkaJS's disconnect waits for a request still stuck in a broker that restarted.
    if (p !== undefined) await withinDeadline(p.disconnect(), DISCONNECT_MS, 'disconnecting').catch(() => undefined);
  }

  protected override checkOpen(): void {
    if (this.closed) fail('E_STORE_CLOSED', `the Kafka coordinator store ${this.location} is closed`);
  }

  private checkWritable(): void {
    this.checkOpen();
    if (this.readOnly) fail('E_STORE_READONLY', `the Kafka coordinator store ${this.location} was opened read-only`);
    if (this.fencedBy !== undefined) fail('E_STORE_FENCED', this.fencedBy, this.topic);
    if (this.broken !== undefined) fail('E_STORE_KAFKA', `${this.broken}: reopen the store before writing again`, this.topic);
  }
}

interface Chunk {
  messages: Array<{ key: string; value: string | null }>;
  bytes: number;
}

/** The batch as Kafka messages in record-batch-sized chunks: plain records first, then one record per SSP row. */
function* chunks(encoded: ReadonlyArray<{ keyJson: string; value: string | null }>, ssps: SspRows | undefined, rows: number, head: string): Generator<Chunk> {
  let messages: Chunk['messages'] = [];
  let bytes = 0;
  const add = function* (key: string, value: string | null): Generator<Chunk> {
    const size = key.length + (value?.length ?? 0) + 32;
    if (messages.length > 0 && (bytes + size > CHUNK_BYTES || messages.length >= CHUNK_RECORDS)) {
      yield { messages, bytes };
      messages = [];
      bytes = 0;
    }
    messages.push({ key, value });
    bytes += size;
  };
  for (const r of encoded) yield* add(r.keyJson, r.value);
  if (ssps !== undefined && rows > 0) {
    const streams = ssps.streams.map((s) => sspKeyParts(s.system, s.stream));
    const values = ssps.lists.map((l) => joinEnvelope(head, JSON.stringify({ taskNames: l })));
    for (let i = 0; i < rows; i++) {
      const s = streams[ssps.stream[i]!]!;
      const key = `${s.head}${ssps.partition[i]}${s.tail}${ssps.bucket === null ? -1 : ssps.bucket[i]}}`;
      const l = ssps.list[i]!;
      yield* add(encodeKey(SSP_TYPE, key), l < 0 ? null : values[l]!);
    }
  }
  if (messages.length > 0) yield { messages, bytes };
}


function fencedMessage(topic: string, transactionalId: string, when: string): string {
  return `another writer of Kafka topic ${topic} (transactional id ${transactionalId}) took over ${when}: this coordinator is fenced and writes nothing more`;
}

/** AssignorErrors pass through; KafkaJS and network errors become E_STORE_FENCED or E_STORE_KAFKA. */
function wrap(e: unknown, what: string, topic: string): AssignorError {
  if (e instanceof AssignorError) return e;
  if (isFenced(e)) return new AssignorError('E_STORE_FENCED', `${what}: another writer took over the topic (${kafkaMessage(e)})`, topic);
  return new AssignorError('E_STORE_KAFKA', `${what} failed: ${kafkaMessage(e)}`, topic);
}

function safeUsername(): string {
  try {
    return os.userInfo().username;
  } catch {
    return 'unknown';
  }
}
