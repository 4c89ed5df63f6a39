/**
 * @module test/analysis/series
 * The summary of a scraped series: peaks, means, reset-aware counter deltas, windows.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { seriesSummary } from '../../src/analysis/series.js';
import type { ScrapePoint } from '../../src/record/series.js';

test('seriesSummary: peaks, means, reset-aware deltas per source, token rate', () => {
  const p = (t_ms: number, source: string, name: ScrapePoint['name'], value: number): ScrapePoint => ({
    t_ms,
    source,
    name,
    value,
  });
  const points = [
    p(0, 'a', 'gpu_memory_used_mib', 1024),
    p(1000, 'a', 'gpu_memory_used_mib', 3072),
    p(2000, 'a', 'gpu_memory_used_mib', 2048),
    p(0, 'a', 'gpu_util_pct', 50),
    p(1000, 'a', 'gpu_util_pct', 100),
    p(0, 'a', 'kv_usage', 0.2),
    p(1000, 'a', 'kv_usage', 0.6),
    p(0, 'a', 'generation_tokens_total', 100),
    p(1000, 'a', 'generation_tokens_total', 300),
    p(2000, 'a', 'generation_tokens_total', 500),
    p(0, 'b', 'generation_tokens_total', 1000),
    p(2000, 'b', 'generation_tokens_total', 40), // engine b restarted
    p(0, 'a', 'preemptions_total', 1),
    p(2000, 'a', 'preemptions_total', 4),
    p(0, 'a', 'prefix_queries_total', 0),
    p(2000, 'a', 'prefix_queries_total', 200),
    p(0, 'a', 'prefix_hits_total', 0),
    p(2000, 'a', 'prefix_hits_total', 50),
  ];
  const s = seriesSummary(points);
  assert.equal(s.peak_gpu_memory_mib, 3072);
  assert.equal(s.peak_gpu_memory_gib, 3);
  assert.equal(s.mean_gpu_util_pct, 75);
  assert.ok(Math.abs((s.mean_kv_usage ?? 0) - 0.4) < 1e-12);
  assert.equal(s.max_kv_usage, 0.6);
  assert.equal(s.generation_tokens_delta, 400 + 40);
  assert.equal(s.server_tokens_per_s, 200 + 20);
  assert.equal(s.preemptions_delta, 3);
  assert.equal(s.prefix_hit_rate, 0.25);
  assert.equal(s.prompt_tokens_delta, null);
  assert.equal(s.max_running, null);
  // A window keeps the nearest reading on either side of it: from 1500, source a counts
  // 1000 → 2000 (+200) and source b, read only at 0 and 2000, counts its restart (+40).
  assert.equal(seriesSummary(points, { from_ms: 1500 }).generation_tokens_delta, 200 + 40);
  // A window between two readings still has the delta of the readings around it.
  assert.equal(seriesSummary(points, { from_ms: 1200, to_ms: 1300 }).generation_tokens_delta, 200 + 40);
  assert.equal(seriesSummary(points, { from_ms: 1200, to_ms: 1300 }).peak_gpu_memory_mib, 3072);
  assert.equal(seriesSummary([]).peak_gpu_memory_mib, null);
  // Utilisation from the readings inside the window only: the one at 0 is before a window from
  // 500, and the one at 1000 after a window that ends at 900 (the idle time after a run).
  assert.equal(seriesSummary(points, { from_ms: 500, to_ms: 1000 }).mean_gpu_util_pct, 100);
  assert.equal(seriesSummary(points, { from_ms: 500, to_ms: 900 }).mean_gpu_util_pct, null);
  assert.equal(seriesSummary(points, { from_ms: 1500 }).mean_gpu_util_pct, null);
});
