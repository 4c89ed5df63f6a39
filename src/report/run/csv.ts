/**
 * @module report/run/csv
 * `summary.csv`: the summary as a long table, `metric,stat,value`, one row per metric × stat
 * (`ttft_ms,p99,412.5`) plus one per scalar key (`error_rate,value,0.01`). A long table needs
 * no schema change when a metric is added, and spreadsheets pivot it in one step.
 */

/** One CSV row before encoding. */
export interface CsvRow {
  metric: string;
  stat: string;
  value: number | string | boolean | null;
}

/**
 * Flatten any summary-like object into rows. A leaf at path `a.b.c` becomes metric `a.b`,
 * stat `c`; a top-level scalar `x` becomes metric `x`, stat `value`; array items are indexed
 * (`warnings,0,...`). Empty objects and arrays produce no rows.
 */
export function summaryRows(summary: object): CsvRow[] {
  const rows: CsvRow[] = [];
  const visit = (v: unknown, path: string[]) => {
    if (v !== null && typeof v === 'object') {
      const entries = Array.isArray(v) ? v.map((x, i) => [String(i), x] as const) : Object.entries(v);
      for (const [k, x] of entries) visit(x, [...path, k]);
      return;
    }
    if (v === undefined || typeof v === 'function') return;
    const leaf =
      typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean'
        ? v
        : v === null
          ? null
          : String(v);
    if (path.length === 1) rows.push({ metric: path[0], stat: 'value', value: leaf });
    else rows.push({ metric: path.slice(0, -1).join('.'), stat: path[path.length - 1], value: leaf });
  };
  visit(summary, []);
  return rows;
}

/** RFC 4180 field: quoted when it holds a comma, quote, CR or LF. */
function field(v: CsvRow['value']): string {
  if (v === null) return '';
  const s = typeof v === 'number' ? (Number.isFinite(v) ? String(v) : '') : String(v);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/**
 * Encode the summary as CSV text with a `metric,stat,value` header and CRLF-free `\n` lines.
 * `null` (no data) is an empty cell, never 0.
 */
export function summaryToCsv(summary: object): string {
  const lines = ['metric,stat,value'];
  for (const r of summaryRows(summary)) lines.push(`${field(r.metric)},${field(r.stat)},${field(r.value)}`);
  return `${lines.join('\n')}\n`;
}
