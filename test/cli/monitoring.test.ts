/**
 * Monitoring beside a run: a failing or stalling /metrics never costs a record, and is
 * counted; servelab's exporter answers on --metrics-port. (That the simulator exposes every
 * metric the Grafana dashboard queries is checked in test/sim-server/mechanisms.test.ts.)
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { request } from 'undici';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { startFakeOpenAI, startSseServer } from '../helpers/misbehaving.js';
import '../helpers/node-warnings.js';

const dir = mkdtempSync(join(tmpdir(), 'servelab-mon-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('monitoring during runs', () => {
  it('keeps every record while the scraped /metrics stalls or fails, and counts the failures', async () => {
    const target = await startFakeOpenAI();
    let n = 0;
    const metrics = await startSseServer(() =>
      n++ % 2 === 0 ? { steps: [{ stall: true }] } : { status: 500, steps: ['boom'] },
    );
    try {
      const io = memoryIo({}, dir);
      const code = await main(
        [
          'run',
          '--url',
          target.baseUrl,
          '--requests',
          '12',
          '--concurrency',
          '2',
          '--no-db',
          '--scrape',
          `http://127.0.0.1:${metrics.port}/metrics`,
          '--scrape-interval',
          '0.05',
          '--out',
          'scrape-fail',
        ],
        io,
      );
      assert.equal(code, 0, io.err());
      const lines = readFileSync(join(dir, 'scrape-fail', 'requests.jsonl'), 'utf8')
        .trim()
        .split('\n');
      assert.equal(lines.length, 12);
      const report = JSON.parse(readFileSync(join(dir, 'scrape-fail', 'report.json'), 'utf8'));
      assert.equal(report.summary.requests.succeeded, 12);
      assert.ok(report.monitoring.scrape.failures >= 1, JSON.stringify(report.monitoring.scrape));
    } finally {
      await target.close();
      await metrics.close();
    }
  });

  it('serves servelab_* metrics on --metrics-port while the run goes on', async () => {
    const target = await startSseServer((req) =>
      req.path.startsWith('/v1/models')
        ? { headers: { 'content-type': 'application/json' }, steps: ['{"data":[{"id":"m"}]}'] }
        : {
            headers: { 'content-type': 'text/event-stream' },
            steps: [
              { delay_ms: 300 },
              'data: {"choices":[{"index":0,"delta":{"content":"x"},"finish_reason":"stop"}]}\n\n',
              'data: [DONE]\n\n',
            ],
          },
    );
    try {
      const io = memoryIo({}, dir);
      const running = main(
        [
          'run',
          '--url',
          target.baseUrl,
          '--requests',
          '6',
          '--concurrency',
          '1',
          '--no-db',
          '--no-scrape',
          '--metrics-port',
          '0',
        ],
        io,
      );
      let url: string | undefined;
      for (let i = 0; i < 200 && !url; i++) {
        url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(io.err())?.[1];
        if (!url) await new Promise((r) => setTimeout(r, 25));
      }
      assert.ok(url, io.err());
      const res = await request(`${url}/metrics`);
      const text = await res.body.text();
      assert.match(text, /servelab_requests_in_flight/);
      assert.match(text, /# TYPE servelab_requests_total counter/);
      assert.equal(await running, 0);
    } finally {
      await target.close();
    }
  });
});
