/**
 * @module sim/calibrate/format
 * A calibration result as console lines: each fitted constant with its standard error and
 * default, the runs it read, and the residual error per metric and regime.
 */
import { textTable } from '../../core/text-width.js';
import type { CalibrationResult } from './fit.js';

const sig = (x: number, d = 4) => (Number.isFinite(x) ? Number(x.toPrecision(d)).toString() : '∞');

/** Widths in terminal columns, so a target or label in Chinese keeps the columns aligned. */
const table = (head: string[], rows: string[][]): string[] => textTable(head, rows, { trimEnd: true });

/** The result as lines for the console. */
export function formatCalibration(res: CalibrationResult): string[] {
  const f = res.fittedFor;
  const out = [
    `calibrated ${f.model} on ${f.tp}× ${f.gpu}, ${f.engine}, dtype ${f.dtype}, kv-cache-dtype ${f.kv_cache_dtype}, ${f.api_server_count} API server(s)`,
    '',
    'runs',
    ...table(
      ['run', 'label', 'conc', 'out tok/s', 'regime'],
      res.runs.map((r) => [
        r.id,
        r.label,
        String(r.concurrency),
        r.output_tok_s === null ? '-' : r.output_tok_s.toFixed(0),
        r.regime,
      ]),
    ).map((l) => `  ${l}`),
    '',
    'fitted constants (± one standard error)',
    ...table(
      ['constant', 'value', '± stderr', 'rel', 'default', 'from'],
      res.constants.map((c) => [
        c.constant,
        `${sig(c.value)}${c.unit === 'ms' ? ' ms' : ''}`,
        sig(c.stderr, 2),
        `${sig((c.stderr / c.value) * 100, 2)}%`,
        sig(c.default),
        c.from,
      ]),
    ).map((l) => `  ${l}`),
    `  held at their defaults: ${Object.keys(res.held).join(', ')} (not separable from client-side data)`,
    '',
    'residual error (observed − fitted model)',
    ...table(
      ['metric', 'regime', 'n', 'rmse', 'mean |err|', 'max |err|'],
      res.residuals.map((r) => [
        r.metric,
        r.regime,
        String(r.n),
        `${sig(r.rmse, 3)}${r.metric === 'output_tok_s' ? ' tok/s' : ' ms'}`,
        `${r.mean_abs_pct.toFixed(2)}%`,
        `${r.max_abs_pct.toFixed(2)}%`,
      ]),
    ).map((l) => `  ${l}`),
  ];
  return out;
}
