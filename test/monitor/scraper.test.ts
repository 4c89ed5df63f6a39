/**
 * @module test/monitor/scraper
 * The scraper against a real loopback `/metrics` that succeeds, fails with 500, answers slowly
 * and hangs: it keeps scraping, counts each kind, and never blocks other I/O. Timing-free parts
 * (alignment to the run clock, overlap skipping, late results) run on a VirtualClock.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { UsageError } from '../../src/core/errors.js';
import {
  defaultMetricsUrl,
  type GetFn,
  redactUrl,
  type ScrapePoint,
  type ScraperOptions,
  startScraper,
} from '../../src/monitor/scraper.js';
import { RealClock, VirtualClock } from '../../src/runtime/clock.js';

const VLLM = readFileSync(new URL('../fixtures/metrics/vllm-v1.prom', import.meta.url), 'utf8');

/** A vLLM-like /metrics whose behaviour per request number is scripted. */
function scriptedServer(script: (n: number) => 'ok' | 'fail' | 'slow' | 'hang') {
  let n = 0;
  const hanging = new Set<ServerResponse>();
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (req.url === '/ping') {
      res.end(`hanging=${hanging.size}`);
      return;
    }
    n++;
    const mode = script(n);
    // generation_tokens_total grows by 100 per request so the token rate is non-zero.
    const body = VLLM.replace(
      'vllm:generation_tokens_total{engine="1",model_name="Qwen/Qwen3-8B"} 3000.0',
      `vllm:generation_tokens_total{engine="1",model_name="Qwen/Qwen3-8B"} ${3000 + 100 * n}`,
    );
    if (mode === 'fail') {
      res.writeHead(500).end('boom');
    } else if (mode === 'slow') {
      setTimeout(() => res.end(body), 40);
    } else if (mode === 'hang') {
      hanging.add(res);
      res.on('close', () => hanging.delete(res));
    } else res.end(body);
  });
  return {
    server,
    requests: () => n,
    hanging: () => hanging.size,
    listen: () =>
      new Promise<string>((r) =>
        server.listen(0, '127.0.0.1', () => r(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
      ),
    close: () =>
      new Promise<void>((r) => {
        for (const res of hanging) res.destroy();
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

describe('startScraper over loopback', () => {
  // Requests 1–2 succeed, 3–4 fail, 5 is slow, 6–7 hang past the timeout, then all succeed.
  const srv = scriptedServer((n) =>
    n <= 2 ? 'ok' : n <= 4 ? 'fail' : n === 5 ? 'slow' : n <= 7 ? 'hang' : 'ok',
  );
  let base = '';
  before(async () => {
    base = await srv.listen();
  });
  after(() => srv.close());

  it('keeps going through failures and hangs, counts them, and never blocks other I/O', async () => {
    const points: ScrapePoint[] = [];
    let pingedWhileHanging = '';
    let onHang = () => {};
    const hangSeen = new Promise<void>((r) => {
      onHang = r;
    });
    const poll = setInterval(() => {
      if (srv.hanging() > 0) onHang();
    }, 5);
    const s = startScraper({
      urls: [`${base}/metrics`],
      clock: new RealClock(),
      intervalMs: 300,
      timeoutMs: 250,
      slowMs: 20,
      onPoint: (p) => points.push(p),
    });
    // startScraper returned synchronously; while a scrape hangs, other requests still run.
    await hangSeen;
    clearInterval(poll);
    const res = await fetchText(`${base}/ping`);
    pingedWhileHanging = res;
    while (srv.requests() < 9) await new Promise((r) => setTimeout(r, 20));
    const stats = await s.stop();

    assert.match(pingedWhileHanging, /^hanging=[1-9]/);
    assert.equal(stats.sources.length, 1);
    const src = stats.sources[0];
    assert.equal(src.source, `${base}/metrics`);
    assert.equal(src.engine, 'vllm');
    assert.equal(stats.attempts, srv.requests());
    // Two HTTP 500s and two hangs; on a badly overloaded box a normal scrape could also time
    // out, so timeouts are a lower bound while the 500s are exact.
    assert.equal(stats.failures - stats.timeouts, 2);
    assert.ok(stats.timeouts >= 2);
    assert.equal(stats.ok, stats.attempts - stats.failures);
    assert.ok(stats.slow >= 1, 'the 40 ms answer is slower than slow_ms = 20');
    assert.equal(stats.skipped, 0);
    assert.match(src.last_error ?? '', /timed out after 250 ms/);
    // Every successful scrape produced the full vLLM vocabulary; the counter moved each time.
    const gen = points.filter((p) => p.name === 'generation_tokens_total');
    assert.equal(gen.length, stats.ok);
    assert.ok(gen.at(-1)!.value > gen[0].value);
    assert.ok(points.some((p) => p.name === 'server_tokens_per_s' && p.value > 0));
    const ts = gen.map((p) => p.t_ms);
    assert.deepEqual(
      ts,
      [...ts].sort((a, b) => a - b),
    );
  });
});

/** A scraper of one fake engine URL on a fresh VirtualClock, collecting the points it emits. */
function virtualScraper(get: GetFn, o: Partial<ScraperOptions> = {}) {
  const clock = new VirtualClock();
  const points: ScrapePoint[] = [];
  const s = startScraper({
    urls: ['http://engine.test/metrics'],
    clock,
    get,
    onPoint: (p) => points.push(p),
    ...o,
  });
  return { clock, points, s };
}

describe('startScraper on a virtual clock', () => {
  it('aligns points to clock.now() at response and ticks on an absolute schedule', async () => {
    let calls = 0;
    const { clock, points, s } = virtualScraper(
      async () => {
        calls++;
        return `vllm:num_requests_running{engine="0"} ${calls}\nvllm:generation_tokens_total{engine="0"} ${calls * 500}\n`;
      },
      { intervalMs: 1000 },
    );
    await flush();
    clock.advanceTo(1000);
    await flush();
    clock.advanceTo(2000);
    await flush();
    clock.advanceTo(2999);
    await flush();
    const stats = await s.stop({ final: false });
    assert.equal(calls, 3);
    assert.deepEqual(
      points.filter((p) => p.name === 'running').map((p) => [p.t_ms, p.value]),
      [
        [0, 1],
        [1000, 2],
        [2000, 3],
      ],
    );
    assert.deepEqual(
      points.filter((p) => p.name === 'server_tokens_per_s').map((p) => [p.t_ms, p.value]),
      [
        [1000, 500],
        [2000, 500],
      ],
    );
    assert.equal(stats.ok, 3);
  });

  it('skips a tick while the last scrape is in flight and discards a result that came after its timeout', async () => {
    const pending: ((body: string) => void)[] = [];
    // This get ignores the abort signal, the worst case for overlap.
    const { clock, points, s } = virtualScraper(() => new Promise<string>((r) => pending.push(r)), {
      intervalMs: 1000,
      timeoutMs: 800,
    });
    clock.advanceTo(1000); // the timeout fired at 800, but the read is still pending
    await flush();
    assert.equal(pending.length, 1);
    assert.equal(s.stats().skipped, 1);
    pending[0]('vllm:num_requests_running 5\n');
    await flush();
    const stats = await s.stop({ final: false });
    assert.equal(points.length, 0);
    assert.equal(stats.failures, 1);
    assert.equal(stats.timeouts, 1);
    assert.equal(stats.ok, 0);
  });

  it('stop() takes a final reading so counters cover the end of the run', async () => {
    let calls = 0;
    const { clock, points, s } = virtualScraper(async () => `vllm:generation_tokens_total ${++calls * 10}\n`);
    await flush();
    clock.advanceTo(400);
    await s.stop();
    assert.deepEqual(
      points.filter((p) => p.name === 'generation_tokens_total').map((p) => [p.t_ms, p.value]),
      [
        [0, 10],
        [400, 20],
      ],
    );
  });

  it('hands raw samples (buckets included) to onSamples when asked', async () => {
    const raw: [string, number, number][] = [];
    const { s } = virtualScraper(async () => VLLM, {
      urls: ['http://u:secret@engine.test/metrics'],
      onSamples: (source, t_ms, samples) => {
        assert.equal(source, 'http://engine.test/metrics');
        raw.push([source, t_ms, samples.filter((x) => x.name.endsWith('_bucket')).length]);
      },
    });
    await flush();
    await s.stop({ final: false });
    assert.deepEqual(raw, [['http://engine.test/metrics', 0, 25]]);
  });

  it('a throwing onPoint does not stop scraping', async () => {
    let calls = 0;
    const { clock, s } = virtualScraper(async () => `vllm:num_requests_running ${++calls}\n`, {
      onPoint: () => {
        throw new Error('observer bug');
      },
    });
    await flush();
    clock.advanceTo(1000);
    await flush();
    const stats = await s.stop({ final: false });
    assert.equal(stats.ok, 2);
  });

  it('rejects bad URLs and intervals with UsageError, without echoing credentials', () => {
    assert.throws(
      () =>
        startScraper({ urls: ['ftp://user:s3cret@x/metrics'], clock: new VirtualClock(), onPoint: () => {} }),
      (e: unknown) => e instanceof UsageError && /--scrape/.test(e.message) && !e.message.includes('s3cret'),
    );
    assert.throws(
      () =>
        startScraper({
          urls: [],
          clock: new VirtualClock(),
          intervalMs: 100,
          timeoutMs: 100,
          onPoint: () => {},
        }),
      UsageError,
    );
  });
});

describe('helpers', () => {
  it('redactUrl strips credentials; defaultMetricsUrl sits next to /v1', () => {
    assert.equal(redactUrl('http://u:p@h:1/metrics'), 'http://h:1/metrics');
    assert.equal(defaultMetricsUrl('http://u:p@127.0.0.1:8000/v1/'), 'http://127.0.0.1:8000/metrics');
    assert.equal(defaultMetricsUrl('http://h:30000'), 'http://h:30000/metrics');
  });
});

/** Let pending promise callbacks run (one macrotask turn is enough for resolved promises). */
function flush(): Promise<void> {
  return new Promise((r) => setImmediate(r));
}

/** GET over node:http (test-only; the code under test uses undici). */
function fetchText(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    import('node:http').then(({ get }) =>
      get(url, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c) => {
          body += c;
        });
        res.on('end', () => resolve(body));
      }).on('error', reject),
    );
  });
}
