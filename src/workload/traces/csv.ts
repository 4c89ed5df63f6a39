/**
 * @module workload/traces/csv
 * The CSV reading the Azure and BurstGPT traces need: a header row naming the columns, then one
 * row per request. Fields are split on commas, with RFC 4180 double quotes where a line has any
 * (the published files have none, so the fast path is a plain split). Columns are found by
 * name, case- and space-insensitively, so a re-exported file with its columns in another order
 * still reads.
 */

/** A CSV file's header and rows, each with its 1-based line number. */
export interface CsvTable {
  header: string[];
  headerLine: number;
  rows: { line: number; cells: string[] }[];
}

/** Split one CSV line into fields. */
export function splitCsvLine(line: string): string[] {
  if (!line.includes('"')) return line.split(',');
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') {
        cur += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cur += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      out.push(cur);
      cur = '';
    } else cur += c;
  }
  out.push(cur);
  return out;
}

/** Read a CSV text: the first non-blank line is the header; blank lines are skipped. Null when there is no line at all. */
export function readCsv(text: string): CsvTable | null {
  const lines = text.split(/\r?\n/);
  let headerAt = lines.findIndex((l) => l.trim() !== '');
  if (headerAt < 0) return null;
  const header = splitCsvLine(lines[headerAt].replace(/^\uFEFF/, '')).map((h) => h.trim());
  const rows: CsvTable['rows'] = [];
  for (let i = headerAt + 1; i < lines.length; i++) {
    const raw = lines[i];
    if (raw.trim() === '') continue;
    rows.push({ line: i + 1, cells: splitCsvLine(raw) });
  }
  headerAt += 1;
  return { header, headerLine: headerAt, rows };
}

/** A column's name as compared: lower case, without spaces or underscores. */
export function columnKey(name: string): string {
  return name.toLowerCase().replace(/[\s_]+/g, '');
}

/** Index of the column named `name` (compared by {@link columnKey}); -1 when absent. */
export function columnIndex(header: readonly string[], name: string): number {
  const k = columnKey(name);
  return header.findIndex((h) => columnKey(h) === k);
}
