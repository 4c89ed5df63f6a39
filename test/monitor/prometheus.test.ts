/**
 * @module test/monitor/prometheus
 * Integration with a real Prometheus (Debian's package): it loads the shipped
 * deploy/prometheus.yml (targets pointed at loopback ports), scrapes servelab's exporter and an
 * engine stand-in, and every query of the shipped Grafana dashboard evaluates without error.
 *
 * The engine stand-in serves the vLLM v1 + DCGM fixtures; once the simulator exists, the lead
 * can point the `engine` job at `servelab sim` instead.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { createExporter, type MetricsServer, startMetricsServer } from '../../src/monitor/exporter.js';
import { emptyRecord } from '../../src/record/types.js';
import { type PrometheusHandle, startPrometheus, toolSkip } from '../helpers/prometheus.js';

const read = (rel: string) => readFileSync(new URL(rel, import.meta.url), 'utf8');

interface ScrapeConfig {
  job_name: string;
  static_configs: { targets: string[] }[];
}

describe('real Prometheus', { skip: toolSkip('prometheus') }, () => {
  let prom: PrometheusHandle | undefined;
  let exporter: MetricsServer;
  let engine: Server;

  before(async () => {
    const exp = createExporter();
    for (const id of ['a', 'b']) {
      const rec = emptyRecord({ id, planned_id: id, attempt: 1, phase: 'measure', index: 0 });
      rec.sent_at_ms = 10;
      exp.observer.onSent?.(rec, 0.2);
      Object.assign(rec, {
        first_content_at_ms: 60,
        end_at_ms: 300,
        outcome: 'ok',
        usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
      });
      exp.observer.onRecord?.(rec);
    }
    exporter = await startMetricsServer(exp.registry, { port: 0 });
    const body = `${read('../fixtures/metrics/vllm-v1.prom')}\n${read('../fixtures/metrics/dcgm.prom')}`;
    engine = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' });
      res.end(body);
    });
    await new Promise<void>((r) => engine.listen(0, '127.0.0.1', r));
    const enginePort = (engine.address() as AddressInfo).port;

    // The shipped config, with scrape targets moved to our loopback ports and a 1 s interval.
    const cfg = parseYaml(read('../../deploy/prometheus.yml')) as {
      global: Record<string, string>;
      scrape_configs: ScrapeConfig[];
    };
    cfg.global.scrape_interval = '1s';
    const targets: Record<string, string> = {
      engine: `127.0.0.1:${enginePort}`,
      servelab: `127.0.0.1:${exporter.port}`,
    };
    cfg.scrape_configs = cfg.scrape_configs.filter((s) => s.job_name in targets);
    assert.equal(cfg.scrape_configs.length, 2, 'deploy/prometheus.yml has engine and servelab jobs');
    for (const s of cfg.scrape_configs) s.static_configs = [{ targets: [targets[s.job_name]] }];
    prom = await startPrometheus(stringifyYaml(cfg));
  });

  after(async () => {
    await prom?.stop();
    await exporter?.close();
    await new Promise<void>((r) => (engine ? engine.close(() => r()) : r()));
  });

  it('scrapes servelab and the engine, and reads them back through the HTTP API', async () => {
    assert.ok(prom);
    const ok = await prom.waitFor('servelab_requests_total{outcome="ok"}', (r) => r.length === 1);
    assert.equal(ok[0].value[1], '2');
    assert.equal(ok[0].metric.job, 'servelab');
    const running = await prom.waitFor('sum(vllm:num_requests_running)', (r) => r.length === 1);
    assert.equal(running[0].value[1], '21');
    // vLLM's own `engine` label survives (the config must not add a clashing target label).
    const kv = await prom.query('vllm:kv_cache_usage_perc');
    assert.deepEqual(kv.map((v) => v.metric.engine).sort(), ['0', '1']);
    const up = await prom.query('up');
    assert.deepEqual(up.map((v) => [v.metric.job, v.value[1]]).sort(), [
      ['engine', '1'],
      ['servelab', '1'],
    ]);
  });

  it('evaluates every query of the shipped Grafana dashboard', async () => {
    assert.ok(prom);
    const dash = JSON.parse(read('../../deploy/grafana-dashboard.json')) as {
      panels: { title: string; targets: { expr: string }[] }[];
    };
    let n = 0;
    for (const p of dash.panels)
      for (const t of p.targets) {
        // Grafana substitutes $__rate_interval; anything else left would be a dashboard bug.
        const expr = t.expr.replaceAll('$__rate_interval', '1m');
        assert.doesNotMatch(expr, /\$/, p.title);
        await prom.query(expr); // rejects on a PromQL error
        n++;
      }
    assert.ok(n >= 10);
  });
});
