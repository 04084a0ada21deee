#!/usr/bin/env node
// `assignor <command> ...`: one file per command in this folder. Every
// AssignorError becomes one line on stderr and exit code 2; anything else is a
// bug and is reported as such (still one line, exit 70).
import { AssignorError, EXIT_BAD_INPUT } from '../errors.js';

type Command = (argv: string[]) => Promise<number> | number;

const COMMANDS: Record<string, { summary: string; load: () => Promise<Command> }> = {
  hash: { summary: 'key -> partition, Kafka murmur2 (keys from --key or stdin)', load: async () => (await import('./hash.js')).run },
  samza: { summary: 'Samza job models with partition expansion (plan, expansion, watch, import, export)', load: async () => (await import('./samza.js')).run },
  channels: { summary: 'partition sets for parallel consumer channels (plan, validate, expand)', load: async () => (await import('./channels.js')).run },
  standby: { summary: 'rack-aware standby placement (KIP-708)', load: async () => (await import('./standby.js')).run },
  store: { summary: 'look after a coordinator store (inspect, compact, export)', load: async () => (await import('./store.js')).run },
};

export const USAGE = `usage: assignor <command> [options]

commands:
${Object.entries(COMMANDS)
  .map(([name, c]) => `  ${name.padEnd(10)}${c.summary}`)
  .join('\n')}

Run \`assignor <command> --help\` for a command's options.`;

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return name === undefined ? EXIT_BAD_INPUT : 0;
  }
  if (!Object.hasOwn(COMMANDS, name)) throw new AssignorError('E_USAGE', `unknown command ${JSON.stringify(name)}; commands: ${Object.keys(COMMANDS).join(', ')}`);
  return (await COMMANDS[name]!.load())(rest);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    if (e instanceof AssignorError) {
      process.stderr.write(`assignor: ${e.oneLine()}\n`);
      process.exitCode = EXIT_BAD_INPUT;
    } else {
      const err = e as Error;
      process.stderr.write(`assignor: internal error: ${err?.message ?? String(e)}\n`);
      if (process.env.ASSIGNOR_DEBUG) process.stderr.write(`${err?.stack}\n`);
      process.exitCode = 70;
    }
  },
);
