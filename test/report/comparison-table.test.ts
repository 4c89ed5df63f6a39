/**
 * The comparison table: actual lengths, outcome counts by class, percentiles with their
 * sample-size marks, cost arithmetic, server-side columns from scraped series, and the three
 * renderers agreeing on the marks.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  columnsFor,
  comparisonTable,
  renderTableHtml,
  renderTableMarkdown,
  renderTableText,
  UNRELIABLE_MARK,
} from '../../src/report/comparison-table.js';
import { handRecord, handRun } from '../diagnose/helpers.js';

/** `n` sequential requests: TTFT 20 + i ms, 10 tokens 10 ms apart, prompt 100 + i tokens. */
const recs = (n: number, prefix = 'q') =>
  Array.from({ length: n }, (_, i) => handRecord(`${prefix}${i}`, i * 1000, 20 + i, 10, 10, 100 + i));

describe('comparisonTable', () => {
  it('reports actual lengths from usage, outcome counts by class, and the warm-up count', () => {
    const rs = recs(30);
    rs[0].phase = 'warmup';
    rs[1].outcome = 'length';
    rs[1].finish_reason = 'length';
    rs[2].outcome = 'timeout';
    rs[3].outcome = 'http_error';
    rs[4].outcome = 'http_error';
    const [row] = comparisonTable([handRun('a', rs)]);
    assert.equal(row.warmup.value, 1);
    assert.equal(row.measured.value, 29);
    assert.equal(row.succeeded.value, 26);
    assert.equal(row.truncated.value, 1);
    assert.equal(row.failed.value, 3);
    assert.deepEqual(row.failed_by_class, { http_error: 2, timeout: 1 });
    // Successful measured prompts: 101 and 105..129 → 26 values.
    const lens = [101, ...Array.from({ length: 25 }, (_, i) => 105 + i)];
    assert.equal(row.input_tokens_mean.value, lens.reduce((a, b) => a + b, 0) / lens.length);
    assert.equal(row.input_tokens_p50.value, 116.5);
    assert.equal(row.output_tokens_p50.value, 10);
  });

  it('marks p99 under 100 samples and p95 under 20 samples as unreliable, not p50', () => {
    const [small] = comparisonTable([handRun('s', recs(15))]);
    assert.equal(small.ttft_ms_p99.unreliable, true);
    assert.equal(small.ttft_ms_p95.unreliable, true);
    assert.equal(small.ttft_ms_p50.unreliable, undefined);
    const [mid] = comparisonTable([handRun('m', recs(50))]);
    assert.equal(mid.e2e_ms_p99.unreliable, true);
    assert.equal(mid.e2e_ms_p95.unreliable, undefined);
    const [big] = comparisonTable([handRun('b', recs(100))]);
    assert.equal(big.tpot_ms_p99.unreliable, undefined);
    assert.equal(big.ttft_ms_p99.unreliable, undefined);
  });

  it('computes cost per 1M output tokens and per 1k requests from the GPU-hour price and GPU count', () => {
    // 100 requests over 99.11 s; 1000 output tokens.
    const run = handRun('c', recs(100), {}, { gpu_hour_usd: 3.6, gpu_count: 2 });
    const [row] = comparisonTable([run]);
    const s = run.summary;
    const usdPerS = (3.6 * 2) / 3600;
    assert.ok(
      Math.abs(
        (row.usd_per_1m_output_tokens.value as number) -
          (usdPerS / (s.output_throughput_tok_s as number)) * 1e6,
      ) < 1e-9,
    );
    assert.ok(
      Math.abs(
        (row.usd_per_1k_requests.value as number) - (usdPerS / (s.request_throughput_rps as number)) * 1000,
      ) < 1e-9,
    );
    // Roughly: 99.1 s × $0.002/s = $0.198 for 1000 tokens → $198 per 1M.
    assert.ok(Math.abs((row.usd_per_1m_output_tokens.value as number) - 198.2) < 0.5);
    // No price: no cost, never 0.
    assert.equal(comparisonTable([handRun('n', recs(10))])[0].usd_per_1m_output_tokens.value, null);
    // A table-wide price applies to runs that carry none.
    assert.notEqual(
      comparisonTable([handRun('n', recs(10))], { gpu_hour_usd: 2 })[0].usd_per_1k_requests.value,
      null,
    );
  });

  it('takes peak GPU memory and the server token rate from the scraped series', () => {
    const series = [
      { t_ms: 0, source: 's', name: 'gpu_memory_used_mib', value: 40_960 },
      { t_ms: 5000, source: 's', name: 'gpu_memory_used_mib', value: 71_680 },
      { t_ms: 0, source: 's', name: 'generation_tokens_total', value: 0 },
      { t_ms: 10_000, source: 's', name: 'generation_tokens_total', value: 100 },
    ];
    const [row] = comparisonTable([handRun('g', recs(12), {}, { series })]);
    assert.equal(row.peak_gpu_memory_gib.value, 70);
    assert.equal(row.server_tok_s.value, 10);
    const [none] = comparisonTable([handRun('g', recs(12))]);
    assert.equal(none.peak_gpu_memory_gib.value, null);
    assert.equal(none.server_tok_s.value, null);
  });

  it('shows GPU memory and utilisation columns when the GPU was scraped, and none when not', () => {
    const series = [
      { t_ms: 0, source: 's', name: 'gpu_memory_used_mib', value: 40_960 },
      { t_ms: 0, source: 's', name: 'gpu_util_pct', value: 30 },
      { t_ms: 1000, source: 's', name: 'gpu_util_pct', value: 90 },
    ];
    const rows = comparisonTable([handRun('g', recs(12), {}, { series })]);
    assert.equal(rows[0].mean_gpu_util_pct.value, 60);
    const headers = columnsFor(rows).map((c) => c.header);
    assert.ok(headers.includes('peak GPU GiB') && headers.includes('GPU util %'));
    assert.match(renderTableText(rows), /GPU util %\s+60/);
    const none = comparisonTable([handRun('g', recs(12))]);
    assert.equal(none[0].mean_gpu_util_pct.value, null);
    assert.ok(!columnsFor(none).some((c) => c.group === 'gpu'), 'nothing scraped: no empty GPU columns');
  });

  it('renders the same marks in text, Markdown and HTML, with a footnote', () => {
    const rows = comparisonTable([
      handRun('few', recs(15)),
      handRun('many', recs(120), {}, { level: { concurrency: 8 } }),
    ]);
    const text = renderTableText(rows);
    assert.match(text, new RegExp(`TTFT p99 ms\\s+\\S+\\${UNRELIABLE_MARK}\\s+\\d+\\.\\d(\\s|$)`, 'm'));
    assert.match(text, /unreliable: a p99 from fewer than 100 samples/);
    const md = renderTableMarkdown(rows);
    const lines = md.trim().split('\n');
    const cols = (l: string) => l.split(/(?<!\\)\|/).length;
    assert.equal(cols(lines[0]), cols(lines[1]));
    assert.equal(cols(lines[0]), cols(lines[2]));
    assert.match(lines[3], /\| many \| c=8 \|/);
    const html = renderTableHtml(rows);
    assert.equal((html.match(/class="unreliable"/g) ?? []).length, 5); // n=15: TTFT p95+p99, E2E p95+p99, TPOT p99
    assert.match(html, /<tr data-run="many">/);
  });
});
