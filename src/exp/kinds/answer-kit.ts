/**
 * @module exp/kinds/answer-kit
 * Small pieces every kind's `answer` (`report/answer` `ExperimentAnswer`) is built from: one
 * verdict sentence over several targets, the run ids an answer rests on, a number rounded for a
 * table cell, the target column of a table, and the interval a capacity search brackets.
 */
import type { T } from '../../i18n/index.js';
import type { AnswerCell, AnswerInterval } from '../../report/answer.js';

/** A number rounded to `digits` decimals for a table cell; null stays null ("no data"). */
export function cell(v: number | null | undefined, digits = 1): number | null {
  if (v === null || v === undefined || !Number.isFinite(v)) return null;
  const f = 10 ** digits;
  return Math.round(v * f) / f;
}

/** A fraction (0..1) as a percentage cell with one decimal; null stays null. */
export const pctCell = (v: number | null | undefined): number | null =>
  v === null || v === undefined ? null : cell(v * 100, 1);

/** Decimals (one at least, four at most) that write the percentage `target` (0..1) exactly. */
function shareDigits(target: number): number {
  for (let d = 1; d < 4; d++) {
    const x = target * 100 * 10 ** d;
    if (Math.abs(x - Math.round(x)) < 1e-6) return d;
  }
  return 4;
}

/**
 * A share (0..1) judged against a required share `target` (0..1), as a percentage cell cut down
 * (never rounded up) to the decimals that write the target: a level under the target never reads
 * as the target (98.96% against 99% is 98.9, not 99.0), and one that meets it never reads under
 * it. Null stays null.
 */
export function shareCell(v: number | null | undefined, target: number): number | null {
  if (v === null || v === undefined || !Number.isFinite(v)) return null;
  const f = 10 ** shareDigits(target);
  // The small addend keeps a share equal to the target (99/100) from flooring under it.
  return Math.floor(v * 100 * f + 1e-6) / f;
}

/** {@link shareCell} as text, `98.9%`; `-` without data. */
export function shareText(v: number | null | undefined, target: number): string {
  const c = shareCell(v, target);
  return c === null ? '-' : `${c.toFixed(shareDigits(target))}%`;
}

/** The store ids of the runs an answer rests on: each once, in order, without the missing ones. */
export function runIdsOf(ids: readonly (string | null | undefined)[]): string[] {
  return [...new Set(ids.filter((id): id is string => typeof id === 'string' && id.length > 0))];
}

/**
 * One verdict sentence from each target's clause: the clause alone for one target, else each
 * clause named by its target and joined with `; `.
 */
export function joinVerdict(parts: readonly { target: string; text: string }[], tr: T): string {
  if (parts.length === 1) return parts[0].text;
  return parts.map((p) => tr('answer.target_clause', { target: p.target, text: p.text })).join('; ');
}

/** The table's leading target column (translated header), only when there are several targets. */
export function withTarget(
  many: boolean,
  tr: T,
): { columns: (cols: string[]) => string[]; row: (target: string, cells: AnswerCell[]) => AnswerCell[] } {
  return {
    columns: (cols) => (many ? [tr('exp.col.target'), ...cols] : cols),
    row: (target, cells) => (many ? [target, ...cells] : cells),
  };
}

/**
 * The interval a capacity search brackets: the largest level that met the SLO and the level
 * below the smallest that missed it (`analysis/capacity`'s search decides between them). Null
 * without a failing level above the answer (the search is not bounded there), or when the
 * answer is undetermined.
 */
export function searchBracket(
  what: string,
  largest: number | null,
  failing: readonly number[],
  tr: T,
): AnswerInterval | null {
  if (largest === null) return null;
  const above = failing.filter((f) => f > largest);
  if (!above.length) return null;
  const missed = Math.min(...above);
  return {
    what,
    low: largest,
    high: missed - 1,
    note: tr('answer.interval.search', { met: largest, missed }),
  };
}
