// The first contact with a Kafka cluster, bounded and explained. KafkaJS waits for the answer to
// its first request (ApiVersions) for max(requestTimeout, connectionTimeout), 30 s by default, when
// a broker accepts the TCP connection and never answers, and then says only "Broker not connected".
// Here the first contact has a deadline of its own (contactTimeout, default 10 s), and a failure
// says what each address did, from its sockets' own events: accepted but never answered, refused,
// or never accepted the connection.
import net from 'node:net';
import type { ISocketFactory } from 'kafkajs';
import { AssignorError } from '../errors.js';

/** Default wait for a cluster's first answer (ms). */
export const DEFAULT_CONTACT_TIMEOUT_MS = 10_000;
/** Sets the default for a process (the CLI's knob; `contactTimeout` in the API wins over it). */
export const CONTACT_TIMEOUT_ENV = 'ASSIGNOR_KAFKA_CONTACT_TIMEOUT_MS';
// KafkaJS's own socket keep-alive (src/network/socketFactory.js).
const KEEP_ALIVE_MS = 60_000;

/** The wait for a first answer: the option, else ASSIGNOR_KAFKA_CONTACT_TIMEOUT_MS, else 10 s. */
export function contactTimeoutMs(option: number | undefined, env: string | undefined = process.env[CONTACT_TIMEOUT_ENV]): number {
  if (option !== undefined) {
    if (!(Number.isInteger(option) && option > 0)) throw new AssignorError('E_STORE_ARG', `contactTimeout must be a positive whole number of milliseconds, got ${String(option)}`, 'contactTimeout');
    return option;
  }
  if (env === undefined || env === '') return DEFAULT_CONTACT_TIMEOUT_MS;
  if (!/^\d{1,9}$/.test(env) || Number(env) === 0) throw new AssignorError('E_USAGE', `${CONTACT_TIMEOUT_ENV} must be a positive whole number of milliseconds, got ${JSON.stringify(env)}`, CONTACT_TIMEOUT_ENV);
  return Number(env);
}

interface AddressLog {
  attempts: number;
  connected: number;
  answered: boolean;
  error: string | undefined;
}

/** What a client's sockets did, per broker address, since the last reset(). */
export class ContactLog {
  private readonly addresses = new Map<string, AddressLog>();
  private sockets: net.Socket[] = [];
  private abandoned = false;

  /** A KafkaJS socketFactory (plain TCP, as KafkaJS's own) that records each socket's events. */
  readonly socketFactory: ISocketFactory = ({ host, port, onConnect }) => {
    if (this.abandoned) return refusedSocket();
    const a = this.entry(`${host}:${port}`);
    a.attempts++;
    const socket = net.connect({ host, port }, onConnect);
    socket.setKeepAlive(true, KEEP_ALIVE_MS);
    socket.once('connect', () => a.connected++);
    socket.once('data', () => (a.answered = true));
    socket.once('error', (e: NodeJS.ErrnoException) => (a.error = e.code ?? e.message));
    this.sockets.push(socket);
    socket.once('close', () => (this.sockets = this.sockets.filter((x) => x !== socket)));
    return socket;
  };

  /**
   * Gives up on the client: closes its sockets, and any it opens later fail at once. KafkaJS
   * cannot cancel a connect: it waits for the lock of the pending one (30 s) and then retries,
   * keeping the process alive; with its sockets gone its retries end within its backoff (~3 s).
   */
  abandon(): void {
    this.abandoned = true;
    // With an error: KafkaJS then rejects the request in flight and stops its timeout timer.
    for (const s of this.sockets.splice(0)) s.destroy(abandonedError());
  }

  get answered(): boolean {
    return [...this.addresses.values()].some((a) => a.answered);
  }

  /** What each address tried did, in the order given (then any other address the client tried). */
  explain(brokers: readonly string[]): string {
    const order = [...new Set([...brokers, ...[...this.addresses.keys()].sort()])];
    const parts: string[] = [];
    for (const address of order) {
      const a = this.addresses.get(address);
      if (a !== undefined && a.attempts > 0) parts.push(`${address} ${describeAddress(a)}`);
    }
    return parts.length === 0 ? 'no connection was attempted' : parts.join('; ');
  }

  private entry(address: string): AddressLog {
    let a = this.addresses.get(address);
    if (a === undefined) this.addresses.set(address, (a = { attempts: 0, connected: 0, answered: false, error: undefined }));
    return a;
  }
}

function describeAddress(a: AddressLog): string {
  const tries = `${a.attempts} attempt${a.attempts === 1 ? '' : 's'}`;
  if (a.answered) return 'answered';
  if (a.connected > 0) return `accepted ${a.connected === 1 ? 'the connection' : `${a.connected} connections`} but never answered the first request (ApiVersions)`;
  if (a.error === 'ECONNREFUSED') return `refused the connection (${tries})`;
  if (a.error !== undefined) return `could not be reached (${a.error}, ${tries})`;
  return `did not accept a connection (${tries}, each cut at connectionTimeout)`;
}

/**
 * Runs a client's first request (`connect()` of an admin) under the contact deadline. The log must
 * be the client's own (one ContactLog per KafkaJS client: an abandoned client stays abandoned).
 * When the connect fails or the deadline passes without any broker answering, the client is
 * abandoned, `abort` disconnects it, and the error (a plain Error, for the caller to wrap) says what was tried, where, and for how long;
 * a failure after some broker answered is passed on as it is.
 */
export async function firstContact<T>(connect: () => Promise<T>, log: ContactLog, brokers: readonly string[], timeoutMs: number, abort: () => Promise<unknown>): Promise<T> {
  const started = Date.now();
  let timer: NodeJS.Timeout | undefined;
  const attempt = connect();
  const deadline = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), timeoutMs)));
  let outcome: T | 'timeout';
  try {
    outcome = await Promise.race([attempt, deadline]);
  } catch (e) {
    if (log.answered) throw e;
    giveUp(log, abort);
    throw new Error(`no answer from Kafka at ${brokers.join(',')} after ${seconds(Date.now() - started)}: ${log.explain(brokers)}`);
  } finally {
    clearTimeout(timer);
  }
  if (outcome !== 'timeout') return outcome;
  attempt.catch(() => undefined); // it rejects once abandoned: nobody waits for it any more
  giveUp(log, abort);
  throw new Error(`no answer from Kafka at ${brokers.join(',')} within ${seconds(timeoutMs)}: ${log.explain(brokers)} (contactTimeout ${timeoutMs} ms; ${CONTACT_TIMEOUT_ENV} for the CLI)`);
}

/**
 * The bound on each step that talks to the broker once it has answered (checking the topic,
 * fencing, each request of a write, the offsets a read starts from). Fixed and generous: it only
 * turns a hang into an error the caller retries (KafkaJS's own retries give up sooner), as a broker
 * that restarted could cause one.
 */
export const STEP_MS = 60_000;

/**
 * `work` within `timeoutMs`, else a plain Error saying what did not finish (for the caller to wrap).
 * KafkaJS bounds each request, but its retries of a broker that is still loading after a restart
 * (a transaction or group coordinator not ready yet) can go on without end; an abandoned `work`
 * is left to settle on its own.
 */
export async function withinDeadline<T>(work: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} did not finish within ${seconds(timeoutMs)}`)), timeoutMs)));
  work.catch(() => undefined); // once abandoned, nobody waits for it
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

// Not awaited: KafkaJS's disconnect waits for the pending connect's lock.
function giveUp(log: ContactLog, abort: () => Promise<unknown>): void {
  log.abandon();
  abort().catch(() => undefined);
}

/** A socket that fails on the next tick, as a refused connection does (KafkaJS listens by then). */
function refusedSocket(): net.Socket {
  const socket = new net.Socket();
  process.nextTick(() => socket.destroy(abandonedError()));
  return socket;
}

function abandonedError(): Error {
  return Object.assign(new Error('connection abandoned after the contact timeout'), { code: 'EABANDONED' });
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}
