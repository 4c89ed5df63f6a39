/**
 * @module bench/trace
 * Scenario `trace`: a 100k-request Azure-format trace parsed and scheduled. The trace is written
 * first (by the fixtures script's generator: Poisson arrivals, ~28 req/s, about an hour), then a
 * fresh child process reads it, parses it (`parseTrace`, format detected), applies the window
 * and computes the replay offsets (`traceOffsetsMs`), and reports the wall time of those steps
 * and its peak resident memory (`process.resourceUsage().maxRSS`, the whole child: Node itself
 * is ~50 MB of it). Prompt text is not generated here: that is the workload's per-request cost
 * (token-exact fitting), the same for every source.
 *
 *   node --import tsx bench/trace.ts FILE   # the child: one JSON line
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { syntheticAzureCsv } from '../scripts/make-trace-fixtures.js';
import { traceOffsetsMs } from '../src/schedule/arrivals.js';
import { parseTrace, windowTrace } from '../src/workload/traces/index.js';
import { infoRow, type ScenarioResult, targetRow } from './lib.js';

interface ChildFigures {
  requests: number;
  bytes: number;
  parse_ms: number;
  schedule_ms: number;
  total_ms: number;
  max_rss_mb: number;
  last_offset_s: number;
}

/** The child: parse and schedule FILE, print the figures. */
function child(file: string): void {
  const t0 = performance.now();
  const text = readFileSync(file, 'utf8');
  const parsed = parseTrace(text, file);
  if (parsed.problems.length) throw new Error(parsed.problems[0].message);
  const t1 = performance.now();
  const w = windowTrace(parsed.entries, null);
  const offsets = traceOffsetsMs(w.entries, { originMs: w.originMs });
  const t2 = performance.now();
  const figures: ChildFigures = {
    requests: offsets.length,
    bytes: text.length,
    parse_ms: t1 - t0,
    schedule_ms: t2 - t1,
    total_ms: t2 - t0,
    max_rss_mb: process.resourceUsage().maxRSS / 1024,
    last_offset_s: offsets[offsets.length - 1] / 1000,
  };
  process.stdout.write(`${JSON.stringify(figures)}\n`);
}

/** Scenario `trace`: write the trace, run the child, report its figures against the targets. */
export async function benchTrace(opts: { requests: number }): Promise<ScenarioResult> {
  const dir = mkdtempSync(join(tmpdir(), 'servelab-bench-trace-'));
  try {
    const file = join(dir, 'azure.csv');
    writeFileSync(file, syntheticAzureCsv(opts.requests, 28));
    const path = fileURLToPath(import.meta.url);
    const stdout = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, ['--import', 'tsx', path, file], { timeout: 120_000 }, (err, out) =>
        err ? reject(err) : resolve(out),
      ),
    );
    const r = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as ChildFigures;
    const S = 'trace';
    const c = `Azure CSV ×${r.requests} (${(r.bytes / 1e6).toFixed(1)} MB, ${Math.round(r.last_offset_s)} s)`;
    return {
      name: S,
      rows: [
        targetRow(
          { scenario: S, case: c, metric: 'parse + schedule', value: r.total_ms / 1000, unit: 's' },
          { below: 3 },
        ),
        targetRow(
          { scenario: S, case: c, metric: 'peak memory (RSS)', value: r.max_rss_mb, unit: 'MB' },
          { below: 300 },
        ),
        infoRow({ scenario: S, case: c, metric: 'parse', value: r.parse_ms, unit: 'ms' }),
        infoRow({ scenario: S, case: c, metric: 'schedule', value: r.schedule_ms, unit: 'ms' }),
      ],
      details: { ...r },
      notes: [],
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.filename === process.argv[1]) child(process.argv[2]);
