/**
 * @module sim/calibrate/format
 * A calibration result as console lines: each fitted constant with its standard error and
 * default, the runs it read, and the residual error per metric and regime.
 */
import { textTable } from '../../core/text-width.js';
import { type T, translator } from '../../i18n/index.js';
import type { CalibrationResult } from './fit.js';

const sig = (x: number, d = 4) => (Number.isFinite(x) ? Number(x.toPrecision(d)).toString() : '∞');

/** Widths in terminal columns, so a target or label in Chinese keeps the columns aligned. */
const table = (head: string[], rows: string[][]): string[] => textTable(head, rows, { trimEnd: true });

/** The result as lines for the console, in `t`'s language. */
export function formatCalibration(res: CalibrationResult, t: T = translator('en')): string[] {
  const f = res.fittedFor;
  const regime = (r: 'low-load' | 'saturated' | 'unused') => t(`sim.calibrate.regime.${r}`);
  const out = [
    t('sim.calibrate.title', { ...f, dtype: f.dtype, kv: f.kv_cache_dtype, servers: f.api_server_count }),
    '',
    t('sim.calibrate.runs'),
    ...table(
      [
        t('sim.calibrate.col.run'),
        t('sim.calibrate.col.label'),
        t('sim.calibrate.col.conc'),
        t('report.col.outTokS'),
        t('sim.calibrate.col.regime'),
      ],
      res.runs.map((r) => [
        r.id,
        r.label,
        String(r.concurrency),
        r.output_tok_s === null ? '-' : r.output_tok_s.toFixed(0),
        regime(r.regime),
      ]),
    ).map((l) => `  ${l}`),
    '',
    t('sim.calibrate.constants'),
    ...table(
      [
        t('sim.calibrate.col.constant'),
        t('sim.calibrate.col.default'),
        t('sim.calibrate.col.fitted'),
        t('sim.calibrate.col.stderr'),
        t('sim.calibrate.col.rel'),
        t('sim.calibrate.col.moved'),
        t('sim.calibrate.col.value'),
        t('sim.calibrate.col.from'),
      ],
      res.constants.map((c) => [
        c.constant,
        sig(c.default),
        sig(c.fitted),
        sig(c.stderr, 2),
        `${sig((c.stderr / c.fitted) * 100, 2)}%`,
        c.moved ? t('sim.calibrate.yes') : t('sim.calibrate.no_kept_prior'),
        `${sig(c.value)}${c.unit === 'ms' ? ' ms' : ''}`,
        t(c.from_msg.key, c.from_msg.params),
      ]),
    ).map((l) => `  ${l}`),
    `  ${
      res.constants.some((c) => c.moved)
        ? t('sim.calibrate.moved', {
            keys: res.constants
              .filter((c) => c.moved)
              .map((c) => c.constant)
              .join(', '),
          })
        : t('sim.calibrate.moved_none')
    }`,
    `  ${t('sim.calibrate.held', { keys: Object.keys(res.held).join(', ') })}`,
    '',
    t('sim.calibrate.residuals'),
    ...table(
      [
        t('sim.calibrate.col.metric'),
        t('sim.calibrate.col.regime'),
        'n',
        'rmse',
        t('sim.calibrate.col.mean_err'),
        t('sim.calibrate.col.max_err'),
      ],
      res.residuals.map((r) => [
        r.metric,
        regime(r.regime),
        String(r.n),
        `${sig(r.rmse, 3)}${r.metric === 'output_tok_s' ? ' tok/s' : ' ms'}`,
        `${r.mean_abs_pct.toFixed(2)}%`,
        `${r.max_abs_pct.toFixed(2)}%`,
      ]),
    ).map((l) => `  ${l}`),
  ];
  return out;
}
