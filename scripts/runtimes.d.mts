// Types of scripts/runtimes.mjs for the tests that use it.
export interface Runtime {
  name: string;
  version: string;
  role: 'primary' | 'library';
  pkg: string;
  bin: string;
}
export const RUNTIMES: readonly Runtime[];
/** The path of a runtime's binary, installed into the cache first when missing. */
export function runtimeBinary(name: string): string;
/** The command line that runs a JS file under a runtime. */
export function launch(name: string, script: string, args?: string[]): string[];
