// Samza's error texts are part of the contract (users grep logs for them), so
// each one is raised through here with the Java exception type it had in Samza.
import { AssignorError, type ErrorCode } from '../errors.js';

export type SamzaExceptionType =
  | 'IllegalArgumentException'
  | 'ConfigException'
  | 'SamzaException'
  | 'IllegalStateException'
  | 'NullPointerException';

export class SamzaError extends AssignorError {
  /** The exception class Samza throws for the same condition. */
  readonly samzaType: SamzaExceptionType;
  /** The underlying error, for the proxy's wrapper exception. */
  override readonly cause: Error | undefined;

  constructor(code: ErrorCode, samzaType: SamzaExceptionType, message: string, path?: string, cause?: Error) {
    super(code, message, path);
    this.name = 'SamzaError';
    this.samzaType = samzaType;
    this.cause = cause;
  }

  override oneLine(): string {
    const base = super.oneLine();
    return this.cause === undefined ? base : `${base} Caused by: ${this.cause.message.replace(/\s*\n\s*/g, ' ')}`;
  }
}

export const MSG = {
  noDot: (name: string) => `No '.' in stream name '${name}'. Stream names should be in the form 'system.stream'`,
  broadcastFormat: (item: string) =>
    `incorrect format in ${item}. Broadcast stream names should be in the form 'system.stream#partitionId' or 'system.stream#[partitionN-partitionM]'`,
  elasticity: 'Elasticity factor can not be less than 1',
  allSspBroadcast: 'The job configured with AllSspToSingleTaskGrouper cannot have broadcast streams.',
  sspSetNull: 'ssp set cannot be null!',
  processorListEmpty: 'processor list cannot be empty!',
  noInputSsps: 'Cannot process stream task with no input system stream partitions',
  notMultiple: (cur: number, prev: number) => `New partition count: ${cur} should be a multiple of previous partition count: ${prev}.`,
  proxy:
    'Error in partition-to-task assignment via the SSPGroupProxy. To disable the SSPGroupProxy, set config job.systemstreampartition.input.expansion.enabled = false, only if you cannot address the root cause as shown in the underlying exception.',
  atLeastOneContainer: 'Must have at least one container',
  noTasks: "No tasks found. Likely due to no input partitions. Can't run a job with no tasks.",
  tooManyContainers: (n: number, t: number) =>
    `Your container count (${n}) is larger than your task count (${t}). Can't have containers with nothing to do, so aborting.`,
  emptyGroup: (ids: readonly string[]) => `cannot group an empty set. containerIds=[${ids.join(', ')}]`,
  inputsEmpty: 'Input streams to a job can not be empty.',
  readAssignments: 'Exception occurred when reading task partition assignments.',
  writeAssignments: 'Exception occurred when writing task to partition assignment.',
} as const;
