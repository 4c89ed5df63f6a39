/**
 * @module exp/kinds/matrix
 * `matrix`: input/output length combinations (short/short, long/short, long/long by default) ×
 * concurrency levels, closed loop, one run per cell, level and target; a table of TTFT, TPOT,
 * E2E and throughput per cell.
 *
 * TTFT counts from the first content token (`docs/metrics.md`): on a model that reasons first
 * it includes the thinking, which is why each cell also carries TTFR (`ttfr_ms`, the first
 * reasoning token) and the table says so when any cell reasoned.
 */
import { z } from 'zod';
import { lengthDist } from '../../config/run-settings.js';
import { err, listOf, posInt, str } from '../../core/fields.js';
import type { T } from '../../i18n/index.js';
import type { ExperimentAnswer } from '../../report/answer.js';
import { MIN_SAMPLES_P99 } from '../../report/comparison-table.js';
import { isObj, listAt, refuseLoadLevels } from '../fields.js';
import { cell, joinVerdict, pctCell, runIdsOf, withTarget } from './answer-kit.js';
import type { KindContext } from './context.js';
import { defineKind, type OwnFile } from './kind.js';
import { fmt, pointOf, type RunHeadline, reindex, unreliableNote } from './points.js';

export interface MatrixCell extends RunHeadline {
  cell: string;
  input_len: string;
  output_len: string;
  concurrency: number;
  /**
   * Time to the first reasoning token (`ttfr_ms`), p50 and its samples: n = 0 when the model did
   * not reason. When it did, TTFT (first content token) includes the thinking.
   */
  ttfr_ms: { p50: number | null; n: number };
}

export interface MatrixResult {
  kind: 'matrix';
  targets: { target: string; cells: MatrixCell[] }[];
}

/** Run the matrix on every target. */
export async function runMatrix(
  ctx: KindContext<OwnFile<'matrix', 'matrix', typeof matrixSchema>>,
): Promise<MatrixResult> {
  const mx = ctx.exp.matrix;
  const out: MatrixResult['targets'] = [];
  for (const t of ctx.targets) {
    const cells: MatrixCell[] = [];
    for (const cell of mx.cells) {
      const name = cell.name ?? `${cell.input_len}/${cell.output_len}`;
      for (const c of mx.concurrency) {
        const level = { cell: name, concurrency: c };
        const w = await ctx.levelWorkload(level, {
          count: ctx.requestsFor(c),
          inputLen: cell.input_len,
          outputLen: cell.output_len,
          plain: true,
        });
        const specs = reindex(w.specs);
        if (ctx.exp.cache.policy === 'cold') await ctx.ensureCold([t]);
        const m = await ctx.measure(t, {
          label: `${name} c=${c}`,
          level,
          specs,
          load: { kind: 'closed', concurrency: c },
          warmup: ctx.exp.warmup,
          warmupSpecs: w.warmupSpecs,
          coldPrompts: w.coldPrompts,
        });
        cells.push({
          ...pointOf(m.run),
          cell: name,
          input_len: cell.input_len,
          output_len: cell.output_len,
          concurrency: c,
          ttfr_ms: { p50: m.summary.ttfr_ms.p50, n: m.summary.ttfr_ms.n },
        });
      }
    }
    out.push({ target: t.name, cells });
  }
  return { kind: 'matrix', targets: out };
}

/** Whether any cell's model reasoned before answering (so its TTFT includes the thinking). */
const reasoned = (cells: readonly MatrixCell[]) => cells.some((c) => (c.ttfr_ms?.n ?? 0) > 0);

// ---- the answer --------------------------------------------------------------------------------

/** One target's verdict clause: the cell with the most throughput and the one with the slowest first token. */
/** The grid's columns, for the answer's table and the console's (which differ in the errors column). */
const gridColumns = (tr: T, errors: string): string[] => [
  tr('exp.col.cell'),
  tr('exp.col.in'),
  tr('exp.col.out'),
  tr('exp.col.conc'),
  'TTFT p50 ms',
  'TTFT p99 ms',
  'TTFR p50 ms',
  'TPOT p50 ms',
  'E2E p50 ms',
  tr('report.col.outTokS'),
  errors,
];

/** The cell (and level) with the most output throughput; null when none has a number. */
function topCell(cells: readonly MatrixCell[]): MatrixCell | null {
  const withTput = cells.filter((c) => c.output_throughput_tok_s !== null);
  if (!withTput.length) return null;
  return withTput.reduce((a, b) =>
    (b.output_throughput_tok_s as number) > (a.output_throughput_tok_s as number) ? b : a,
  );
}

function matrixVerdict(cells: readonly MatrixCell[], tr: T): string {
  const top = topCell(cells);
  const withTtft = cells.filter((c) => c.ttft_ms.p50 !== null);
  if (!top || !withTtft.length) return tr('answer.matrix.no_data');
  const slow = withTtft.reduce((a, b) => ((b.ttft_ms.p50 as number) > (a.ttft_ms.p50 as number) ? b : a));
  const text = tr('answer.matrix.verdict', {
    top: top.cell,
    top_c: top.concurrency,
    tput: fmt(top.output_throughput_tok_s),
    slow: slow.cell,
    slow_c: slow.concurrency,
    ttft: fmt(slow.ttft_ms.p50),
  });
  return reasoned(cells) ? text + tr('answer.matrix.thinking') : text;
}

/**
 * The matrix's answer: the grid itself (every cell × concurrency, TTFR beside TTFT), the cells
 * with the most throughput and the slowest first token, and throughput per cell as bars.
 */
export function matrixAnswer(res: MatrixResult, tr: T): ExperimentAnswer {
  const many = res.targets.length > 1;
  const col = withTarget(many, tr);
  const names = [...new Set(res.targets.flatMap((t) => t.cells.map((c) => c.cell)))];
  const levels = [...new Set(res.targets.flatMap((t) => t.cells.map((c) => c.concurrency)))];
  return {
    kind: res.kind,
    question: tr('answer.matrix.question'),
    verdict: joinVerdict(
      res.targets.map((t) => ({ target: t.target, text: matrixVerdict(t.cells, tr) })),
      tr,
    ),
    table: {
      columns: col.columns(gridColumns(tr, tr('answer.col.errors_pct'))),
      rows: res.targets.flatMap((t) =>
        t.cells.map((c) =>
          col.row(t.target, [
            c.cell,
            c.input_len,
            c.output_len,
            c.concurrency,
            cell(c.ttft_ms.p50),
            cell(c.ttft_ms.p99),
            cell(c.ttfr_ms?.p50),
            cell(c.tpot_ms.p50, 2),
            cell(c.e2e_ms.p50),
            cell(c.output_throughput_tok_s),
            pctCell(c.error_rate),
          ]),
        ),
      ),
    },
    chart: {
      type: 'bar',
      title: tr('answer.matrix.chart_title'),
      x: { name: tr('exp.col.cell'), unit: null, categories: names },
      y: { name: tr('report.axis.tokS'), unit: null },
      series: res.targets.flatMap((t) =>
        levels.map((c) => ({
          name: many ? `${t.target} ${tr('answer.matrix.series', { c })}` : tr('answer.matrix.series', { c }),
          points: names.map((n, i): [number, number | null] => [
            i,
            cell(t.cells.find((x) => x.cell === n && x.concurrency === c)?.output_throughput_tok_s),
          ]),
        })),
      ),
    },
    run_ids: runIdsOf(res.targets.flatMap((t) => t.cells.map((c) => c.run_id))),
    // The headline's cards show the cell the verdict names first: the most throughput (first target's).
    focus_run_id: topCell(res.targets[0]?.cells ?? [])?.run_id ?? null,
    interval: null,
  };
}

// ---- the kind module: file section and rules, defaults, template, console output ----------

export const DEFAULT_MATRIX_CELLS = [
  { name: 'short-in-short-out', input_len: '128', output_len: '32' },
  { name: 'long-in-short-out', input_len: '2048', output_len: '32' },
  { name: 'long-in-long-out', input_len: '2048', output_len: '256' },
];
export const DEFAULT_MATRIX_CONCURRENCY = [1, 8];

export const matrixSchema = z.strictObject({
  cells: z
    .array(
      z.strictObject({ name: str().optional(), input_len: lengthDist(), output_len: lengthDist() }),
      err('expected a list'),
    )
    .default(DEFAULT_MATRIX_CELLS.map((c) => ({ ...c }))),
  concurrency: listOf(posInt()).default([...DEFAULT_MATRIX_CONCURRENCY]),
});

export const matrixKind = defineKind({
  kind: 'matrix',
  section: 'matrix',
  sectionSchema: matrixSchema,
  rules(f, report) {
    refuseLoadLevels(f, report, 'the matrix', 'matrix.concurrency');
    const mx: Record<string, unknown> = isObj(f.matrix) ? f.matrix : {};
    if (Array.isArray(mx.cells) && mx.cells.length < 3)
      report(
        ['matrix', 'cells'],
        'the matrix needs at least three input/output cells',
        'e.g. short/short, long/short, long/long (the default)',
      );
    const mc = listAt(mx.concurrency);
    if (mc && mc.length < 2)
      report(['matrix', 'concurrency'], 'the matrix needs at least two concurrency levels', 'e.g. [1, 8]');
  },
  defaults: (f) => ({ ...f, matrix: f.matrix ?? matrixSchema.parse({}) }),
  template: (t) => `${t.head('matrix', 'matrix', t.tr('tpl.matrix.about'))}
targets:
${t.simTarget({ name: 'sim', full: true })}
${t.urlTargets}

matrix:
  cells:                              # ${t.tr('tpl.matrix.cells')}
    - {name: short-in-short-out, input_len: 128, output_len: 32}
    - {name: long-in-short-out, input_len: 2048, output_len: 32}
    - {name: long-in-long-out, input_len: 2048, output_len: 256}
  concurrency: [1, 8]                 # ${t.tr('tpl.matrix.concurrency')}

${t.common({ load: [`requests: 16                      # ${t.tr('tpl.matrix.requests')}`] })}
`,
  run: runMatrix,
  answer: matrixAnswer,
  // The answer's grid is the table; what it leaves to the console is the note on thin p99s.
  format: (res, tr) =>
    res.targets.some((t) => t.cells.some((c) => c.ttft_ms.p99 !== null && c.ttft_ms.n < MIN_SAMPLES_P99))
      ? [unreliableNote(tr)]
      : [],
});
