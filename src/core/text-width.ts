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
