/**
 * @module analysis/diagnose/rules/ab-pairs
 * The A/B pairs the precision and tensor-parallel rules compare: runs at the same load level
 * that differ in one key, pooled per side, with their throughput loss and evidence lines.
 */
import type { T } from '../../../i18n/index.js';
import type { LoadedRun } from '../../loaded-run.js';
import { mean } from '../../stats.js';
import { fmt } from './shared.js';

/** Weight precision of a run: record precision.weights, else config dtype/quantization. */
export function precisionOf(run: LoadedRun): string | null {
  const v = run.record?.precision?.value?.weights ?? run.config.dtype ?? run.config.quantization;
  return typeof v === 'string' ? v.toLowerCase() : null;
}

/** Tensor-parallel size: config tp, else the record's device count. */
export function tpOf(run: LoadedRun): number | null {
  const v = run.config.tp ?? run.config.tensor_parallel_size ?? run.record?.device?.value?.count;
  return typeof v === 'number' ? v : null;
}

/**
 * The load level a run compares at: its level without the A/B bookkeeping (`side`, `block`), so
 * the blocks of one A/B side pool together and meet the other side's at the same level.
 */
export const levelKey = (r: LoadedRun): string =>
  JSON.stringify(
    Object.entries((r.level ?? {}) as Record<string, unknown>)
      .filter(([k, v]) => k !== 'side' && k !== 'block' && v != null)
      .sort(([x], [y]) => (x < y ? -1 : 1)),
  );

/** Runs that share a level and a value of the compared key (one A/B side, or one run). */
export interface Side<T> {
  key: T;
  runs: LoadedRun[];
}

/**
 * Pairs of sides at the same level where `key` differs and both are known. Runs with the same
 * key at the same level are pooled (an A/B experiment measures each side in several blocks),
 * so one switch gives one pair, not one per combination of blocks.
 */
export function pairs<T>(runs: readonly LoadedRun[], key: (r: LoadedRun) => T | null): [Side<T>, Side<T>][] {
  const byLevel = new Map<string, Side<T>[]>();
  for (const r of runs) {
    const k = key(r);
    if (k === null) continue;
    const lk = levelKey(r);
    const sides = byLevel.get(lk) ?? [];
    const side = sides.find((x) => x.key === k);
    if (side) side.runs.push(r);
    else sides.push({ key: k, runs: [r] });
    byLevel.set(lk, sides);
  }
  const out: [Side<T>, Side<T>][] = [];
  for (const sides of byLevel.values())
    for (let i = 0; i < sides.length; i++)
      for (let j = i + 1; j < sides.length; j++) out.push([sides[i], sides[j]]);
  return out;
}

/** Mean over a side's runs of a summary number (null when no run has it). */
export function sideMean(side: Side<unknown>, get: (r: LoadedRun) => number | null): number | null {
  return mean(side.runs.map(get).filter((v): v is number => v !== null));
}

export const tokS = (r: LoadedRun) => r.summary.output_throughput_tok_s;

/** Relative throughput loss of `slow` against `fast` (positive = slower), or null. */
export function loss(slow: Side<unknown>, fast: Side<unknown>): number | null {
  const a = sideMean(slow, tokS);
  const b = sideMean(fast, tokS);
  return a === null || b === null || b <= 0 ? null : 1 - a / b;
}

export const sideIds = (x: Side<unknown>) => x.runs.map((r) => r.id);

export const abEvidence = (t: T, x: Side<unknown>, y: Side<unknown>, what: (r: LoadedRun) => string) => {
  const line = (s: Side<unknown>) => {
    const one = s.runs.length === 1;
    return t(one ? 'diagnose.ab.line' : 'diagnose.ab.line_mean', {
      name: one ? s.runs[0].label : t('diagnose.ab.side_runs', { what: what(s.runs[0]), n: s.runs.length }),
      what: what(s.runs[0]),
      tok: fmt(sideMean(s, tokS), 0),
      tpot: fmt(
        sideMean(s, (r) => r.summary.tpot_ms.p50),
        2,
      ),
      ttft: fmt(sideMean(s, (r) => r.summary.ttft_ms.p50)),
    });
  };
  const l = x.runs[0].level;
  return [
    line(x),
    line(y),
    l?.concurrency != null
      ? t('diagnose.ab.level_concurrency', { c: l.concurrency })
      : l?.rate_rps != null
        ? t('diagnose.ab.level_rate', { r: l.rate_rps })
        : t('diagnose.ab.level_unspecified'),
  ];
};
