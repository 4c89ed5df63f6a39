/**
 * @module test/monitor/prom-parse
 * The exposition parser on hand-written fixtures of every engine servelab reads, plus the
 * format's corners: labelled histograms keep every label and their _count/_sum, escapes,
 * NaN/±Inf, timestamps, untyped lines and bad lines.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { parsePrometheusText, type Sample, seriesKey } from '../../src/monitor/prom-parse.js';

const fixture = (name: string) =>
  readFileSync(new URL(`../fixtures/metrics/${name}`, import.meta.url), 'utf8');
const find = (samples: Sample[], name: string, labels: Record<string, string> = {}) =>
  samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));

describe('parsePrometheusText', () => {
  it('keeps every label on vLLM v1 histograms, with _count and _sum in the family', () => {
    const { samples, families, errors } = parsePrometheusText(fixture('vllm-v1.prom'));
    assert.deepEqual(errors, []);
    const ttft = families.get('vllm:time_to_first_token_seconds');
    assert.ok(ttft);
    assert.equal(ttft.type, 'histogram');
    assert.equal(ttft.help, 'Histogram of time to first token in seconds.');
    const buckets0 = find(samples, 'vllm:time_to_first_token_seconds_bucket', { engine: '0' });
    const buckets1 = find(samples, 'vllm:time_to_first_token_seconds_bucket', { engine: '1' });
    assert.equal(buckets0.length, 14);
    assert.equal(buckets1.length, 3);
    assert.deepEqual(buckets0[13].labels, { engine: '0', le: '+Inf', model_name: 'Qwen/Qwen3-8B' });
    assert.equal(buckets0[13].family, 'vllm:time_to_first_token_seconds');
    const count = find(samples, 'vllm:time_to_first_token_seconds_count', { engine: '1' });
    assert.equal(count.length, 1);
    assert.equal(count[0].value, 30);
    assert.equal(count[0].family, 'vllm:time_to_first_token_seconds');
    assert.equal(count[0].type, 'histogram');
    const sum = find(samples, 'vllm:time_to_first_token_seconds_sum', { engine: '0' });
    assert.equal(sum[0].value, 7.25);
    // Two label sets stay two series, not one merged histogram.
    assert.equal(ttft.samples.filter((s) => s.name.endsWith('_count')).length, 2);
    // prometheus_client writes _created as its own gauge family; it must not swallow the histogram.
    assert.equal(families.get('vllm:time_to_first_token_seconds_created')?.type, 'gauge');
  });

  it('reads counters with _total and colons in names', () => {
    const { samples, families } = parsePrometheusText(fixture('vllm-v1.prom'));
    assert.equal(families.get('vllm:num_preemptions_total')?.type, 'counter');
    assert.deepEqual(
      find(samples, 'vllm:request_success_total', { finished_reason: 'length' }).map((s) => s.value),
      [8],
    );
    assert.equal(find(samples, 'vllm:cache_config_info')[0].labels.num_gpu_blocks, '27404');
    assert.equal(find(samples, 'vllm:num_preemptions_created')[0].value, 1.7644032e9);
  });

  it('attaches suffixed samples to a family declared by its base name (OpenMetrics style)', () => {
    const text = [
      '# TYPE vllm:num_preemptions counter',
      'vllm:num_preemptions_total{engine="0"} 3',
      'vllm:num_preemptions_created{engine="0"} 1.7e9',
      '# TYPE foo summary',
      'foo{quantile="0.5"} 1',
      'foo_sum 10',
      'foo_count 4',
      '# EOF',
    ].join('\n');
    const { samples, errors } = parsePrometheusText(text);
    assert.deepEqual(errors, []);
    assert.deepEqual(
      samples.map((s) => [s.name, s.family, s.type]),
      [
        ['vllm:num_preemptions_total', 'vllm:num_preemptions', 'counter'],
        ['vllm:num_preemptions_created', 'vllm:num_preemptions', 'counter'],
        ['foo', 'foo', 'summary'],
        ['foo_sum', 'foo', 'summary'],
        ['foo_count', 'foo', 'summary'],
      ],
    );
  });

  for (const [file, name] of [
    ['vllm-v1.prom', 'vllm:kv_cache_usage_perc'],
    ['vllm-v0.prom', 'vllm:gpu_cache_usage_perc'],
    ['sglang.prom', 'sglang:token_usage'],
    ['llamacpp.prom', 'llamacpp:tokens_predicted_total'],
    ['dcgm.prom', 'DCGM_FI_DEV_FB_USED'],
  ] as const) {
    it(`parses ${file} without errors, every sample in a declared family`, () => {
      const text = fixture(file);
      const r = parsePrometheusText(text);
      assert.deepEqual(r.errors, []);
      assert.equal(r.families.size, text.split('\n').filter((l) => l.startsWith('# TYPE ')).length);
      assert.equal(r.samples.length, text.split('\n').filter((l) => l !== '' && !l.startsWith('#')).length);
      for (const s of r.samples) assert.notEqual(s.type, 'untyped', s.name);
      assert.ok(find(r.samples, name).length >= 1);
      for (const s of r.samples) assert.ok(Number.isFinite(s.value), `${s.name} is finite`);
    });
  }

  it('keeps SGLang labels and DCGM label values with dots, dashes and capitals', () => {
    const sg = parsePrometheusText(fixture('sglang.prom')).samples;
    assert.deepEqual(find(sg, 'sglang:realtime_tokens_total', { mode: 'decode' })[0].labels, {
      mode: 'decode',
      model_name: 'Qwen/Qwen3-8B',
    });
    const dcgm = parsePrometheusText(fixture('dcgm.prom')).samples;
    const used = find(dcgm, 'DCGM_FI_DEV_FB_USED', { gpu: '1' });
    assert.equal(used[0].value, 72829);
    assert.equal(used[0].labels.DCGM_FI_DRIVER_VERSION, '550.90.07');
    assert.equal(used[0].labels.modelName, 'NVIDIA H100 80GB HBM3');
  });

  it('handles escapes, NaN/±Inf, timestamps, untyped lines and reports bad lines', () => {
    const { samples, families, errors } = parsePrometheusText(fixture('edge-cases.prom'));
    const weird = find(samples, 'weird_help')[0];
    assert.deepEqual(weird.labels, { path: 'C:\\temp', quote: 'say "hi"', nl: 'line1\nline2', empty: '' });
    assert.equal(families.get('weird_help')?.help, 'Help with a backslash \\ and a newline \n inside.');
    assert.deepEqual(
      find(samples, 'untyped_metric').map((s) => [s.value, s.type, s.labels.instance]),
      [
        [42, 'untyped', undefined],
        [-0.035, 'untyped', 'b'],
      ],
    );
    assert.ok(Number.isNaN(find(samples, 'special_values', { kind: 'nan' })[0].value));
    assert.equal(find(samples, 'special_values', { kind: 'pos' })[0].value, Number.POSITIVE_INFINITY);
    assert.equal(find(samples, 'special_values', { kind: 'neg' })[0].value, Number.NEGATIVE_INFINITY);
    const ts = find(samples, 'with_timestamp')[0];
    assert.equal(ts.value, 17);
    assert.equal(ts.timestamp_ms, 1764403200000);
    assert.equal(find(samples, 'untyped_metric')[0].timestamp_ms, undefined);
    assert.deepEqual(find(samples, 'trailing_comma')[0].labels, { a: '1' });
    assert.deepEqual(find(samples, 'spaced_labels')[0].labels, { a: 'x', b: 'y' });
    assert.equal(find(samples, 'spaced_labels')[0].value, 5);
    assert.equal(find(samples, 'rpc_duration_seconds_count')[0].family, 'rpc_duration_seconds');
    assert.equal(find(samples, 'rpc_duration_seconds', { quantile: '0.99' })[0].value, 0.2);
    // The three broken lines are reported by line number; the good lines around them survive.
    assert.deepEqual(
      errors.map((e) => e.line),
      [19, 20, 21],
    );
    assert.equal(find(samples, 'bad_lines').length, 0);
  });

  it('rejects duplicate labels and accepts CRLF line ends', () => {
    const r = parsePrometheusText('a{x="1",x="2"} 1\r\nb 2\r\n');
    assert.equal(r.errors.length, 1);
    assert.match(r.errors[0].message, /duplicate label x/);
    assert.deepEqual(
      r.samples.map((s) => [s.name, s.value]),
      [['b', 2]],
    );
  });

  it('only= parses just the named series and keeps their families', () => {
    const only = new Set(['vllm:num_requests_running', 'vllm:time_to_first_token_seconds_count']);
    const { samples, families, errors } = parsePrometheusText(fixture('vllm-v1.prom'), { only });
    assert.deepEqual(errors, []);
    assert.deepEqual(
      samples.map((s) => [s.name, s.labels.engine, s.type]),
      [
        ['vllm:num_requests_running', '0', 'gauge'],
        ['vllm:num_requests_running', '1', 'gauge'],
        ['vllm:time_to_first_token_seconds_count', '0', 'histogram'],
        ['vllm:time_to_first_token_seconds_count', '1', 'histogram'],
      ],
    );
    assert.equal(families.get('vllm:kv_cache_usage_perc')?.samples.length, 0);
  });

  it('seriesKey round-trips escapes and sorts labels', () => {
    const labels = { b: 'q"\\\n', a: '1' };
    const key = seriesKey('m', labels);
    assert.equal(key, 'm{a="1",b="q\\"\\\\\\n"}');
    const back = parsePrometheusText(`${key} 1\n`).samples[0];
    assert.deepEqual(back.labels, labels);
  });
});
