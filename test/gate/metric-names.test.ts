/**
 * The names check 9.1 diffs: the metric names of PromQL expressions (functions, label matchers,
 * grouping labels and `$__rate_interval` are not names), and the set servelab relies on (the
 * monitor maps' and the shipped dashboard's).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dashboardNames, promqlNames, usedMetricNames } from '../../src/gate/checks/metrics.js';
import { MAPPED_NAMES } from '../../src/monitor/maps.js';

test('PromQL: metric names only', () => {
  assert.deepEqual(
    promqlNames(
      'histogram_quantile(0.99, sum by (le) (rate(vllm:time_to_first_token_seconds_bucket{model_name="m"}[$__rate_interval])))',
    ),
    ['vllm:time_to_first_token_seconds_bucket'],
  );
  assert.deepEqual(
    promqlNames(
      'sum(rate(vllm:prefix_cache_hits_total[5m])) / sum(rate(vllm:prefix_cache_queries_total[5m]))',
    ).sort(),
    ['vllm:prefix_cache_hits_total', 'vllm:prefix_cache_queries_total'],
  );
  assert.deepEqual(promqlNames('sum by (finished_reason) (rate(vllm:request_success_total[1m]))'), [
    'vllm:request_success_total',
  ]);
  assert.deepEqual(dashboardNames({ panels: [{ targets: [{ expr: 'DCGM_FI_DEV_FB_USED' }] }] }), [
    'DCGM_FI_DEV_FB_USED',
  ]);
});

test('the names servelab relies on: every mapped name and the dashboard’s engine series', () => {
  const used = new Set(usedMetricNames());
  for (const n of MAPPED_NAMES) assert.ok(used.has(n), n);
  // from deploy/grafana-dashboard.json, not in any map
  for (const n of ['vllm:time_to_first_token_seconds_bucket', 'vllm:e2e_request_latency_seconds_bucket'])
    assert.ok(used.has(n), n);
  assert.ok(![...used].some((n) => /^(le|by|sum|rate)$/.test(n)));
});
