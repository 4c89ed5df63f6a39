/**
 * @module test/monitor/prometheus-sim
 * End to end with a real Prometheus (Debian's package): it scrapes `servelab sim` and
 * servelab's own exporter while a run drives load through the measurement pipeline, and the
 * series are read back through Prometheus's HTTP API.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createExporter, type MetricsServer, startMetricsServer } from '../../src/monitor/exporter.js';
import { measure } from '../../src/pipeline/measure-settings.js';
import { commonSettings, targetSettings } from '../../src/pipeline/settings.js';
import { type SimServer, startSimServer } from '../../src/sim/server/index.js';
import { type PrometheusHandle, startPrometheus, toolSkip } from '../helpers/prometheus.js';

const common = commonSettings({
  load: { concurrency: 4, requests: 24, seed: 1 },
  workload: { inputLen: '256', outputLen: '96' },
  generation: { ignoreEos: true },
});

describe('real Prometheus scraping the simulator and the exporter during a run', {
  skip: toolSkip('prometheus'),
}, () => {
  let prom: PrometheusHandle | undefined;
  let sim: SimServer;
  let exporterServer: MetricsServer;
  const exporter = createExporter();

  before(async () => {
    sim = await startSimServer({ model: 'llama-3.1-8b', gpu: 'a100-40gb', port: 0 });
    exporterServer = await startMetricsServer(exporter.registry, { port: 0 });
    const target = (u: string) => new URL(u).host;
    prom = await startPrometheus(
      [
        'global:',
        '  scrape_interval: 250ms',
        '  scrape_timeout: 200ms',
        'scrape_configs:',
        '  - job_name: engine',
        `    static_configs: [{ targets: ['${target(sim.url)}'] }]`,
        '  - job_name: servelab',
        `    static_configs: [{ targets: ['${target(exporterServer.url)}'] }]`,
        '',
      ].join('\n'),
    );
  });

  after(async () => {
    await prom?.stop();
    await exporterServer?.close();
    await sim?.close();
  });

  it('sees the engine busy and servelab counting the same requests', async () => {
    assert.ok(prom);
    const m = await measure(
      {
        target: targetSettings(`${sim.url}/v1`, { timeoutS: 60 }),
        common,
      },
      {
        env: {},
        version: 'test',
        observers: [exporter.observer],
        monitoring: { scrape: 'auto', scrapeIntervalMs: 250, metricsPort: null },
      },
    );
    assert.equal(m.summary.requests.succeeded, 24);
    const counted = await prom.waitFor(
      'sum(servelab_requests_total)',
      (r) => r.length === 1 && r[0].value[1] === '24',
      20_000,
    );
    assert.equal(counted[0].metric.job ?? 'servelab', 'servelab');
    const gen = await prom.waitFor(
      'sum(vllm:generation_tokens_total{job="engine"})',
      (r) => r.length === 1 && Number(r[0].value[1]) >= 24 * 96,
      20_000,
    );
    assert.equal(
      Number(gen[0].value[1]),
      24 * 96,
      'the engine generated exactly what the client was told in usage',
    );
    const busy = await prom.query('max_over_time(vllm:num_requests_running{job="engine"}[5m])');
    assert.ok(Number(busy[0]?.value[1]) >= 2, JSON.stringify(busy));
    const ttft = await prom.query('sum(vllm:time_to_first_token_seconds_count{job="engine"})');
    assert.equal(Number(ttft[0]?.value[1]), 24);
    // servelab's own scrape of the simulator saw the same generation counter move.
    assert.equal(m.report.monitoring?.server?.generation_tokens_delta, 24 * 96);
  });
});
