/**
 * @module analysis/load-curve
 * Runs as load curves: which load axis a set of runs shares (concurrency or rate), which runs
 * form one target's curve, each level's point (throughput, goodput, tails, and the level's
 * verdict), the knee and the SLO they were judged by. The report's load chart draws these
 * points and the diagnosis's throughput rule judges them; both read them from here.
 */
import { throughputKnee } from './knee.js';
import type { LoadedRun } from './loaded-run.js';
import { validityReasons } from './validity.js';

/** One point of a load curve (one run at one level). */
export interface LoadCurvePoint {
  run: string;
  /** Concurrency or rate (rps). */
  x: number;
  output_tok_s: number | null;
  request_rps: number | null;
  goodput_rps: number | null;
  ttft_p95_ms: number | null;
  ttft_p99_ms: number | null;
  e2e_p95_ms: number | null;
  e2e_p99_ms: number | null;
  /** The run's verdict: an invalid level is drawn but left out of the knee, as the experiment does. */
  valid: boolean;
}

/**
 * Which load axis the runs share: concurrency if every run has one, else rate, else null. Runs
 * must stand at two or more levels on it: runs all at one level (repeats, a baseline, an A/B
 * pair) are no curve, and a chart of them would be a column of points at one x.
 */
export function loadAxis(runs: readonly LoadedRun[]): 'concurrency' | 'rate_rps' | null {
  for (const axis of ['concurrency', 'rate_rps'] as const) {
    if (runs.length < 2 || !runs.every((r) => r.level?.[axis] != null)) continue;
    return new Set(runs.map((r) => r.level?.[axis])).size >= 2 ? axis : null;
  }
  return null;
}

/**
 * Which curve a run belongs to: its target (an experiment's target name, or `servelab run`'s
 * URL), model and cell (a matrix's `config.level.cell`: one workload shape). Runs of different
 * targets or cells are different curves: drawn or judged as one, a slow target's (or a long
 * prompt's) levels interleave with a fast one's and the curve zig-zags.
 */
export function curveKey(run: LoadedRun): string {
  return JSON.stringify([curveTarget(run), run.config.model ?? null, runCell(run)]);
}

/** The matrix cell a run measured (`config.level.cell`, written by `exp/kinds/matrix`); null for any other run. */
export function runCell(run: LoadedRun): string | null {
  const level = run.config.level;
  const cell = level !== null && typeof level === 'object' ? (level as { cell?: unknown }).cell : undefined;
  return typeof cell === 'string' ? cell : null;
}

function curveTarget(run: LoadedRun): string | null {
  const t = run.config.target;
  if (typeof t === 'string') return t;
  if (t !== null && typeof t === 'object') return String((t as { url?: unknown }).url ?? JSON.stringify(t));
  return null;
}

/** Runs grouped by {@link curveKey}, in first-seen order, each with a display name. */
export function curvesOf(runs: readonly LoadedRun[]): { name: string; runs: LoadedRun[] }[] {
  const m = new Map<string, { name: string; runs: LoadedRun[] }>();
  for (const r of runs) {
    const k = curveKey(r);
    const c = m.get(k);
    if (c) c.runs.push(r);
    else {
      const name = curveTarget(r) ?? String(r.config.model ?? r.label);
      const cell = runCell(r);
      m.set(k, { name: cell === null ? name : `${name} ${cell}`, runs: [r] });
    }
  }
  return [...m.values()];
}

/** One load curve per target (see {@link curvesOf}); null without runs at ≥ 2 levels of a shared load axis. */
export function loadCurves(
  runs: readonly LoadedRun[],
): { axis: 'concurrency' | 'rate_rps'; curves: { name: string; points: LoadCurvePoint[] }[] } | null {
  const axis = loadAxis(runs);
  if (!axis) return null;
  return {
    axis,
    curves: curvesOf(runs).map((c) => ({ name: c.name, points: pointsOn(c.runs, axis) })),
  };
}

/** Load-curve points sorted by level; null without ≥ 2 runs that share a load axis. */
export function loadPoints(
  runs: readonly LoadedRun[],
): { axis: 'concurrency' | 'rate_rps'; points: LoadCurvePoint[] } | null {
  const axis = loadAxis(runs);
  if (!axis) return null;
  return { axis, points: pointsOn(runs, axis) };
}

function pointsOn(runs: readonly LoadedRun[], axis: 'concurrency' | 'rate_rps'): LoadCurvePoint[] {
  return runs
    .map((r) => ({
      run: r.label,
      x: r.level?.[axis] as number,
      output_tok_s: r.summary.output_throughput_tok_s,
      request_rps: r.summary.request_throughput_rps,
      goodput_rps: r.summary.goodput.rps,
      ttft_p95_ms: r.summary.ttft_ms.p95,
      ttft_p99_ms: r.summary.ttft_ms.p99,
      e2e_p95_ms: r.summary.e2e_ms.p95,
      e2e_p99_ms: r.summary.e2e_ms.p99,
      valid: validityReasons(r).length === 0,
    }))
    .sort((a, b) => a.x - b.x);
}

/**
 * The knee of a load curve: the last level before throughput stops rising (the experiment's
 * rule, {@link throughputKnee}, so the chart marks the level the experiment result names).
 * @param xs ascending load levels
 * @param ys throughput at each level
 * @returns the index of the knee, or null when throughput still rose at the last level
 */
export function findKnee(xs: readonly number[], ys: readonly (number | null)[]): number | null {
  return throughputKnee(
    ys,
    ys.map(() => null),
    xs,
  ).index;
}

/** The SLO the runs were judged by (the first run's that has one), or null. */
export function sloOf(runs: readonly LoadedRun[]): Record<string, number> | null {
  for (const r of runs) {
    const slo = r.summary.goodput?.slo;
    if (slo && Object.keys(slo).length) return slo as Record<string, number>;
  }
  return null;
}
