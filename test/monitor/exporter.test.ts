/**
 * @module test/monitor/exporter
 * servelab's exporter: the observer hooks fill the `servelab_*` series with the right values
 * (latencies and tokens of exactly the requests the run summary counts), `/metrics` serves them
 * over loopback on port 0, and `promtool check metrics` finds nothing.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { get } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { summarize } from '../../src/analysis/summary.js';
import { createExporter, type MetricsServer, startMetricsServer } from '../../src/monitor/exporter.js';
import { parsePrometheusText, type Sample } from '../../src/monitor/prom-parse.js';
import { emptyRecord, type RequestRecord } from '../../src/record/types.js';
import { requireTool, toolSkip } from '../helpers/prometheus.js';

/** Drive one request through the observer hooks the way the runner does. */
function playRequest(
  obs: ReturnType<typeof createExporter>['observer'],
  id: string,
  r: Partial<RequestRecord> & { chunks?: number[] },
  lateness_ms: number | null = null,
): RequestRecord {
  const rec = emptyRecord({ id, planned_id: id, attempt: 1, phase: r.phase ?? 'measure', index: 0 });
  rec.sent_at_ms = r.sent_at_ms ?? 0;
  obs.onSent?.(rec, lateness_ms);
  for (const t of r.chunks ?? []) {
    rec.chunk_times_ms.push(t);
    rec.chunk_kinds.push('c');
    obs.onChunk?.(rec);
  }
  Object.assign(rec, r);
  obs.onRecord?.(rec);
  return rec;
}

function httpGet(url: string): Promise<{ status: number; type: string; body: string }> {
  return new Promise((resolve, reject) => {
    get(url, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        body += c;
      });
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), body }),
      );
    }).on('error', reject);
  });
}

const one = (samples: Sample[], name: string, labels: Record<string, string> = {}) => {
  const hits = samples.filter(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
  assert.equal(hits.length, 1, `${name} ${JSON.stringify(labels)}`);
  return hits[0].value;
};

describe('servelab exporter', () => {
  const exp = createExporter();
  const played: RequestRecord[] = [];
  let server: MetricsServer;
  const logged: string[] = [];
  before(async () => {
    const obs = exp.observer;
    obs.onRunStart?.({ started_at_unix_ms: 0, planned: 5 });
    played.push(
      playRequest(
        obs,
        'a',
        {
          sent_at_ms: 100,
          first_content_at_ms: 150,
          end_at_ms: 400,
          outcome: 'ok',
          usage: { prompt_tokens: 20, completion_tokens: 3, total_tokens: 23 },
          chunks: [150, 160, 180],
        },
        0.5,
      ),
    );
    // A failure with a full set of times: counted by outcome, kept out of every latency.
    played.push(
      playRequest(
        obs,
        'b',
        {
          sent_at_ms: 200,
          first_content_at_ms: 205,
          end_at_ms: 210,
          outcome: 'http_error',
          http_status: 500,
          chunks: [205, 207],
        },
        3,
      ),
    );
    // A successful warm-up request: counted by outcome, not in latencies or tokens.
    played.push(
      playRequest(obs, 'w', {
        phase: 'warmup',
        sent_at_ms: 0,
        first_content_at_ms: 20,
        end_at_ms: 90,
        outcome: 'ok',
        usage: { prompt_tokens: 7, completion_tokens: 2, total_tokens: 9 },
        chunks: [20, 90],
      }),
    );
    // Sent but not finished: stays in flight.
    obs.onSent?.(emptyRecord({ id: 'c', planned_id: 'c', attempt: 1, phase: 'measure', index: 2 }), null);
    server = await startMetricsServer(exp.registry, { port: 0, log: (l) => logged.push(l) });
  });
  after(() => server.close());

  it('prints the listening line with the bound port', () => {
    assert.ok(server.port > 0);
    assert.deepEqual(logged, [`listening on http://127.0.0.1:${server.port}`]);
    assert.equal(server.url, `http://127.0.0.1:${server.port}`);
  });

  it('serves the run on /metrics with the right values', async () => {
    const res = await httpGet(`${server.url}/metrics`);
    assert.equal(res.status, 200);
    assert.match(res.type, /^text\/plain/);
    const { samples, families, errors } = parsePrometheusText(res.body);
    assert.deepEqual(errors, []);
    // Every finished attempt is counted by outcome, warm-up and failures included.
    assert.equal(one(samples, 'servelab_requests_total', { outcome: 'ok' }), 2);
    assert.equal(one(samples, 'servelab_requests_total', { outcome: 'http_error' }), 1);
    assert.equal(one(samples, 'servelab_requests_total', { outcome: 'timeout' }), 0);
    assert.equal(one(samples, 'servelab_requests_in_flight'), 1);
    // Latencies: only request a, the one successful measured request (the failed b and the
    // warm-up w have every time set and still add nothing).
    assert.equal(one(samples, 'servelab_time_to_first_token_seconds_count'), 1);
    assert.equal(one(samples, 'servelab_time_to_first_token_seconds_sum'), 0.05);
    assert.equal(one(samples, 'servelab_time_to_first_token_seconds_bucket', { le: '0.04' }), 0);
    assert.equal(one(samples, 'servelab_time_to_first_token_seconds_bucket', { le: '0.06' }), 1);
    assert.equal(one(samples, 'servelab_e2e_latency_seconds_count'), 1);
    assert.ok(Math.abs(one(samples, 'servelab_e2e_latency_seconds_sum') - 0.3) < 1e-9);
    assert.equal(one(samples, 'servelab_chunk_gap_seconds_count'), 2);
    assert.ok(Math.abs(one(samples, 'servelab_chunk_gap_seconds_sum') - 0.03) < 1e-9);
    assert.equal(one(samples, 'servelab_generator_lateness_seconds_count'), 2);
    assert.equal(one(samples, 'servelab_generator_lateness_seconds_sum'), 0.0035);
    // Tokens come from usage of counted requests only: w's usage adds nothing.
    assert.equal(one(samples, 'servelab_output_tokens_total'), 3);
    assert.equal(one(samples, 'servelab_prompt_tokens_total'), 20);
    // The same requests as the run summary's latency distributions.
    const s = summarize(played);
    assert.equal(s.ttft_ms.n, one(samples, 'servelab_time_to_first_token_seconds_count'));
    assert.equal(s.e2e_ms.n, one(samples, 'servelab_e2e_latency_seconds_count'));
    assert.equal(s.itl_ms.n, one(samples, 'servelab_chunk_gap_seconds_count'));
    // HELP says what is observed.
    assert.match(res.body, /# HELP servelab_e2e_latency_seconds .*successful measured requests only/);
    // Only servelab's own families: no default process_*/nodejs_* metrics.
    for (const name of families.keys()) assert.match(name, /^servelab_/);
  });

  it('answers 404 off /metrics', async () => {
    assert.equal((await httpGet(`${server.url}/`)).status, 404);
  });

  it('onRunEnd resets in-flight', async () => {
    const e = createExporter();
    e.observer.onSent?.(
      emptyRecord({ id: 'x', planned_id: 'x', attempt: 1, phase: 'measure', index: 0 }),
      null,
    );
    e.observer.onRunEnd?.('interrupted');
    const { samples } = parsePrometheusText(await e.registry.metrics());
    assert.equal(one(samples, 'servelab_requests_in_flight'), 0);
  });

  it('passes promtool check metrics with no findings', { skip: toolSkip('promtool') }, async () => {
    const promtool = requireTool('promtool');
    const body = (await httpGet(`${server.url}/metrics`)).body;
    const r = spawnSync(promtool, ['check', 'metrics'], { input: body, encoding: 'utf8' });
    assert.equal(`${r.stdout}${r.stderr}`.trim(), '');
    assert.equal(r.status, 0);
    // The check is live: a counter without _total is flagged.
    const bad = spawnSync(promtool, ['check', 'metrics'], {
      input: '# HELP x_count_bad c\n# TYPE x_count_bad counter\nx_count_bad 1\n',
      encoding: 'utf8',
    });
    assert.notEqual(bad.status, 0);
  });
});
