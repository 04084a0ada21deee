// Runs assignor command lines in this one process for test/cli/fuzz.test.ts, so
// hundreds of cases cost one node start instead of one each. It calls runCli,
// the same function the binary calls, with stdout and stderr captured; stdin is
// /dev/null (the parent runs its stdin cases as real processes). One message in,
// one message out per case; the parent enforces the time limit by killing us.
import { fstatSync, statSync } from 'node:fs';
import { runCli } from '../../dist/cli/main.js';

const STDOUT_KEEP = 1 << 16; // enough for any help text
const STDERR_KEEP = 1 << 20;
const devNull = statSync('/dev/null').rdev;

let current = null;
const realWrite = { out: process.stdout.write.bind(process.stdout), err: process.stderr.write.bind(process.stderr) };

function capture(which) {
  return (chunk, encoding, cb) => {
    if (current === null) return realWrite[which](chunk, encoding, cb);
    const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    if (which === 'out') {
      current.stdoutBytes += Buffer.byteLength(text);
      if (current.stdoutHead.length < STDOUT_KEEP) current.stdoutHead += text.slice(0, STDOUT_KEEP);
    } else {
      current.stderrBytes += Buffer.byteLength(text);
      if (current.stderr.length < STDERR_KEEP) current.stderr += text.slice(0, STDERR_KEEP);
    }
    const done = typeof encoding === 'function' ? encoding : cb;
    if (typeof done === 'function') queueMicrotask(done);
    return true;
  };
}
process.stdout.write = capture('out');
process.stderr.write = capture('err');
// Each run adds an 'error' listener to stdout (src/cli/output.ts), as the binary
// does once per process; hundreds of runs here would otherwise print a
// MaxListenersExceededWarning into the next case's stderr.
process.stdout.setMaxListeners(0);

// What the binary would die of outside runCli's promise: recorded against the case.
const escaped = (kind) => (e) => {
  if (current !== null) current.escaped.push(`${kind}: ${e?.stack ?? String(e)}`);
};
process.on('uncaughtException', escaped('uncaughtException'));
process.on('unhandledRejection', escaped('unhandledRejection'));

function stdinIsStillDevNull() {
  try {
    const st = fstatSync(0);
    return st.isCharacterDevice() && st.rdev === devNull;
  } catch {
    return false;
  }
}

process.on('message', async ({ id, argv }) => {
  current = { stdoutBytes: 0, stdoutHead: '', stderr: '', stderrBytes: 0, escaped: [] };
  const started = performance.now();
  let code;
  try {
    code = await runCli(argv);
  } catch (e) {
    current.escaped.push(`runCli threw: ${e?.stack ?? String(e)}`);
    code = -1;
  }
  // Let callbacks a command left behind run (and fail) before the case is closed.
  await new Promise((resolve) => setImmediate(resolve));
  const ms = performance.now() - started;
  const result = { id, code, ms, ...current, stdinOk: stdinIsStillDevNull() };
  current = null;
  process.send(result);
});
process.send({ ready: true });
