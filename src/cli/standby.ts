import { AssignorError } from '../errors.js';

// Placeholder until the standby command lands; it says so plainly instead of pretending.
export function run(_argv: string[]): number {
  throw new AssignorError('E_NOT_BUILT', 'the standby command is not built yet');
}
