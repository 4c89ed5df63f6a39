/**
 * The live stream: a writer appends records and series to a `running` run while a client reads
 * the server-sent events over loopback; the dashboard polls on a virtual clock, so each poll
 * happens exactly when the test advances it and the event sequence is deterministic. Also the
 * incremental statistics against the batch summary.
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { createParser } from 'eventsource-parser';
import { summarize } from '../../src/analysis/summary.js';
import { type Dashboard, LiveTracker, type LiveUpdate, startDashboard } from '../../src/dashboard/index.js';
import type { RequestRecord } from '../../src/record/types.js';
import { VirtualClock } from '../../src/runtime/clock.js';
import type { Store } from '../../src/store/index.js';
import { failed, openWriter, serverSeries, streamed, tempStorePath } from './helpers.js';

interface SseEvent {
  event: string;
  data: LiveUpdate & { error?: string };
}

/** An SSE reader over node:http: collects events and lets a test wait for a condition on them. */
function openSse(url: string) {
  const events: SseEvent[] = [];
  let ended = false;
  let status = 0;
  let contentType = '';
  const waiters: { pred: () => boolean; resolve: () => void }[] = [];
  const wake = () => {
    for (const w of [...waiters])
      if (w.pred()) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
  };
  const parser = createParser({
    onEvent: (m) => {
      events.push({ event: m.event ?? 'message', data: JSON.parse(m.data) });
      wake();
    },
  });
  const req = request(url, { headers: { accept: 'text/event-stream' } }, (res) => {
    status = res.statusCode ?? 0;
    contentType = String(res.headers['content-type']);
    res.setEncoding('utf8');
    res.on('data', (s: string) => parser.feed(s));
    res.on('end', () => {
      ended = true;
      wake();
    });
    res.on('close', () => {
      ended = true;
      wake();
    });
  });
  req.end();
  return {
    events,
    get ended() {
      return ended;
    },
    get status() {
      return status;
    },
    get contentType() {
      return contentType;
    },
    /** Resolve once `pred()` holds; fail after a generous 10 s (a hang, not a timing check). */
    until(pred: () => boolean, what: string): Promise<void> {
      if (pred()) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const t = setTimeout(
          () =>
            reject(
              new Error(`timed out waiting for ${what}; got ${JSON.stringify(events.map((e) => e.event))}`),
            ),
          10_000,
        );
        waiters.push({
          pred,
          resolve: () => {
            clearTimeout(t);
            resolve();
          },
        });
      });
    },
    close: () => req.destroy(),
  };
}

describe('live stream of a running run', () => {
  const tmp = tempStorePath();
  const clock = new VirtualClock();
  let writer: Store;
  let dash: Dashboard;

  before(async () => {
    writer = openWriter(tmp.path);
    dash = await startDashboard({ dbPath: tmp.path, clock });
  });

  after(async () => {
    await dash?.close();
    writer?.close();
    tmp.cleanup();
  });

  test('pushes new records, stats and series while running, then a final event', async () => {
    const run = writer.createRun({
      kind: 'run',
      label: 'live',
      config: { load: { mode: 'closed', concurrency: 2 } },
    });
    const all: RequestRecord[] = [];
    const add = (r: RequestRecord) => {
      all.push(r);
      writer.appendRecord(run.id, r);
    };
    for (let i = 0; i < 3; i++) add(streamed(i, { sent: i * 100, ttft: 10 * (i + 1), gap: 5, tokens: 4 }));

    const sse = openSse(`${dash.url}api/runs/${run.id}/live`);
    await sse.until(() => sse.events.length >= 1, 'the first update');
    assert.equal(sse.status, 200);
    assert.match(sse.contentType, /text\/event-stream/);
    const first = sse.events[0];
    assert.equal(first.event, 'update');
    assert.equal(first.data.status, 'running');
    assert.equal(first.data.records, 3);
    assert.equal(first.data.new_records, 3);
    assert.equal(first.data.stats.succeeded, 3);
    assert.deepEqual(first.data.stats.ttft_ms, { n: 3, p50: 20, p95: 29, p99: 29.8 });
    assert.equal(first.data.stats.output_tokens, 12);
    assert.ok(first.data.charts?.timeline, 'the timeline chart from the report builders');
    // Nothing scraped yet: the GPU is no data, not 0.
    assert.deepEqual(first.data.gpu, { util_pct: null, memory_gib: null });
    assert.equal(first.data.charts?.gpu_util, null);

    // A poll that finds nothing new sends nothing.
    clock.advanceTo(clock.now() + 500);
    // The writer appends more records, a failure and server series; the next poll pushes them.
    for (let i = 3; i < 8; i++) add(streamed(i, { sent: i * 100, ttft: 10 * (i + 1), gap: 5, tokens: 4 }));
    add(failed(0, 850));
    writer.addSeries(run.id, serverSeries(0, 1));
    clock.advanceTo(clock.now() + 500);
    await sse.until(() => sse.events.length >= 2, 'the second update');
    const second = sse.events[1];
    assert.equal(second.event, 'update');
    assert.equal(second.data.records, 9);
    assert.equal(second.data.new_records, 6);
    assert.equal(second.data.stats.succeeded, 8);
    assert.equal(second.data.stats.failed, 1);
    assert.equal(second.data.stats.outcomes.http_error, 1);
    assert.equal(second.data.series.length, 8, '4 series × 2 seconds');
    assert.equal(second.data.in_flight.server_running, 4);
    assert.equal(second.data.in_flight.server_waiting, 1);
    const timeline = second.data.charts?.timeline as { series: { name: string }[] } | null | undefined;
    assert.ok(timeline, 'a timeline chart');
    const timelineNames = timeline.series.map((s) => s.name);
    assert.ok(timelineNames.includes('running (server)'), timelineNames.join());
    // The GPU panel: its latest reading and the report's named chart.
    assert.equal(second.data.gpu.util_pct, 51);
    assert.equal(second.data.gpu.memory_gib, null, 'memory was not scraped');
    const gpu = second.data.charts?.gpu_util as { title: { text: string } } | null | undefined;
    assert.equal(gpu?.title.text, 'GPU utilisation (%)');

    // Only points later than those already sent go out next time.
    writer.addSeries(run.id, serverSeries(2, 2));
    clock.advanceTo(clock.now() + 500);
    await sse.until(() => sse.events.length >= 3, 'the third update');
    assert.equal(sse.events[2].data.series.length, 4);
    assert.equal(sse.events[2].data.new_records, 0);

    // The run finishes: the last records and the stored summary arrive in one `end` event.
    add(streamed(8, { sent: 800, ttft: 90, gap: 5, tokens: 4 }));
    const summary = summarize(all, { max_concurrency: 2 });
    writer.finishRun(run.id, summary as unknown as Record<string, unknown>, 'completed');
    clock.advanceTo(clock.now() + 500);
    await sse.until(() => sse.ended, 'the stream to close');
    assert.deepEqual(
      sse.events.map((e) => e.event),
      ['update', 'update', 'update', 'end'],
    );
    const end = sse.events[3].data;
    assert.equal(end.status, 'completed');
    assert.equal(end.records, 10);
    assert.equal(end.new_records, 1);
    assert.deepEqual(end.summary, JSON.parse(JSON.stringify(summary)));
    // Incremental stats agree with the batch summary (no retries here, so attempts = requests).
    assert.equal(end.stats.succeeded, summary.requests.succeeded);
    assert.equal(end.stats.failed, summary.requests.failed);
    assert.equal(end.stats.ttft_ms.p50, summary.ttft_ms.p50);
    assert.equal(end.stats.ttft_ms.p99, summary.ttft_ms.p99);
    assert.equal(end.stats.e2e_ms.p95, summary.e2e_ms.p95);
  });

  test('a finished run ends at once with its summary', async () => {
    const run = writer.createRun({ kind: 'run', label: 'done' });
    writer.appendRecord(run.id, streamed(0, { sent: 0, ttft: 10, gap: 5, tokens: 3 }));
    writer.finishRun(run.id, null, 'failed');
    const sse = openSse(`${dash.url}api/runs/${run.id}/live`);
    await sse.until(() => sse.ended, 'the stream to close');
    assert.deepEqual(
      sse.events.map((e) => e.event),
      ['end'],
    );
    assert.equal(sse.events[0].data.status, 'failed');
    // No stored summary: the final event computes one from the records.
    assert.equal((sse.events[0].data.summary as { requests: { succeeded: number } }).requests.succeeded, 1);
  });

  test('closing the dashboard ends open live streams', async () => {
    const tmp2 = tempStorePath();
    const w = openWriter(tmp2.path);
    const run = w.createRun({ kind: 'run', label: 'open' });
    const d = await startDashboard({ dbPath: tmp2.path, clock: new VirtualClock() });
    const sse = openSse(`${d.url}api/runs/${run.id}/live`);
    await sse.until(() => sse.events.length >= 1, 'the first update');
    assert.equal(sse.events[0].data.records, 0);
    await d.close();
    await sse.until(() => sse.ended, 'the stream to close');
    w.close();
    tmp2.cleanup();
  });
});

describe('LiveTracker', () => {
  test('folds records in one at a time and matches the batch summary', () => {
    const recs: RequestRecord[] = [];
    for (let i = 0; i < 57; i++)
      recs.push(
        streamed(i, { sent: i * 37, ttft: 5 + ((i * 13) % 41), gap: 3 + (i % 4), tokens: 2 + (i % 9) }),
      );
    recs.push(failed(0, 30), failed(1, 900));
    recs.push(streamed(99, { sent: 0, ttft: 1, gap: 1, tokens: 2, phase: 'warmup' }));
    const t = new LiveTracker();
    for (const r of recs) t.addRecord(r);
    const s = t.stats();
    const batch = summarize(recs);
    assert.equal(s.records, 60);
    assert.equal(s.warmup, 1);
    assert.equal(s.succeeded, batch.requests.succeeded);
    assert.equal(s.failed, batch.requests.failed);
    for (const p of ['p50', 'p95', 'p99'] as const) {
      assert.equal(s.ttft_ms[p], batch.ttft_ms[p], `ttft ${p}`);
      assert.equal(s.e2e_ms[p], batch.e2e_ms[p], `e2e ${p}`);
    }
    const tokens = recs
      .filter((r) => r.phase === 'measure' && r.outcome === 'ok')
      .reduce((a, r) => a + (r.usage?.completion_tokens ?? 0), 0);
    assert.equal(s.output_tokens, tokens);
    assert.ok(s.span_ms);
    assert.equal(s.output_tok_s, (tokens * 1000) / (s.span_ms.end_ms - s.span_ms.start_ms));
  });

  test('with nothing folded in, every statistic is null, not 0', () => {
    const s = new LiveTracker().stats();
    assert.equal(s.error_rate, null);
    assert.equal(s.ttft_ms.p50, null);
    assert.equal(s.output_tok_s, null);
    assert.equal(s.span_ms, null);
  });
});
