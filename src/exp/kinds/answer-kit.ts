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
