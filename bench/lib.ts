/**
 * @module bench/lib
 * Shared pieces of the benchmark suite: child processes that talk over IPC, the offset between
 * a {@link Clock} and CLOCK_MONOTONIC, CPU and event-loop meters, percentile summaries, and the
 * result rows every scenario returns. Benchmarks measure and print; they never assert.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { type IntervalHistogram, monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { describe } from '../src/analysis/stats.js';
import type { Clock } from '../src/runtime/clock.js';

/** One printed figure. `pass` is null when the figure has no target. */
export interface Row {
  scenario: string;
  case: string;
  metric: string;
  value: number | null;
  unit: string;
  /** Human-readable target, e.g. `≤ 20`. */
  target: string | null;
  pass: boolean | null;
  /** The goal behind `target`, kept so a median over repeats can be re-judged. */
  goal?: Goal;
}

/** A target: value ≤ max, value < below, or value ≥ min. */
export type Goal = { max: number } | { below: number } | { min: number };

/** What a scenario hands back: rows for the table, details for `--json`, notes for the reader. */
export interface ScenarioResult {
  name: string;
  rows: Row[];
  details: Record<string, unknown>;
  notes: string[];
}

/** min/p50/p99/max (and n) of a sample list; nulls when empty. */
export interface Pcts {
  n: number;
  min: number | null;
  p50: number | null;
  p99: number | null;
  max: number | null;
}

/** Summarise samples (any order). */
export function pcts(values: readonly number[]): Pcts {
  const s = describe(values);
  return { n: s.n, min: s.min, p50: s.p50, p99: s.p99, max: s.max };
}

/** CLOCK_MONOTONIC in ms: the reference every process on the machine shares. */
export function hrtimeMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

/**
 * Offset to add to `clock.now()` to get CLOCK_MONOTONIC ms. Both are monotonic, so the offset is
 * fixed; it is read as the midpoint of the tightest of 50 hrtime/now/hrtime brackets (µs error).
 */
export function clockOffsetMs(clock: Clock): number {
  let best = Number.POSITIVE_INFINITY;
  let offset = 0;
  for (let i = 0; i < 50; i++) {
    const a = hrtimeMs();
    const c = clock.now();
    const b = hrtimeMs();
    if (b - a < best) {
      best = b - a;
      offset = (a + b) / 2 - c;
    }
  }
  return offset;
}

/** A TypeScript child process with an IPC channel. */
export interface Child {
  proc: ChildProcess;
  /** Send `msg` and wait for the first reply that has key `key`. */
  ask<T>(msg: unknown, key: string, timeoutMs?: number): Promise<T>;
  /** Ask it to exit and wait (killed after 3 s). */
  stop(): Promise<void>;
}

/** Wait for the next IPC message with key `key`. */
function nextMessage<T>(proc: ChildProcess, key: string, timeoutMs: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onMsg = (m: unknown) => {
      if (m && typeof m === 'object' && key in m) {
        cleanup();
        resolve(m as T);
      }
    };
    const onExit = (code: number | null) => {
      cleanup();
      reject(new Error(`bench child exited (code ${code}) before sending "${key}"`));
    };
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`bench child sent no "${key}" within ${timeoutMs} ms`));
    }, timeoutMs);
    const cleanup = () => {
      clearTimeout(timer);
      proc.off('message', onMsg);
      proc.off('exit', onExit);
    };
    proc.on('message', onMsg);
    proc.on('exit', onExit);
  });
}

/**
 * Start `bench/<file>` under tsx and wait for its first message carrying `readyKey`.
 * @returns the child and that first message
 */
export async function startChild<T>(
  file: string,
  args: string[],
  readyKey: string,
): Promise<{ child: Child; ready: T }> {
  const path = fileURLToPath(new URL(file, import.meta.url));
  // SL_BENCH_CHILD_NODE_ARGS: extra node flags for the child, e.g. `--cpu-prof --cpu-prof-dir=DIR`
  // to profile the server under the benchmark's load (docs/bench.md).
  const extra = process.env.SL_BENCH_CHILD_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const proc = fork(path, args, {
    execArgv: ['--import', 'tsx', ...extra],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const child: Child = {
    proc,
    ask<R>(msg: unknown, key: string, timeoutMs = 30_000) {
      const p = nextMessage<R>(proc, key, timeoutMs);
      proc.send(msg as object);
      return p;
    },
    async stop() {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      const exited = new Promise<void>((r) => proc.once('exit', () => r()));
      const kill = setTimeout(() => proc.kill('SIGKILL'), 3_000);
      if (proc.connected) proc.send({ cmd: 'exit' });
      else proc.kill('SIGTERM');
      await exited;
      clearTimeout(kill);
    },
  };
  const ready = await nextMessage<T>(proc, readyKey, 60_000);
  return { child, ready };
}

/** Process CPU (user + system) in µs since construction. */
export class CpuMeter {
  private readonly start = process.cpuUsage();
  /** µs of CPU since construction. */
  usedUs(): number {
    const d = process.cpuUsage(this.start);
    return d.user + d.system;
  }
}

/** Busy and total CPU ticks of the whole machine (Linux `/proc/stat`), or null elsewhere. */
function machineTicks(): { busy: number; total: number } | null {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0];
    const f = line.trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal: idle and iowait are not busy
    const total = f.slice(0, 8).reduce((a, b) => a + b, 0);
    return { busy: total - f[3] - (f[4] ?? 0), total };
  } catch {
    return null;
  }
}

/**
 * Whole-machine CPU use over a span, in cores busy (0 … core count). The share of it that is not
 * ours tells how much a neighbour took: on a shared 2-core box that, not our code, is usually
 * what moves the latency tails.
 */
export class MachineMeter {
  private readonly start = machineTicks();
  /** Cores busy on average since construction, or null where /proc/stat is missing. */
  busyCores(cores: number): number | null {
    const end = machineTicks();
    if (!this.start || !end || end.total === this.start.total) return null;
    return ((end.busy - this.start.busy) / (end.total - this.start.total)) * cores;
  }
}

/**
 * Event-loop delay over a span, in ms. Node's histogram records the whole interval between its
 * timer's callbacks, resolution included, so the resolution is subtracted (as runner/health does).
 */
export class LoopDelay {
  private readonly h: IntervalHistogram;
  constructor(private readonly resolutionMs = 5) {
    this.h = monitorEventLoopDelay({ resolution: resolutionMs });
    this.h.enable();
  }
  /** Stop and return p50/p99/max in ms (nulls when nothing was sampled). */
  stop(): { p50_ms: number | null; p99_ms: number | null; max_ms: number | null } {
    this.h.disable();
    if (this.h.count === 0) return { p50_ms: null, p99_ms: null, max_ms: null };
    return {
      p50_ms: Math.max(0, this.h.percentile(50) / 1e6 - this.resolutionMs),
      p99_ms: Math.max(0, this.h.percentile(99) / 1e6 - this.resolutionMs),
      max_ms: Math.max(0, this.h.max / 1e6 - this.resolutionMs),
    };
  }
}

/** A row with a target; a missing value fails it. */
export function targetRow(base: Omit<Row, 'target' | 'pass' | 'goal'>, goal: Goal): Row {
  const v = base.value;
  const known = v !== null && Number.isFinite(v);
  if ('max' in goal) return { ...base, goal, target: `≤ ${goal.max}`, pass: known && v <= goal.max };
  if ('below' in goal) return { ...base, goal, target: `< ${goal.below}`, pass: known && v < goal.below };
  return { ...base, goal, target: `≥ ${goal.min}`, pass: known && v >= goal.min };
}

/**
 * One row per (scenario, case, metric) holding the median value over repeated runs (the upper
 * median for an even count, so a tie never flatters a latency), re-judged against its goal.
 */
export function medianRows(runs: readonly (readonly Row[])[]): Row[] {
  const groups = new Map<string, Row[]>();
  for (const rows of runs)
    for (const r of rows) {
      const key = `${r.scenario}\u0000${r.case}\u0000${r.metric}`;
      const g = groups.get(key);
      if (g) g.push(r);
      else groups.set(key, [r]);
    }
  const out: Row[] = [];
  for (const g of groups.values()) {
    const vals = g
      .map((r) => r.value)
      .filter((v): v is number => v !== null && Number.isFinite(v))
      .sort((a, b) => a - b);
    const value = vals.length ? vals[Math.floor(vals.length / 2)] : null;
    const { target: _t, pass: _p, goal, ...base } = g[0];
    out.push(goal ? targetRow({ ...base, value }, goal) : infoRow({ ...base, value }));
  }
  return out;
}

/** A row without a target. */
export function infoRow(base: Omit<Row, 'target' | 'pass' | 'goal'>): Row {
  return { ...base, target: null, pass: null };
}

/** Format a figure: whole numbers and values ≥ 1000 without decimals, smaller ones with 1–3. */
export function fmt(v: number | null): string {
  if (v === null || !Number.isFinite(v)) return '–';
  const a = Math.abs(v);
  if (Number.isInteger(v) || a >= 1000) return Math.round(v).toLocaleString('en-US');
  if (a >= 100) return v.toFixed(1);
  if (a >= 10) return v.toFixed(2);
  return v.toFixed(3);
}

/** The rows as an aligned text table. */
export function renderTable(rows: readonly Row[]): string {
  const head = ['scenario', 'case', 'metric', 'value', 'unit', 'target', 'status'];
  const body = rows.map((r) => [
    r.scenario,
    r.case,
    r.metric,
    fmt(r.value),
    r.unit,
    r.target ?? '',
    r.pass === null ? '' : r.pass ? 'ok' : 'MISSED',
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === 3 ? c.padStart(widths[i]) : c.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)].join('\n');
}

/** Resolve after `ms` on the given clock. */
export function sleep(clock: Clock, ms: number): Promise<void> {
  return clock.sleepUntil(clock.now() + ms);
}

/** Default progress sink: one line to stderr (stdout carries the table). */
export function logToStderr(line: string): void {
  process.stderr.write(`${line}\n`);
}
