/**
 * @module test/monitor/deploy
 * The shipped deploy files: the Grafana dashboard has the promised panels, and every metric
 * name its queries use exists in servelab's exporter or in the simulator's name list; the
 * Prometheus config passes `promtool check config`.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createExporter } from '../../src/monitor/exporter.js';
import { parsePrometheusText } from '../../src/monitor/prom-parse.js';
import { SIM_METRIC_NAMES } from '../../src/monitor/sim-metric-names.js';
import { requireTool, toolSkip } from '../helpers/prometheus.js';

const DASHBOARD = new URL('../../deploy/grafana-dashboard.json', import.meta.url);
const PROM_CONFIG = fileURLToPath(new URL('../../deploy/prometheus.yml', import.meta.url));

interface Panel {
  title: string;
  type: string;
  datasource?: { uid?: string };
  targets?: { expr: string; refId: string }[];
}
const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as { schemaVersion: number; panels: Panel[] };

const PROMQL_KEYWORDS = new Set([
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'bool',
  'and',
  'or',
  'unless',
  'offset',
  'inf',
  'nan',
]);

/**
 * Metric names a PromQL expression selects: identifiers that are not functions, keywords,
 * label names (inside `{}` or `by (...)`), strings or durations.
 */
function promqlMetricNames(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  const names = new Set<string>();
  for (const m of stripped.matchAll(/(?<![\w.:$])[a-zA-Z_:][\w:]*/g)) {
    const rest = stripped.slice((m.index ?? 0) + m[0].length);
    if (/^\s*\(/.test(rest)) continue; // a function call
    if (PROMQL_KEYWORDS.has(m[0].toLowerCase())) continue;
    names.add(m[0]);
  }
  return [...names];
}

describe('deploy/grafana-dashboard.json', () => {
  it('extracts metric names from PromQL (the check below depends on it)', () => {
    assert.deepEqual(
      promqlMetricNames(
        'histogram_quantile(0.95, sum by (le) (rate(vllm:time_to_first_token_seconds_bucket{engine="0", x=~"a|b"}[$__rate_interval]))) / on (job) group_left up offset 5m',
      ),
      ['vllm:time_to_first_token_seconds_bucket', 'up'],
    );
    assert.deepEqual(promqlMetricNames('sum(rate(a_total[1m])) / sum(rate(b_total[1m])) * 1e3'), [
      'a_total',
      'b_total',
    ]);
  });

  it('has schemaVersion ≥ 36 and the promised panels, all on the datasource variable', () => {
    assert.ok(dashboard.schemaVersion >= 36);
    const titles = dashboard.panels.map((p) => p.title);
    for (const want of [
      /TTFT p50 \/ p95 \/ p99/,
      /E2E/,
      /Tokens\/s/,
      /in flight and queued/,
      /KV/,
      /GPU memory/,
      /GPU utilisation/,
    ])
      assert.ok(
        titles.some((t) => want.test(t)),
        `no panel matches ${want}`,
      );
    for (const p of dashboard.panels) {
      // Grafana's variable syntax, not a JS template.
      assert.equal(p.datasource?.uid, '$' + '{datasource}', p.title);
      assert.ok((p.targets ?? []).length > 0, p.title);
    }
  });

  it("queries only names that servelab's exporter or the simulator expose", async () => {
    const exposition = parsePrometheusText(await createExporter().registry.metrics());
    const known = new Set<string>([...exposition.samples.map((s) => s.name), ...exposition.families.keys()]);
    for (const name of SIM_METRIC_NAMES) {
      known.add(name);
      // A histogram family is queried through its series.
      for (const suf of ['_bucket', '_sum', '_count']) known.add(name + suf);
    }
    const used = new Set<string>();
    for (const p of dashboard.panels)
      for (const t of p.targets ?? []) for (const n of promqlMetricNames(t.expr)) used.add(n);
    const unknown = [...used].filter((n) => !known.has(n));
    assert.deepEqual(unknown, []);
    // Both sides are really queried.
    assert.ok([...used].some((n) => n.startsWith('servelab_')));
    assert.ok([...used].some((n) => n.startsWith('vllm:')));
    assert.ok(used.has('DCGM_FI_DEV_FB_USED') && used.has('DCGM_FI_DEV_GPU_UTIL'));
  });
});

describe('deploy/prometheus.yml', () => {
  it('passes promtool check config', { skip: toolSkip('promtool') }, () => {
    const r = spawnSync(requireTool('promtool'), ['check', 'config', PROM_CONFIG], { encoding: 'utf8' });
    assert.equal(r.status, 0, `${r.stdout}${r.stderr}`);
  });
});
