// Reading a coordinator-stream topic: every committed record of partition 0 from the oldest offset
// to the end found at the start, in offset order. read_committed: the end is the last stable offset
// (ListOffsets with read_committed; the high watermark when no transaction is open), so a reader
// never waits for a writer's open transaction, and records of aborted transactions and the markers
// are skipped. KafkaJS has no assign(), so the read runs as the only member of a throwaway consumer
// group that commits nothing and is deleted afterwards.
import type { Admin, Consumer, Kafka } from 'kafkajs';
import { fail } from '../errors.js';
import { kafkaMessage } from './kafka-client.js';
import { STEP_MS, withinDeadline } from './kafka-contact.js';

/** How long a read waits for a just-committed transaction's marker (the last stable offset to catch up). */
const SETTLE_MS = 2000;
/** How long a read asks again for the end of a topic whose committed records end where they begin (see startOffsets). */
const FIRST_SETTLE_MS = 500;
/**
 * The same after a failed write: the broker may have crashed and come back, and until its
 * transaction coordinator has written the commit markers it owed, a committed topic reads as empty.
 */
export const REOPEN_SETTLE_MS = 15_000;
/** How long a read_uncommitted read of a topic with nothing committed waits for a first record before taking it as empty. */
const EMPTY_MS = 2000;

export interface RawRecord {
  key: Buffer | null;
  value: Buffer | null;
  offset: string;
}

export interface ReplayOptions {
  /** Give up when no progress is made for this long (ms; default 60000), e.g. behind an open transaction. */
  stallTimeoutMs?: number;
  /** Group id prefix of the throwaway reader group. */
  groupPrefix?: string;
  /** Also return records of aborted and open transactions (diagnostics and tests; never for state). */
  readUncommitted?: boolean;
  /** The caller created the topic just now: an end at the oldest offset is an empty topic (no asking again, see startOffsets). */
  created?: boolean;
  /** How long an end at the oldest offset is asked again (ms; default FIRST_SETTLE_MS, 500). */
  settleMs?: number;
}

export interface ReplayResult {
  /** Offsets read: [low, high) (high: the last stable offset when the read started; read_uncommitted: the high watermark). */
  low: number;
  high: number;
  /** Records handed to `apply` (committed data records; markers and aborted records excluded). */
  records: number;
  /** Key and value bytes of those records. */
  bytes: number;
}

/**
 * Calls `apply` for every committed record of partition 0 in offset order, up to the last stable
 * offset found at the start. `apply` runs synchronously per batch; throwing from it stops the read.
 */
export async function replayTopic(kafka: Kafka, topic: string, apply: (batch: RawRecord[]) => void, options: ReplayOptions = {}): Promise<ReplayResult> {
  const admin = kafka.admin();
  try {
    await withinDeadline(admin.connect(), STEP_MS, `connecting to read ${topic}`);
    return await replayWith(kafka, admin, topic, apply, options);
  } finally {
    await atMost(admin.disconnect(), CLEANUP_MS);
  }
}

/** The last stable offset and the oldest offset of partition 0 (KafkaJS's ListOffsets is read_committed). */
async function stableOffsets(admin: Admin, topic: string): Promise<{ low: number; high: number }> {
  const p0 = (await admin.fetchTopicOffsets(topic)).find((o) => o.partition === 0);
  if (p0 === undefined) fail('E_STORE_KAFKA_TOPIC', `Kafka topic ${topic} has no partition 0`, topic);
  return { low: Number(p0.low), high: Number(p0.high) };
}

/**
 * The offsets to read, [low, stable end). A last stable offset at the oldest offset does not mean
 * an empty topic: right after the first transaction committed its marker may still be on its way
 * (the end then stands at the oldest offset for a moment). KafkaJS gives no high watermark without a
 * fetch, so the end is asked again for FIRST_SETTLE_MS while it does not move.
 */
async function startOffsets(admin: Admin, topic: string, settleMs = FIRST_SETTLE_MS): Promise<{ low: number; high: number }> {
  let o = await stableOffsets(admin, topic);
  const until = Date.now() + settleMs;
  while (o.high <= o.low && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 25));
    o = await stableOffsets(admin, topic);
  }
  return o;
}

/** What a read has reached, and when it is done (the end, a failure, or no progress for too long). */
class ReadState {
  next: number; // the offset after the last one processed (data, aborted or marker)
  watermark: number; // the highest high watermark the fetches reported
  failed: unknown;
  lastProgress = Date.now();
  settleUntil = 0;
  settling = false;
  readonly done: Promise<void>;
  finish!: () => void;

  constructor(
    readonly result: ReplayResult,
    readonly stable: number,
    readonly uncommitted: boolean,
  ) {
    this.next = result.low;
    this.watermark = stable;
    this.done = new Promise<void>((resolve) => (this.finish = resolve));
  }

  fail(e: unknown): void {
    this.failed ??= e;
    this.finish();
  }
}

/**
 * A transaction committed just before the read may still be waiting for its marker: the last
 * stable offset then trails the high watermark for a moment. Re-ask for a short while (SETTLE_MS)
 * and read on from where we stopped, so a read right after a commit sees it; what is still beyond
 * after that belongs to an open transaction. Records at or past the end are never applied: the end
 * is a transaction boundary, a fetch may not be.
 */
function reachedEnd(st: ReadState, admin: Admin, topic: string, consumer: Consumer): void {
  if (st.next < st.result.high || st.settling) return;
  if (st.watermark <= st.result.high) return st.finish();
  if (st.settleUntil === 0) st.settleUntil = Date.now() + SETTLE_MS;
  if (Date.now() > st.settleUntil) return st.finish();
  st.settling = true;
  setTimeout(() => {
    stableOffsets(admin, topic).then(
      (o) => {
        st.settling = false;
        const end = st.uncommitted ? st.watermark : o.high;
        if (end > st.result.high) {
          st.next = st.result.high;
          st.result.high = end;
          consumer.seek({ topic, partition: 0, offset: String(st.next) });
        }
        reachedEnd(st, admin, topic, consumer);
      },
      (e: unknown) => st.fail(e),
    );
  }, 50);
}

function progress(st: ReadState, lastOffset: string, highWatermark: string, end: () => void): void {
  if (st.uncommitted) st.result.high = Math.max(st.stable, Number(highWatermark));
  const n = Math.min(Number(lastOffset) + 1, st.result.high);
  if (n > st.next) {
    st.next = n;
    st.lastProgress = Date.now();
  }
  st.watermark = Math.max(st.watermark, Number(highWatermark));
  end();
}

/** Fails the read when no progress was made for `stallMs`; a read_uncommitted one of a topic that may be empty ends instead. */
function watchStall(st: ReadState, stallMs: number): ReturnType<typeof setInterval> {
  const maybeEmpty = st.uncommitted && st.stable <= st.result.low;
  return setInterval(() => {
    const idle = Date.now() - st.lastProgress;
    if (maybeEmpty && st.next === st.result.low && idle > EMPTY_MS) {
      st.result.high = st.result.low;
      return st.finish();
    }
    if (idle > stallMs) {
      st.fail(new Error(st.next === st.result.low ? `no records arrived within ${stallMs} ms` : `stuck at offset ${st.next} of ${st.result.high} for ${stallMs} ms`));
    }
  }, Math.min(250, stallMs));
}

async function replayWith(kafka: Kafka, admin: Admin, topic: string, apply: (batch: RawRecord[]) => void, options: ReplayOptions): Promise<ReplayResult> {
  const uncommitted = options.readUncommitted === true;
  const offsets = uncommitted || options.created === true ? stableOffsets(admin, topic) : startOffsets(admin, topic, options.settleMs);
  const { low, high: stable } = await withinDeadline(offsets, STEP_MS + (options.settleMs ?? FIRST_SETTLE_MS), `finding the offsets of ${topic}`);
  const result: ReplayResult = { low, high: stable, records: 0, bytes: 0 };
  // (read_uncommitted: an open first transaction's records lie beyond a stable end at the oldest offset.)
  if (stable <= low && !uncommitted) return result;
  if (uncommitted) result.high = Number.MAX_SAFE_INTEGER; // set from the first fetch's high watermark
  const groupId = `${options.groupPrefix ?? 'assignor-store-reader'}-${process.pid}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
  const consumer = kafka.consumer({
    groupId,
    readUncommitted: uncommitted,
    // Large fetches: the store is read once, start to end.
    maxBytesPerPartition: 16 << 20,
    maxBytes: 64 << 20,
    minBytes: 1,
    maxWaitTimeInMs: 250,
    allowAutoTopicCreation: false,
  });
  const st = new ReadState(result, stable, uncommitted);
  const timer = watchStall(st, options.stallTimeoutMs ?? 60_000);
  try {
    await readAll(st, consumer, admin, topic, apply);
  } finally {
    clearInterval(timer);
    // Bounded: KafkaJS's disconnect waits for a join still under way (a broker that came back and
    // whose group coordinator is still loading), and a failed read must be reported, not wait.
    await atMost(consumer.disconnect(), CLEANUP_MS);
    await atMost(deleteGroup(kafka, groupId), CLEANUP_MS);
  }
  if (st.failed !== undefined) {
    if (st.failed instanceof Error && st.failed.name === 'AssignorError') throw st.failed;
    fail('E_STORE_KAFKA', `reading Kafka topic ${topic} failed: ${kafkaMessage(st.failed)}`, topic);
  }
  return result;
}

/** Runs the consumer from the oldest offset until the read is done, handing `apply` the records below the end. */
async function readAll(st: ReadState, consumer: Consumer, admin: Admin, topic: string, apply: (batch: RawRecord[]) => void): Promise<void> {
  const result = st.result;
  const end = (): void => reachedEnd(st, admin, topic, consumer);
  // END_BATCH_PROCESS also fires for batches holding only markers or aborted records, which never reach eachBatch.
  consumer.on(consumer.events.END_BATCH_PROCESS, (e) => {
    if (e.payload.partition === 0) progress(st, e.payload.lastOffset, e.payload.highWatermark, end);
  });
  consumer.on(consumer.events.CRASH, (e) => {
    // A retriable crash (e.g. the group coordinator still loading) is restarted by KafkaJS itself.
    if (!e.payload.restart) st.fail(e.payload.error);
  });
  // The consumer's start (connect, subscribe, the group join inside run) races the read's end: a
  // start that never completes is ended by the stall timer (watchStall) instead of hanging the read.
  const start = async (): Promise<void> => {
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: true,
      eachBatch: async ({ batch }) => {
        if (st.failed !== undefined) return;
        const rows: RawRecord[] = [];
        for (const m of batch.messages) {
          const o = Number(m.offset);
          if (o < st.next) continue;
          if (o >= result.high) break;
          rows.push({ key: m.key, value: m.value, offset: m.offset });
          result.bytes += (m.key?.length ?? 0) + (m.value?.length ?? 0);
        }
        try {
          apply(rows);
          result.records += rows.length;
        } catch (e) {
          st.fail(e);
        }
      },
    });
  };
  start().catch((e: unknown) => st.fail(e));
  await st.done;
}

/** How long a read's cleanup (consumer disconnect, group deletion) may take before it is left to finish on its own. */
const CLEANUP_MS = 10_000;

/** Waits for `p` to settle, at most `ms`; it is then left running, its outcome ignored. */
async function atMost(p: Promise<unknown>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([p.catch(() => undefined), new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

async function deleteGroup(kafka: Kafka, groupId: string): Promise<void> {
  const admin = kafka.admin();
  try {
    await admin.connect();
    await admin.deleteGroups([groupId]);
  } catch {
    // Best effort: an empty group without offsets expires on its own.
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}
