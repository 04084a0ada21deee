#!/usr/bin/env node
// `assignor <command> ...`: one file per command in this folder. Every
// AssignorError becomes one line on stderr and exit code 2; anything else is a
// bug and is reported as such (still one line, exit 70).
import { readFileSync, realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { AssignorError, EXIT_BAD_INPUT, EXIT_OK, clipText, describe, MAX_LINE } from '../errors.js';
import { unknownOption } from './args.js';

type Command = (argv: string[]) => Promise<number> | number;

const COMMANDS: Record<string, { summary: string; load: () => Promise<Command> }> = {
  hash: { summary: 'key -> partition, Kafka murmur2 (keys from --key or stdin)', load: async () => (await import('./hash.js')).run },
  samza: { summary: 'Samza job models with partition expansion (plan, expansion, watch, import, export)', load: async () => (await import('./samza.js')).run },
  channels: { summary: 'partition sets for parallel consumer channels (plan, validate, expand, rewidth)', load: async () => (await import('./channels.js')).run },
  standby: { summary: 'rack-aware standby placement (KIP-708)', load: async () => (await import('./standby.js')).run },
  streams: { summary: 'Kafka Streams group (KIP-1071): sticky actives, KIP-708 standbys per member', load: async () => (await import('./streams.js')).run },
  group: { summary: "consumer group assignment: sticky, or exactly Kafka's range / round-robin", load: async () => (await import('./group.js')).run },
  store: { summary: 'look after a coordinator store (inspect, compact, export)', load: async () => (await import('./store.js')).run },
};

export const USAGE = `usage: assignor <command> [options]

commands:
${Object.entries(COMMANDS)
  .map(([name, c]) => `  ${name.padEnd(10)}${c.summary}`)
  .join('\n')}

Run \`assignor <command> --help\` for a command's options, \`assignor --version\` for the version.`;

/** Exit code of a bug: EX_SOFTWARE. */
export const EXIT_INTERNAL = 70;

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return EXIT_OK;
  }
  if (name === '--version' || name === '-V') {
    process.stdout.write(`${packageVersion()}\n`);
    return EXIT_OK;
  }
  const names = Object.keys(COMMANDS);
  if (name === undefined) {
    throw new AssignorError('E_USAGE', `missing command: ${names.join(', ')} (see assignor --help)`);
  }
  if (name.startsWith('-') && name !== '-') throw unknownOption(name, ['help', 'version']);
  if (!Object.hasOwn(COMMANDS, name)) throw new AssignorError('E_USAGE', `unknown command ${describe(name)}; commands: ${names.join(', ')}`);
  return (await COMMANDS[name]!.load())(rest);
}

/** The version in the package.json next to this file's package (dist/cli/ or src/cli/ -> ../../). */
function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: unknown };
  return String(pkg.version);
}

/**
 * Runs one `assignor` command line in this process and returns its exit code;
 * errors are written to stderr as one line. The binary is this plus setting the
 * exit code; tests drive many command lines through it in one process.
 */
export async function runCli(argv: string[]): Promise<number> {
  try {
    return await main(argv);
  } catch (e) {
    return reportError(e);
  }
}

/** Writes the one-line form of any thrown value to stderr; returns the exit code for it. */
export function reportError(e: unknown): number {
  if (e instanceof AssignorError) {
    process.stderr.write(`assignor: ${e.oneLine()}\n`);
    return EXIT_BAD_INPUT;
  }
  const err = e as Error | undefined;
  const message = clipText(String(err?.message ?? e).replace(/\s*[\r\n]+\s*/g, ' '), MAX_LINE);
  process.stderr.write(`assignor: internal error: ${message}\n`);
  if (process.env.ASSIGNOR_DEBUG) process.stderr.write(`${err?.stack}\n`);
  return EXIT_INTERNAL;
}

/** True when this module is the program node was asked to run (the `assignor` binary, even through a symlink). */
function isEntryPoint(): boolean {
  try {
    return process.argv[1] !== undefined && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

/**
 * KafkaJS 2.2.4's request queue sets a timer with a negative delay whenever it checks an empty
 * queue, and Node 24 prints a TimeoutNegativeWarning for it on stderr, breaking the one-line error.
 * That warning alone is dropped (the timer fires at once, as KafkaJS means); others print as before.
 */
function dropKafkaJsTimerWarning(): void {
  const printers = process.listeners('warning');
  process.removeAllListeners('warning');
  process.on('warning', (w) => {
    if (w.name === 'TimeoutNegativeWarning') return;
    for (const p of printers) p(w);
  });
}

/** What the `assignor` binary does: runs process.argv's command line and sets the exit code. */
export function runBinary(): void {
  // An error thrown outside the command's promise (a stream callback) still ends as one line.
  process.on('uncaughtException', (e) => process.exit(reportError(e)));
  dropKafkaJsTimerWarning();
  runCli(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}

// Run from source (tsx src/cli/main.ts) or from tsc's output. The built binary is
// scripts/cli-entry.cjs, which loads the bundle of this file and calls runBinary itself.
if (isEntryPoint()) runBinary();
