/**
 * @module workload/traces/burstgpt
 * BurstGPT (HPMLL/BurstGPT: README.md; files data/BurstGPT_1.csv, BurstGPT_without_fails_1.csv
 * and their _2 counterparts). A CSV with the header
 * `Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type`: the request time in
 * seconds from the start of the collection, the model (ChatGPT or GPT-4), the request and
 * response lengths in tokens, their sum, and the log type (conversation or API log).
 *
 * Time base: seconds, kept as ms (× 1000). Rows with 0 response tokens are the failed requests
 * of the original trace (the README: BurstGPT_1.csv "with some failure that `Response tokens`
 * are 0s"); a request cannot ask for 0 output tokens, so they are skipped, counted and named in
 * the run's notes.
 */
import type { Problem } from '../../core/errors.js';
import type { T } from '../../i18n/index.js';
import { parseCsvTrace } from './rows.js';
import type { ParsedTrace } from './types.js';

/** The header of the published files. */
export const BURSTGPT_COLUMNS = [
  'Timestamp',
  'Model',
  'Request tokens',
  'Response tokens',
  'Total tokens',
  'Log Type',
] as const;

/** Parse a BurstGPT CSV. */
export function parseBurstGptTrace(text: string, path: string, t: T): ParsedTrace {
  return parseCsvTrace(text, path, t, {
    format: 'burstgpt',
    time: 'Timestamp',
    input: 'Request tokens',
    output: 'Response tokens',
    zeroOutput: 'trace.skip.burstgpt_failed',
    parseTime(raw: string, where: string, tr: T, problems: Problem[]) {
      const s = raw === '' ? Number.NaN : Number(raw);
      if (!Number.isFinite(s) || s < 0) {
        problems.push({
          path: where,
          message: tr('trace.seconds.bad', { field: 'Timestamp', got: raw }),
          hint: tr('trace.burstgpt.hint'),
        });
        return undefined;
      }
      return s * 1000;
    },
  });
}
