/**
 * @module report/run/csv
 * `summary.csv`: the summary as a long table, `metric,stat,value`, one row per numeric metric ×
 * stat (`ttft_ms,p99,412.5`) plus one per numeric scalar key (`error_rate,value,0.01`). A long
 * table needs no schema change when a metric is added, and spreadsheets pivot it in one step.
 *
 * The `value` column holds numbers only, so that pandas `read_csv` and DuckDB `read_csv_auto`
 * type it as a float/DOUBLE column: text leaves (`warnings`, the dialects' `definition`) and
 * booleans are left out (they stay in report.json), and a null (no data) or non-finite number
 * is an empty cell, which both read as missing (NaN / NULL), never 0.
 */

/** One CSV row before encoding; `value` null is written as an empty cell. */
export interface CsvRow {
  metric: string;
  stat: string;
  value: number | null;
}

/**
 * Flatten any summary-like object into rows. A numeric or null leaf at path `a.b.c` becomes
 * metric `a.b`, stat `c`; a top-level one `x` becomes metric `x`, stat `value`; array items are
 * indexed. Strings, booleans, empty objects and empty arrays produce no rows.
 */
export function summaryRows(summary: object): CsvRow[] {
  const rows: CsvRow[] = [];
  const visit = (v: unknown, path: string[]) => {
    if (v !== null && typeof v === 'object') {
      const entries = Array.isArray(v) ? v.map((x, i) => [String(i), x] as const) : Object.entries(v);
      for (const [k, x] of entries) visit(x, [...path, k]);
      return;
    }
    if (v !== null && typeof v !== 'number') return;
    const value = typeof v === 'number' && Number.isFinite(v) ? v : null;
    if (path.length === 1) rows.push({ metric: path[0], stat: 'value', value });
    else rows.push({ metric: path.slice(0, -1).join('.'), stat: path[path.length - 1], value });
  };
  visit(summary, []);
  return rows;
}

/** RFC 4180 field: quoted when it holds a comma, quote, CR or LF. */
function field(s: string): string {
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/**
 * Encode the summary as CSV text with a `metric,stat,value` header and `\n` lines.
 * `null` (no data) is an empty cell, never 0.
 */
export function summaryToCsv(summary: object): string {
  const lines = ['metric,stat,value'];
  for (const r of summaryRows(summary))
    lines.push(`${field(r.metric)},${field(r.stat)},${r.value === null ? '' : String(r.value)}`);
  return `${lines.join('\n')}\n`;
}
