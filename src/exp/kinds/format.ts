/**
 * @module exp/kinds/format
 * Plain-text tables for the kinds' console output (`servelab exp run`).
 */

/** A table: the first column left-aligned, the others right-aligned. */
export function table(head: string[], rows: string[][]): string {
  const w = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) => r.map((c, i) => (i === 0 ? c.padEnd(w[i]) : c.padStart(w[i]))).join('  ');
  return [line(head), ...rows.map(line)].join('\n');
}

/** A fraction as a percentage with one decimal, `-` without data. */
export const pct = (v: number | null | undefined): string =>
  v === null || v === undefined ? '-' : `${(v * 100).toFixed(1)}%`;
