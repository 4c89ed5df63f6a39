/**
 * @module exp/kinds/matrix
 * `matrix`: input/output length combinations (short/short, long/short, long/long by default) ×
 * concurrency levels, closed loop, one run per cell, level and target; a table of TTFT, TPOT,
 * E2E and throughput per cell.
 */
import type { ExpContext } from './context.js';
import { type LoadPoint, pointOf, reindex } from './points.js';

export interface MatrixCell extends LoadPoint {
  cell: string;
  input_len: string;
  output_len: string;
  concurrency: number;
}

export interface MatrixResult {
  kind: 'matrix';
  targets: { target: string; cells: MatrixCell[] }[];
}

/** Run the matrix on every target. */
export async function runMatrix(ctx: ExpContext): Promise<MatrixResult> {
  const mx = ctx.exp.matrix ?? {
    cells: [
      { name: 'short-in-short-out', input_len: '128', output_len: '32' },
      { name: 'long-in-short-out', input_len: '2048', output_len: '32' },
      { name: 'long-in-long-out', input_len: '2048', output_len: '256' },
    ],
    concurrency: [1, 8],
  };
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
        });
      }
    }
    out.push({ target: t.name, cells });
  }
  return { kind: 'matrix', targets: out };
}
