/**
 * @module exp/kinds/format
 * Plain-text tables for the kinds' console output (`servelab exp run`).
 */
import { textTable } from '../../core/text-width.js';

/** A table (see core/text-width `textTable`): the first column left-aligned, the others right-aligned. */
export function table(head: string[], rows: string[][]): string {
  return textTable(head, rows).join('\n');
}

/** A fraction as a percentage with one decimal, `-` without data. */
export const pct = (v: number | null | undefined): string =>
  v === null || v === undefined ? '-' : `${(v * 100).toFixed(1)}%`;
