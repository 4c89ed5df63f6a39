/**
 * @module workload/traces/azure
 * The Azure LLM inference traces (Azure/AzurePublicDataset: AzureLLMInferenceDataset2023.md,
 * AzureLLMInferenceDataset2024.md; files such as data/AzureLLMInferenceTrace_code.csv and
 * AzureLLMInferenceTrace_conv.csv). A CSV with the header `TIMESTAMP,ContextTokens,GeneratedTokens`:
 * the invocation time as a datetime (`2023-11-16 18:15:46.6805900`, seven fractional digits, no
 * zone), the number of context (prompt) tokens and of generated tokens. The prompts' text is not
 * published (their README: "we send the input prompt with the required number of tokens"), so
 * servelab generates token-exact prompts of ContextTokens tokens.
 *
 * Time base: the datetimes are read as UTC (a zone suffix, `Z` or `+hh:mm`, is honoured) and
 * kept as ms since the Unix epoch, fraction included; only differences are used.
 */
import type { Problem } from '../../core/errors.js';
import type { T } from '../../i18n/index.js';
import { parseCsvTrace } from './rows.js';
import type { ParsedTrace } from './types.js';

/** The header of the published files. */
export const AZURE_COLUMNS = ['TIMESTAMP', 'ContextTokens', 'GeneratedTokens'] as const;

const DATETIME = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(\.\d+)?\s*(Z|[+-]\d{2}:?\d{2})?$/i;

/**
 * An Azure TIMESTAMP in ms since the epoch (UTC unless it names a zone), fraction kept.
 * @returns undefined when it is not such a datetime
 * @example azureTimeMs('2023-11-16 18:15:46.6805900') // 1700158546680.59
 */
export function azureTimeMs(raw: string): number | undefined {
  const m = DATETIME.exec(raw.trim());
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, frac, zone] = m;
  const whole = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  if (!Number.isFinite(whole) || Number(mo) > 12 || Number(d) > 31 || Number(h) > 23 || Number(mi) > 59)
    return undefined;
  let offsetMin = 0;
  if (zone && zone.toUpperCase() !== 'Z') {
    const z = zone.replace(':', '');
    offsetMin = (z[0] === '-' ? -1 : 1) * (Number(z.slice(1, 3)) * 60 + Number(z.slice(3, 5)));
  }
  return whole + (frac ? Number(`0${frac}`) * 1000 : 0) - offsetMin * 60_000;
}

/** Parse an Azure LLM inference trace CSV. */
export function parseAzureTrace(text: string, path: string, t: T): ParsedTrace {
  return parseCsvTrace(text, path, t, {
    format: 'azure',
    time: 'TIMESTAMP',
    input: 'ContextTokens',
    output: 'GeneratedTokens',
    zeroOutput: 'trace.skip.zero_output',
    parseTime(raw: string, where: string, tr: T, problems: Problem[]) {
      const ms = azureTimeMs(raw);
      if (ms === undefined)
        problems.push({
          path: where,
          message: tr('trace.azure.time_bad', { got: raw }),
          hint: tr('trace.azure.hint'),
        });
      return ms;
    },
  });
}
