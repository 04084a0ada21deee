// `--store S`: a directory is the embedded file store, `kafka://HOST:PORT[,...]/TOPIC` the Kafka
// coordinator stream. Without a topic, the Kafka store uses Samza's own name for the job's
// coordinator stream, __samza_coordinator_<job.name>_<job.id>.
import { AssignorError } from '../errors.js';
import { CoordinatorStore } from '../store/coordinator-store.js';
import type { CoordinatorStoreBackend } from '../store/backend.js';
import { isKafkaLocation, samzaCoordinatorTopic } from '../store/kafka-location.js';
import { KafkaCoordinatorStore, type KafkaStoreOptions } from '../store/kafka-store.js';
import type { SamzaConfig } from '../samza/config.js';

export interface OpenStoreOptions {
  readOnly?: boolean;
  /** The job's config: names the Kafka topic when the location has none. */
  config?: SamzaConfig;
  /** Passed to the Kafka store. */
  kafka?: KafkaStoreOptions;
  /** Where the location came from, for errors (default --store). */
  where?: string;
}

/** Samza's coordinator stream topic for a job: needs job.name; job.id defaults to 1. */
export function jobCoordinatorTopic(config: SamzaConfig, where = '--store'): string {
  const name = config.get('job.name');
  if (name === undefined || name === '') {
    throw new AssignorError('E_STORE_ARG', 'the Kafka store location names no topic and the job has no job.name to derive __samza_coordinator_<job.name>_<job.id> from: use kafka://HOST:PORT/TOPIC', where);
  }
  return samzaCoordinatorTopic(name, config.get('job.id') ?? '1');
}

/** Opens the store a location names (throws the backend's E_STORE_* errors). */
export async function openStore(location: string, options: OpenStoreOptions = {}): Promise<CoordinatorStoreBackend> {
  const where = options.where ?? '--store';
  if (typeof location !== 'string' || location === '') throw new AssignorError('E_USAGE', `${where} needs a directory or kafka://HOST:PORT/TOPIC, got an empty string`, where);
  if (isKafkaLocation(location)) {
    const hasTopic = /^kafka:\/\/[^/]*\/./.test(location);
    const topic = hasTopic || options.config === undefined ? undefined : jobCoordinatorTopic(options.config, where);
    return KafkaCoordinatorStore.open(location, { ...options.kafka, ...(topic !== undefined ? { topic } : {}), readOnly: options.readOnly === true });
  }
  return CoordinatorStore.open(location, { readOnly: options.readOnly === true });
}
