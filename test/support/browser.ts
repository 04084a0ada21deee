// Runs a page in a real headless browser and returns what it reports: the page is served on
// 127.0.0.1 with the given files, and its script POSTs one JSON body to /result (an error event
// posts {"error": ...}). Chromium and Firefox ESR from Debian (`apt-get install chromium
// firefox-esr`); each run gets a new empty profile and is killed once the result is in.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export type Browser = 'chromium' | 'firefox-esr';

/** A script for the page: reports `globalThis.out` once the bundle ran, or the first error. */
export const REPORT_SCRIPT = `<script>
  const report = (body) => fetch('/result', { method: 'POST', body: JSON.stringify(body) });
  window.addEventListener('error', (e) => report({ error: String(e.message) }));
</script>`;

// Firefox as root: its content sandbox cannot start, so it is off (the page is our own, on loopback).
const FIREFOX_PREFS = [
  '"security.sandbox.content.level", 0',
  '"browser.shell.checkDefaultBrowser", false',
  '"app.update.enabled", false',
  '"datareporting.policy.dataSubmissionEnabled", false',
  '"toolkit.telemetry.enabled", false',
  '"network.captive-portal-service.enabled", false',
  '"browser.safebrowsing.update.enabled", false',
].map((p) => `user_pref(${p});`).join('\n');

function command(browser: Browser, url: string, profile: string): { args: string[]; env: NodeJS.ProcessEnv } {
  if (browser === 'chromium') {
    return {
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', `--user-data-dir=${profile}`, url],
      env: process.env,
    };
  }
  writeFileSync(join(profile, 'user.js'), `${FIREFOX_PREFS}\n`);
  const off = { MOZ_DISABLE_CONTENT_SANDBOX: '1', MOZ_DISABLE_RDD_SANDBOX: '1', MOZ_DISABLE_SOCKET_PROCESS_SANDBOX: '1', MOZ_DISABLE_GMP_SANDBOX: '1' };
  return { args: ['--headless', '--no-remote', '--profile', profile, url], env: { ...process.env, ...off } };
}

/** Serves `files` (name -> content; `index.html` is the page), opens it in `browser`, returns the POSTed JSON. */
export async function runPage(browser: Browser, files: Record<string, string>, timeoutMs = 90_000): Promise<unknown> {
  const profile = mkdtempSync(join(tmpdir(), `assignor-${browser}-`));
  let child: ReturnType<typeof spawn> | undefined;
  const server = createServer();
  try {
    return await new Promise<unknown>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${browser} reported nothing within ${timeoutMs} ms`)), timeoutMs);
      server.on('request', (req, res) => {
        if (req.method === 'POST' && req.url === '/result') {
          let body = '';
          req.on('data', (d: Buffer) => (body += d.toString('utf8')));
          req.on('end', () => {
            res.end('ok');
            clearTimeout(timer);
            try {
              resolve(JSON.parse(body));
            } catch (e) {
              reject(e as Error);
            }
          });
          return;
        }
        const name = (req.url ?? '/').slice(1) || 'index.html';
        const content = files[name];
        if (content === undefined) {
          res.statusCode = 404;
          res.end();
          return;
        }
        res.setHeader('content-type', name.endsWith('.html') ? 'text/html; charset=utf-8' : 'text/javascript; charset=utf-8');
        res.end(content);
      });
      server.listen(0, '127.0.0.1', () => {
        const { port } = server.address() as { port: number };
        const { args, env } = command(browser, `http://127.0.0.1:${port}/`, profile);
        // Its own process group, so that the kill below reaches the browser's helper processes too.
        child = spawn(browser, args, { env, stdio: 'ignore', detached: true });
        child.on('error', (e) => reject(e));
      });
    });
  } finally {
    if (child?.pid !== undefined) {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    server.close();
    // A helper process can still be writing the cache for a moment: ENOTEMPTY is retried.
    rmSync(profile, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 });
  }
}
