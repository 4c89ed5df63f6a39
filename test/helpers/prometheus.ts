/**
 * @module test/helpers/prometheus
 * Runs Debian's real `prometheus` binary for integration tests: a temp config and data dir,
 * `--web.listen-address 127.0.0.1:0` (Prometheus ≥ 2.42 logs the port it bound), readiness
 * wait, `/api/v1/query`, and stop. Also the skip-or-fail rule for system tools: a missing tool
 * skips with an install hint on a developer's machine and fails under `CI=true`, where
 * `.ci/run` installs it and a silent skip would hide a broken check.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

/** Absolute path of `name` on PATH, or null. */
export function which(name: string): string | null {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const p = join(dir, name);
    try {
      accessSync(p, constants.X_OK);
      return p;
    } catch {
      // keep looking
    }
  }
  return null;
}

/**
 * For `it(name, { skip: toolSkip('promtool') }, …)`: a skip message with the install hint when
 * the tool is missing, false when present. Under `CI=true` it never skips, so the test runs and
 * fails on the missing tool (call {@link requireTool} first thing in the test).
 */
export function toolSkip(name: string, hint = 'apt-get install prometheus'): string | false {
  if (which(name) || process.env.CI === 'true') return false;
  return `${name} is not installed; ${hint}`;
}

/** Throws a clear error when `name` is missing (reached only under CI=true, see {@link toolSkip}). */
export function requireTool(name: string, hint = 'apt-get install prometheus'): string {
  const p = which(name);
  if (!p) throw new Error(`${name} is not installed and CI=true requires it; ${hint}`);
  return p;
}

/** One instant-query result from `/api/v1/query`. */
export interface PromVector {
  metric: Record<string, string>;
  value: [number, string];
}

export interface PrometheusHandle {
  /** `http://127.0.0.1:PORT` */
  url: string;
  port: number;
  /** Run an instant query; rejects when Prometheus answers with an error. */
  query(promql: string): Promise<PromVector[]>;
  /** Poll `query` until `ok(result)` holds, or reject after `timeoutMs` with the last result. */
  waitFor(promql: string, ok: (r: PromVector[]) => boolean, timeoutMs?: number): Promise<PromVector[]>;
  /** Everything Prometheus logged so far (for failure messages). */
  log(): string;
  stop(): Promise<void>;
}

/**
 * Start Prometheus with `configYaml` (written to a temp file). Resolves once `/-/ready` answers
 * 200. Rejects with Prometheus's log when it exits or does not become ready within `startTimeoutMs`.
 */
export async function startPrometheus(
  configYaml: string,
  startTimeoutMs = 30_000,
): Promise<PrometheusHandle> {
  const bin = requireTool('prometheus');
  const dir = mkdtempSync(join(tmpdir(), 'servelab-prom-'));
  const config = join(dir, 'prometheus.yml');
  writeFileSync(config, configYaml);
  const child: ChildProcess = spawn(
    bin,
    [
      `--config.file=${config}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      '--web.listen-address=127.0.0.1:0',
      '--log.level=info',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let logText = '';
  let exited = false;
  const exitPromise = new Promise<void>((r) =>
    child.once('exit', () => {
      exited = true;
      r();
    }),
  );
  const cleanup = async () => {
    if (!exited) {
      child.kill('SIGTERM');
      await exitPromise;
    }
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    const port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`prometheus did not log its port:\n${logText}`)),
        startTimeoutMs,
      );
      const onData = (chunk: Buffer) => {
        logText += chunk.toString('utf8');
        const m = /msg="Listening on" address=\S*:(\d+)/.exec(logText);
        if (m) {
          clearTimeout(timer);
          resolve(Number(m[1]));
        }
      };
      child.stdout?.on('data', onData);
      child.stderr?.on('data', onData);
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`prometheus exited with ${code}:\n${logText}`));
      });
    });
    const url = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + startTimeoutMs;
    for (;;) {
      const r = await httpGet(`${url}/-/ready`).catch(() => null);
      if (r?.status === 200) break;
      if (exited || Date.now() > deadline) throw new Error(`prometheus never became ready:\n${logText}`);
      await sleep(100);
    }

    const query = async (promql: string): Promise<PromVector[]> => {
      const r = await httpGet(`${url}/api/v1/query?query=${encodeURIComponent(promql)}`);
      const body = JSON.parse(r.body) as { status: string; error?: string; data?: { result: PromVector[] } };
      if (body.status !== 'success') throw new Error(`query ${promql} failed: ${body.error ?? r.body}`);
      return body.data?.result ?? [];
    };
    return {
      url,
      port,
      query,
      log: () => logText,
      async waitFor(promql, ok, timeoutMs = 20_000) {
        const end = Date.now() + timeoutMs;
        let last: PromVector[] = [];
        for (;;) {
          last = await query(promql);
          if (ok(last)) return last;
          if (Date.now() > end)
            throw new Error(
              `timed out waiting for ${promql}; last result ${JSON.stringify(last)}\n${logText}`,
            );
          await sleep(250);
        }
      },
      stop: cleanup,
    };
  } catch (err) {
    await cleanup();
    throw err;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

function httpGet(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        body += c;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}
