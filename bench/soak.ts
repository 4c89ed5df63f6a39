/**
 * @module bench/soak
 * Scenario `soak` (issue 28, streamed schedules): `servelab run --rate 200 --duration 86400` (a
 * 24-hour soak, 17.28 million planned requests) as a user runs it, the real CLI in a child
 * process (under tsx), against a loopback port that resets every connection once it read the
 * request line. Figures:
 * - first request: ms from spawning the CLI to the first completion request reaching the port. The same
 *   CLI's start-up on a 10-request run is printed beside it (node, tsx and the imports, which a
 *   built install does not pay the same way), so the soak's own cost is the difference;
 * - peak RSS (VmHWM) by the first request, and after the soak has sent for a few seconds;
 * - SIGINT to exit, with the soak sending; and with the schedule still being summed (a gamma
 *   schedule of 86.4 million requests: its gaps are summed before the first request, in slices
 *   that let the interrupt in).
 * Targets (the issue's): first request ≤ 2,000 ms, RSS ≤ 300 MB, SIGINT to exit ≤ 1,000 ms.
 * Linux only for RSS (/proc); elsewhere those rows are empty.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { infoRow, logToStderr, type Row, type ScenarioResult, targetRow } from './lib.js';

const ENTRY = fileURLToPath(new URL('../test/helpers/cli-entry.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('..', import.meta.url));

export interface SoakBenchOptions {
  /** How long the soak sends before SIGINT, ms. */
  sendMs: number;
}

/**
 * A loopback port that reads each request's first line and resets the connection; when the
 * first completion request came (the `/tokenize` probes and the model list before it do not count).
 */
async function resettingPort(): Promise<{ server: Server; port: number; firstAt: () => number | null }> {
  let first: number | null = null;
  const server = createServer((s) => {
    s.once('data', (d) => {
      if (/^POST \S*\/(chat\/)?completions /.test(d.toString('latin1'))) first ??= performance.now();
      s.resetAndDestroy();
    });
    s.on('error', () => undefined);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return { server, port, firstAt: () => first };
}

/** Peak and current resident memory of `pid`, MB (null off Linux or once it exited). */
function rssMb(pid: number): { peak: number | null; now: number | null } {
  try {
    const s = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(s)?.[1] ?? Number.NaN) / 1024;
    return { peak: kb('VmHWM'), now: kb('VmRSS') };
  } catch {
    return { peak: null, now: null };
  }
}

function cli(args: string[]): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', ENTRY, ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, LANG: 'C', LC_ALL: '' },
  });
}

const until = async (ok: () => boolean, limitMs: number) => {
  const t0 = performance.now();
  while (!ok() && performance.now() - t0 < limitMs) await new Promise((r) => setTimeout(r, 5));
};

/** SIGINT `p`, and the ms until it exited (null: still alive after 10 s, then killed). */
async function interrupt(p: ChildProcess): Promise<number | null> {
  const exited = new Promise<void>((r) => (p.exitCode !== null ? r() : p.once('exit', () => r())));
  const t0 = performance.now();
  p.kill('SIGINT');
  const late = setTimeout(() => p.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(late);
  const ms = performance.now() - t0;
  return ms < 10_000 ? ms : null;
}

export async function benchSoak(o: SoakBenchOptions): Promise<ScenarioResult> {
  const S = 'soak';
  const dir = mkdtempSync(join(tmpdir(), 'servelab-bench-soak-'));
  const common = ['--model', 'm', '--no-db', '--no-scrape', '--seed', '1'];
  const details: Record<string, unknown> = {};
  try {
    // Start-up alone: a 10-request run's first connection.
    {
      const port = await resettingPort();
      const t0 = performance.now();
      const p = cli(['run', '--url', `http://127.0.0.1:${port.port}/v1`, ...common, '--requests', '10']);
      await until(() => port.firstAt() !== null || p.exitCode !== null, 60_000);
      const first = port.firstAt();
      details.startup_first_request_ms = first === null ? null : first - t0;
      await interrupt(p);
      port.server.close();
    }
    // The soak.
    const port = await resettingPort();
    const t0 = performance.now();
    const p = cli([
      'run',
      '--url',
      `http://127.0.0.1:${port.port}/v1`,
      ...common,
      '--rate',
      '200',
      '--duration',
      '86400',
      '--out',
      join(dir, 'soak'),
    ]);
    let stderr = '';
    p.stderr?.on('data', (d) => (stderr += d));
    await until(() => port.firstAt() !== null || p.exitCode !== null, 60_000);
    const first = port.firstAt();
    details.first_request_ms = first === null ? null : first - t0;
    details.rss_at_first_mb = rssMb(p.pid as number).peak;
    await new Promise((r) => setTimeout(r, o.sendMs));
    details.rss_peak_mb = rssMb(p.pid as number).peak;
    details.sigint_sending_ms = await interrupt(p);
    details.exit_code = p.exitCode;
    if (p.exitCode !== 130) details.stderr_tail = stderr.slice(-2000);
    port.server.close();
    // SIGINT while a long gamma schedule is summed (before its first request).
    const port2 = await resettingPort();
    const q = cli([
      'run',
      '--url',
      `http://127.0.0.1:${port2.port}/v1`,
      ...common,
      '--rate',
      '1000',
      '--duration',
      '86400',
      '--arrival',
      'gamma',
      '--burstiness',
      '0.5',
    ]);
    let qerr = '';
    q.stderr?.on('data', (d) => (qerr += d));
    // The start-up, then a second into the summing.
    await new Promise((r) => setTimeout(r, ((details.startup_first_request_ms as number) ?? 3000) + 1000));
    details.sigint_summing_sent = port2.firstAt() !== null;
    details.sigint_summing_ms = await interrupt(q);
    details.sigint_summing_exit_code = q.exitCode;
    if (q.exitCode !== 130) details.sigint_summing_stderr_tail = qerr.slice(-1000);
    port2.server.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  logToStderr(`soak: ${JSON.stringify(details)}`);
  const c = '--rate 200 --duration 86400';
  const n = (k: string) => (typeof details[k] === 'number' ? (details[k] as number) : null);
  const rows: Row[] = [
    targetRow(
      { scenario: S, case: c, metric: 'first request', value: n('first_request_ms'), unit: 'ms' },
      { max: 2000 },
    ),
    infoRow({
      scenario: S,
      case: '--requests 10',
      metric: 'first request (start-up)',
      value: n('startup_first_request_ms'),
      unit: 'ms',
    }),
    targetRow(
      { scenario: S, case: c, metric: 'peak RSS by first request', value: n('rss_at_first_mb'), unit: 'MB' },
      { max: 300 },
    ),
    targetRow(
      {
        scenario: S,
        case: c,
        metric: `peak RSS after ${o.sendMs / 1000} s`,
        value: n('rss_peak_mb'),
        unit: 'MB',
      },
      { max: 300 },
    ),
    targetRow(
      { scenario: S, case: c, metric: 'SIGINT to exit (sending)', value: n('sigint_sending_ms'), unit: 'ms' },
      { max: 1000 },
    ),
    targetRow(
      {
        scenario: S,
        case: '--rate 1000 gamma 0.5',
        metric: 'SIGINT to exit (summing)',
        value: n('sigint_summing_ms'),
        unit: 'ms',
      },
      { max: 1000 },
    ),
  ];
  const notes: string[] = [];
  if (details.exit_code !== 130) notes.push(`soak: the soak exited ${details.exit_code}, not 130, on SIGINT`);
  if (details.sigint_summing_sent)
    notes.push('soak: the gamma schedule was already summed and sending when interrupted');
  return { name: S, rows, details, notes };
}
