/**
 * When the simulator itself cannot keep up with real time it says so: its
 * `servelab_sim_behind_total` counter rises on `/metrics`, the scrape maps it to the
 * `sim_behind_total` series, and the run's validity names it (`sim_behind`), so a late simulator
 * is never read as a slow engine. A run that keeps up (here: virtual time, which cannot lag) has
 * the series at 0 and no such reason.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SeriesPoint } from '../../src/analysis/loaded-run.js';
import { validityReasons } from '../../src/analysis/validity.js';
import { normalize } from '../../src/monitor/maps.js';
import { parsePrometheusText } from '../../src/monitor/prom-parse.js';
import { simEndpoint } from '../../src/pipeline/endpoint.js';
import { measureOn } from '../../src/pipeline/measure.js';
import { RealClock } from '../../src/runtime/clock.js';
import { startSimServer } from '../../src/sim/server/index.js';
import { buildWorkload } from '../../src/workload/index.js';
import { handRecord, handRun } from '../diagnose/helpers.js';
import { http, stream } from './helpers.js';

/** A wall clock whose sleeps overshoot by `lateMs`: a simulator on a starved core. */
class SlowClock extends RealClock {
  constructor(private readonly lateMs: number) {
    super();
  }
  override sleepUntil(atMs: number, signal?: AbortSignal): Promise<void> {
    return super.sleepUntil(atMs + this.lateMs, signal);
  }
}

/** The vocabulary reading of one scrape of `url`/metrics, as the scraper makes it. */
async function scrape(url: string): Promise<Record<string, number | undefined>> {
  const r = await http(`${url}/metrics`, 'GET');
  assert.equal(r.status, 200);
  return normalize(parsePrometheusText(r.text).samples);
}

describe('the simulator falling behind', () => {
  it('counts late steps on /metrics and the validity verdict names it', async (t) => {
    const sim = await startSimServer(
      { model: 'llama-3.1-8b', gpu: 'h100', timeScale: 1 },
      { clock: new SlowClock(30) },
    );
    t.after(() => sim.close());
    const before = await scrape(sim.url);
    assert.equal(before.sim_behind_total, 0, 'exposed from the start, at 0');
    const res = await stream(`${sim.url}/v1/chat/completions`, {
      model: sim.modelId,
      messages: [{ role: 'user', content: 'hello there' }],
      max_tokens: 4,
      ignore_eos: true,
      stream: true,
    });
    assert.equal(res.data.at(-1), '[DONE]', 'the request still completes');
    const after = await scrape(sim.url);
    // Every sleep overshoots by 30 ms, so the steps that slept are late. A step that was already
    // due when computed (a starved core) is handed out without a sleep, so "every step" would
    // depend on the machine's load: the counter must rise and agree with the driver's own count.
    const behind = after.sim_behind_total ?? 0;
    assert.ok(behind >= 1, `late steps counted: ${behind}`);
    assert.equal(behind, sim.driverStats().behind, '/metrics and the driver agree');
    const metrics = (await http(`${sim.url}/metrics`, 'GET')).text;
    const bucket = (le: string) => {
      const line = metrics
        .split('\n')
        .find((l) => l.startsWith('servelab_sim_emit_lag_seconds_bucket{') && l.includes(`le="${le}"`));
      return Number(line?.split(' ').at(-1));
    };
    assert.ok(bucket('+Inf') - bucket('0.02') >= 1, 'the late steps sit above 20 ms in the lag histogram');

    const series: SeriesPoint[] = [before, after].map((v, i) => ({
      t_ms: i * 1000,
      source: sim.url,
      name: 'sim_behind_total',
      value: v.sim_behind_total as number,
    }));
    const run = handRun('late-sim', [handRecord('a', 0, 20, 10, 4)], {}, { series });
    const reasons = validityReasons(run).filter((r) => r.code === 'sim_behind');
    assert.equal(reasons.length, 1);
    assert.match(reasons[0].message, /servelab_sim_behind_total/);
    assert.match(reasons[0].message, /not the engine/);
  });

  it('a run that keeps up has the counter at 0 and no sim_behind reason', async () => {
    const endpoint = await simEndpoint({ model: 'llama-3.1-8b', gpu: 'h100' }, { virtual: true });
    try {
      const workload = await buildWorkload({
        seed: 1,
        count: 40,
        model: 'llama-3.1-8b',
        inputLen: '64',
        outputLen: '32',
      });
      const m = await measureOn(
        endpoint,
        {
          plan: {
            label: null,
            specs: workload.specs,
            load: { kind: 'closed', concurrency: 8, requests: workload.specs.length },
          },
          client: {
            endpoint: 'chat',
            model: endpoint.sim?.modelId ?? 'llama-3.1-8b',
            stream: true,
            ignoreEos: true,
          },
          slo: null,
          thresholds: [],
          config: {},
        },
        {
          env: {},
          version: 'test',
          monitoring: { scrape: 'auto', scrapeIntervalMs: 100, metricsPort: null },
        },
      );
      const behind = m.series.filter((p) => p.name === 'sim_behind_total');
      assert.ok(behind.length >= 2, 'the counter is scraped');
      assert.ok(behind.every((p) => p.value === 0));
      assert.ok(!m.validity.some((r) => r.code === 'sim_behind'), JSON.stringify(m.validity));
    } finally {
      await endpoint.close();
    }
  });
});
