/**
 * @module analysis/diagnose/rules/truncation
 * Requests cut by a token limit (`truncation`); critical when structured output is configured.
 */
import type { LoadedRun } from '../../loaded-run.js';
import { describe } from '../../stats.js';
import { measuredSuccesses } from '../../summary.js';
import type { Finding } from '../types.js';
import { type Opts, one, type Rule } from './rule.js';
import { fmt } from './shared.js';

/**
 * Requests cut by a token limit (outcome `length`: they stopped at a limit before the output
 * length they asked for, or asked for none; `isTruncated` in `record/outcome`). A fixed-length
 * benchmark whose requests reached their length is not truncated, so it never shows here. With
 * structured output configured, a cut answer is also invalid JSON.
 */
export function truncation(run: LoadedRun, o: Opts): Finding | null {
  const s = run.summary;
  const n = s.requests.measured;
  const cut = s.outcomes.length;
  if (n === 0 || cut / n <= o.max_truncated_fraction) return null;
  const target = run.config.target as { extra_body?: Record<string, unknown> | null } | undefined;
  const cfg = { ...(target?.extra_body ?? {}), ...run.config };
  const structured = [
    'response_format',
    'json_schema',
    'guided_json',
    'guided_regex',
    'structured_outputs',
  ].find((k) => cfg[k] != null);
  const ids = measuredSuccesses(run.records)
    .filter((r) => r.outcome === 'length')
    .slice(0, 5)
    .map((r) => r.id);
  const outLen = describe(
    measuredSuccesses(run.records)
      .filter((r) => r.outcome === 'length')
      .map((r) => r.usage?.completion_tokens ?? 0),
  );
  const t = o.t;
  return {
    rule: 'truncation',
    severity: structured ? 'critical' : 'warn',
    runs: [run.id],
    symptom: t('diagnose.truncation.symptom', { cut, n, pct: fmt((100 * cut) / n, 0) }),
    evidence: [
      t('diagnose.truncation.ev_tokens', { p50: fmt(outLen.p50, 0), max: fmt(outLen.max, 0) }),
      structured
        ? t('diagnose.truncation.ev_structured', { key: structured })
        : t('diagnose.truncation.ev_unstructured'),
    ],
    request_ids: ids,
    mechanism: t(structured ? 'diagnose.truncation.mechanism_structured' : 'diagnose.truncation.mechanism'),
    next: { command: 'servelab exp init baseline', change: t('diagnose.truncation.next') },
  };
}

export const rule: Rule = {
  id: 'truncation',
  scope: 'run',
  needs: ['own_outcomes'],
  emits: ['truncation'],
  run: (run, { o }) => one(truncation(run, o)),
};
