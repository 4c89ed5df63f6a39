/**
 * @module core/text-width
 * How many terminal columns a string takes, for aligning console columns that hold Chinese
 * labels: CJK ideographs, kana, Hangul and full-width forms (U+2E80 and up, as East Asian Width
 * "W"/"F" in Unicode's EastAsianWidth.txt) take two columns, everything else one. Coarse by
 * design: it is right for the prose servelab prints (ASCII, Chinese, full-width punctuation)
 * and needs no table.
 */

/** Terminal columns of `s` (see the module note). */
export function displayWidth(s: string): number {
  let n = 0;
  for (const c of s) n += (c.codePointAt(0) ?? 0) >= 0x2e80 ? 2 : 1;
  return n;
}

/** `s` padded with spaces to `columns` on the right (`end`) or the left (`start`). */
export function padColumns(s: string, columns: number, side: 'end' | 'start' = 'end'): string {
  const fill = ' '.repeat(Math.max(0, columns - displayWidth(s)));
  return side === 'end' ? s + fill : fill + s;
}

/**
 * A plain-text table as lines: the first column left-aligned, the others right-aligned, two
 * spaces between columns, widths in terminal columns (so Chinese headers and cells line up).
 * @param head the header row, or null for a list without one
 * @param opts.trimEnd drop the trailing spaces of each line
 * @param opts.left every column left-aligned, one space apart (a list such as `runs list`)
 */
export function textTable(
  head: readonly string[] | null,
  rows: readonly (readonly string[])[],
  opts: { trimEnd?: boolean; left?: boolean } = {},
): string[] {
  const all = head ? [head, ...rows] : rows;
  const w: number[] = [];
  for (const r of all)
    r.forEach((c, i) => {
      w[i] = Math.max(w[i] ?? 0, displayWidth(c));
    });
  const line = (r: readonly string[]) => {
    const l = r
      .map((c, i) => padColumns(c, w[i], i === 0 || opts.left ? 'end' : 'start'))
      .join(opts.left ? ' ' : '  ');
    return opts.trimEnd ? l.trimEnd() : l;
  };
  return all.map(line);
}
