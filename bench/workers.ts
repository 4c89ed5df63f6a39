/**
 * @module bench/workers
 * Scenario 6: `servelab run --workers W` (issue 14, "one machine first") against the fast
 * loopback SSE server (`bench/sse-server.ts`, its own process), for W = 1, 2 and one per core.
 * Each case is the real CLI in a child process, as a user runs it: W shard children, the ready
 * handshake, the common start and the exact merge. Figures, from the merged report.json:
 * - chunks/s received: token chunks of the measured requests / the merged window;
 * - client CPU per chunk: the shards' CPU over their measured windows (`client.cpu_percent`,
 *   summed over the workers by the merge) / those chunks. It leaves out each child's start-up
 *   (node, tsx, imports), which is not part of the load;
 * - start spread: the latest shard's first dispatch less the earliest's (merge's
 *   `start_spread_ms`); the target is 10 ms.
 * The server is one Node process: on a machine with few cores it shares them with the workers,
 * so chunks/s can be the server's limit, and the CPU per chunk is the comparable figure.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RequestRecord } from '../src/record/types.js';
import { infoRow, logToStderr, type Row, type ScenarioResult, startChild, targetRow } from './lib.js';

export interface WorkersBenchOptions {
  /** Worker counts to run (duplicates dropped), e.g. [1, 2, cores]. */
  workers: number[];
  /** Streams in flight (the closed loop's concurrency). */
  concurrency: number;
  /** Requests in all. */
  requests: number;
  /** Token chunks per stream (`--output-len`). */
  chunks: number;
  /** Gap between a stream's chunks on the server, ms. */
  intervalMs: number;
}

interface WorkersRun {
  workers: number;
  succeeded: number;
  failed: number;
  chunks: number;
  window_ms: number;
  chunks_per_s: number | null;
  client_cpu_percent: number | null;
  client_cpu_us_per_chunk: number | null;
  start_spread_ms: number | null;
  wall_ms: number;
}

const MAIN = fileURLToPath(new URL('../src/cli/main.ts', import.meta.url));

/** `servelab run …` as a child process under tsx; resolves with its exit code and stderr. */
function cli(args: string[]): Promise<{ code: number; stderr: string }> {
  const code = `import(${JSON.stringify(MAIN)}).then((m) => m.main(process.argv.slice(1))).then((c) => { process.exitCode = c; })`;
  return new Promise((resolve) =>
    execFile(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', code, '--', ...args],
      { timeout: 300_000, maxBuffer: 16 << 20 },
      (err, _out, stderr) =>
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stderr: String(stderr) }),
    ),
  );
}

async function runOnce(port: number, w: number, o: WorkersBenchOptions, dir: string): Promise<WorkersRun> {
  const out = join(dir, `w${w}`);
  const t0 = Date.now();
  const r = await cli([
    'run',
    ...[
      '--url',
      `http://127.0.0.1:${port}/v1`,
      '--model',
      'bench',
      '--prompt',
      `interval_ms=${o.intervalMs}`,
    ],
    ...['--output-len', String(o.chunks), '--requests', String(o.requests)],
    ...['--concurrency', String(o.concurrency), '--workers', String(w)],
    ...['--no-db', '--no-scrape', '--out', out],
  ]);
  const wall = Date.now() - t0;
  if (r.code !== 0 && r.code !== 3)
    throw new Error(`run --workers ${w} exited ${r.code}: ${r.stderr.trim()}`);
  const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8'));
  const records = readFileSync(join(out, 'requests.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as RequestRecord)
    .filter((x) => x.phase === 'measure');
  const chunks = records.reduce((n, x) => n + x.chunk_times_ms.length, 0);
  const windowMs = report.window.end_ms - report.window.start_ms;
  const cpu = report.summary.client.cpu_percent as number | null;
  // Single process: no merge block; its own start is the only one.
  const spread = report.merge ? (report.merge.start_spread_ms as number | null) : null;
  return {
    workers: w,
    succeeded: report.summary.requests.succeeded,
    failed: report.summary.requests.failed,
    chunks,
    window_ms: windowMs,
    chunks_per_s: windowMs > 0 ? chunks / (windowMs / 1000) : null,
    client_cpu_percent: cpu,
    client_cpu_us_per_chunk: cpu !== null && chunks > 0 ? ((cpu / 100) * windowMs * 1000) / chunks : null,
    start_spread_ms: spread,
    wall_ms: wall,
  };
}

export async function benchWorkers(o: WorkersBenchOptions): Promise<ScenarioResult> {
  const counts = [...new Set(o.workers)].sort((a, b) => a - b);
  const { child, ready } = await startChild<{ port: number }>('./sse-server.ts', [], 'port');
  const dir = mkdtempSync(join(tmpdir(), 'servelab-bench-workers-'));
  const runs: WorkersRun[] = [];
  try {
    for (const w of counts) {
      const r = await runOnce(ready.port, w, o, dir);
      runs.push(r);
      logToStderr(
        `  workers ${w}: ${r.chunks_per_s?.toFixed(0)} chunks/s, ${r.client_cpu_us_per_chunk?.toFixed(1)} µs CPU/chunk, spread ${r.start_spread_ms?.toFixed(2) ?? '-'} ms, ${r.failed} failed`,
      );
    }
  } finally {
    await child.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  const S = 'workers';
  const rows: Row[] = [];
  for (const r of runs) {
    const c = `--workers ${r.workers} c${o.concurrency}×${o.chunks} chunks`;
    const figures: [string, number | null, string][] = [
      ['failed requests', r.failed, 'requests'],
      ['chunks/s received', r.chunks_per_s, '1/s'],
      ['client CPU/chunk', r.client_cpu_us_per_chunk, 'µs'],
      ['client CPU', r.client_cpu_percent, '% core'],
    ];
    for (const [metric, value, unit] of figures)
      rows.push(infoRow({ scenario: S, case: c, metric, value, unit }));
    if (r.workers > 1)
      rows.push(
        targetRow(
          { scenario: S, case: c, metric: 'start spread', value: r.start_spread_ms, unit: 'ms' },
          { max: 10 },
        ),
      );
  }
  return {
    name: S,
    rows,
    details: { options: o, cores: availableParallelism(), runs },
    notes: runs.some((r) => r.failed > 0)
      ? [`workers: some requests failed (${runs.map((r) => r.failed).join(', ')})`]
      : [],
  };
}
