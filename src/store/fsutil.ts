// Small durable-I/O helpers. `fs` is used through its default export so tests can inject faults.
import fs from 'node:fs';
import path from 'node:path';
import { AssignorError, fail } from '../errors.js';

/** fsyncs a directory so a create/rename/unlink in it survives power loss. */
export function fsyncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = fs.openSync(dir, 'r');
    fs.fsyncSync(fd);
  } catch (e) {
    // Some platforms (Windows) cannot open or fsync a directory; there is nothing better to do there.
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'EISDIR' && code !== 'EINVAL' && code !== 'EPERM' && code !== 'EBADF' && code !== 'EACCES') throw e;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/**
 * mkdir -p without `{ recursive: true }`: Node's recursive mkdir loops forever where
 * mkdir keeps failing with ENOENT (a path under /proc), which hung `--store /proc/x`.
 */
export function mkdirs(dir: string): void {
  try {
    fs.mkdirSync(dir);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' && fs.statSync(dir).isDirectory()) return;
    const parent = path.dirname(dir);
    if (code !== 'ENOENT' || parent === dir) throw e;
    mkdirs(parent);
    try {
      fs.mkdirSync(dir);
    } catch (again) {
      if ((again as NodeJS.ErrnoException).code === 'EEXIST' && fs.statSync(dir).isDirectory()) return;
      throw again;
    }
  }
}

/** Writes all of `data` at `position`, looping over short writes. */
export function writeFully(fd: number, data: Buffer, position: number): void {
  let done = 0;
  while (done < data.length) {
    const n = fs.writeSync(fd, data, done, data.length - done, position + done);
    if (n <= 0) throw Object.assign(new Error('write made no progress'), { code: 'EIO' });
    done += n;
  }
}

/** Reads the whole file behind `fd`. */
export function readFully(fd: number): Buffer {
  const size = fs.fstatSync(fd).size;
  // Not zero-filled (a 100 MB log would be written twice): only the bytes read are ever returned.
  const buf = Buffer.allocUnsafeSlow(size);
  let done = 0;
  while (done < size) {
    const n = fs.readSync(fd, buf, done, size - done, done);
    if (n === 0) return buf.subarray(0, done); // shrank underneath us
    done += n;
  }
  return buf;
}

/** Creates `file` (which must not exist) holding `chunks`, fsync'd, then closes it. */
export function writeNewFile(file: string, chunks: readonly Buffer[]): void {
  const fd = fs.openSync(file, 'wx');
  try {
    let pos = 0;
    for (const c of chunks) {
      writeFully(fd, c, pos);
      pos += c.length;
    }
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

export function unlinkQuietly(file: string): void {
  try {
    fs.unlinkSync(file);
  } catch {
    // already gone, or not ours to remove: either way nothing to do
  }
}

/** Rethrows anything that is not already an AssignorError as E_STORE_IO naming `what` and `file`. */
export function ioError(e: unknown, what: string, file: string): never {
  if (e instanceof AssignorError) throw e;
  const err = e as NodeJS.ErrnoException;
  fail('E_STORE_IO', `${what} ${file} failed: ${err.code ?? ''}${err.code ? ' ' : ''}${err.message ?? String(e)}`, file);
}
