/**
 * @module exp/kinds/format
 * Plain-text tables for the kinds' console output (`servelab exp run`).
 */
import { displayWidth, padColumns } from '../../core/text-width.js';

/**
 * A table: the first column left-aligned, the others right-aligned, widths in terminal columns
 * (a Chinese header or verdict takes two per character).
 */
export function table(head: string[], rows: string[][]): string {
  const w = head.map((h, i) => Math.max(displayWidth(h), ...rows.map((r) => displayWidth(r[i] ?? ''))));
  const line = (r: string[]) => r.map((c, i) => padColumns(c, w[i], i === 0 ? 'end' : 'start')).join('  ');
  return [line(head), ...rows.map(line)].join('\n');
}

/** A fraction as a percentage with one decimal, `-` without data. */
export const pct = (v: number | null | undefined): string =>
  v === null || v === undefined ? '-' : `${(v * 100).toFixed(1)}%`;
