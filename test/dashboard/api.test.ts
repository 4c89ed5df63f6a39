/**
 * The dashboard's HTTP API over real loopback against a store filled through its own API:
 * lists, one run, paged records, series, the report's charts and table, comparison, errors,
 * the loopback-only rules and the bundled assets.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { UsageError } from '../../src/core/errors.js';
import { type Dashboard, serveDashboard, startDashboard } from '../../src/dashboard/index.js';
import { translator } from '../../src/i18n/index.js';
import type { RequestRecord } from '../../src/record/types.js';
import type { Store } from '../../src/store/index.js';
import { addFinishedRun, get, getJson, openWriter, streamed, tempStorePath } from './helpers.js';

// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked field by field below
type Json = Record<string, any>;

describe('dashboard API', () => {
  const tmp = tempStorePath();
  let writer: Store;
  let dash: Dashboard;
  let base: string;
  let runA: string;
  let runB: string;
  let runLive: string;
  let expId: string;
  const logged: string[] = [];
  /** Every response body, to check that no secret ever leaves the store. */
  const bodies: string[] = [];

  const api = async (path: string) => {
    const r = await get(`${base}${path}`);
    bodies.push(r.text);
    return { status: r.status, headers: r.headers, body: JSON.parse(r.text) as Json };
  };

  before(async () => {
    writer = openWriter(tmp.path);
    const exp = writer.createExperiment({ kind: 'sweep', name: 'conc-sweep' });
    expId = exp.id;
    runA = addFinishedRun(writer, { label: 'c=2', n: 30, nFailed: 2, concurrency: 2, experimentId: expId });
    runB = addFinishedRun(writer, { label: 'c=8', n: 40, concurrency: 8, experimentId: expId });
    writer.finishExperiment(expId, 'completed');
    const live = writer.createRun({
      kind: 'run',
      label: 'in progress',
      config: { load: { mode: 'closed', concurrency: 2 } },
    });
    runLive = live.id;
    for (let i = 0; i < 5; i++)
      writer.appendRecord(runLive, streamed(i, { sent: i * 50, ttft: 10, gap: 4, tokens: 6 }));
    dash = await startDashboard({ dbPath: tmp.path, log: (l) => logged.push(l) });
    base = dash.url.replace(/\/$/, '');
  });

  after(async () => {
    await dash?.close();
    writer?.close();
    tmp.cleanup();
  });

  test("/api/i18n gives the page its prose in the dashboard's language; --lang zh-CN changes it and the fragments", async () => {
    const en = await api('/api/i18n');
    assert.equal(en.body.lang, 'en');
    assert.equal(en.body.messages['dashboard.runs'], 'Runs');
    assert.ok(Object.keys(en.body.messages).every((k) => k.startsWith('dashboard.')));
    const zhDash = await startDashboard({ dbPath: tmp.path, t: translator('zh-CN') });
    try {
      const zb = zhDash.url.replace(/\/$/, '');
      const zh = JSON.parse((await get(`${zb}/api/i18n`)).text) as Json;
      assert.equal(zh.lang, 'zh-CN');
      assert.equal(zh.messages['dashboard.runs'], '运行');
      assert.deepEqual(Object.keys(zh.messages).sort(), Object.keys(en.body.messages).sort());
      const run = JSON.parse((await get(`${zb}/api/runs/${runA}`)).text) as Json;
      assert.match(run.headline_html, /有效：这些数字可以作为依据|无效：部分数字不能作为依据/);
      assert.match(run.table_html, /<th class="l">运行<\/th>/);
      // The diagnosis prose too: run A's 2 failures of 32 are an error rate over 5%.
      const exp = JSON.parse((await get(`${zb}/api/experiments/${expId}`)).text) as Json;
      assert.match(exp.headline_html, /错误率/);
      assert.doesNotMatch(exp.diagnosis_html + exp.headline_html, /error rate|latencies describe/);
    } finally {
      await zhDash.close();
    }
  });

  test('prints the ready line with the bound port', () => {
    assert.deepEqual(logged, [`listening on http://127.0.0.1:${dash.port}`]);
    assert.ok(dash.port > 0);
  });

  test('/api/runs lists every run newest first with headline numbers', async () => {
    const { status, body } = await api('/api/runs');
    assert.equal(status, 200);
    assert.deepEqual(
      body.runs.map((r: Json) => r.id),
      [runLive, runB, runA],
    );
    const a = body.runs.find((r: Json) => r.id === runA);
    assert.equal(a.status, 'completed');
    assert.equal(a.records, 32);
    assert.deepEqual(a.level, { concurrency: 2 });
    assert.equal(a.headline.succeeded, 30);
    assert.equal(a.headline.failed, 2);
    // TTFT is 20 + i ms for i = 0..29: the median is 34.5 ms.
    assert.equal(a.headline.ttft_ms_p50, 34.5);
    const l = body.runs.find((r: Json) => r.id === runLive);
    assert.equal(l.status, 'running');
    assert.equal(l.headline, null);
  });

  test('/api/runs?experiment= filters, and experiments list their run counts', async () => {
    const runs = await api(`/api/runs?experiment=${expId}`);
    assert.deepEqual(runs.body.runs.map((r: Json) => r.id).sort(), [runA, runB].sort());
    const exps = await api('/api/experiments');
    assert.equal(exps.status, 200);
    assert.deepEqual(
      exps.body.experiments.map((e: Json) => [e.id, e.name, e.kind, e.status, e.runs]),
      [[expId, 'conc-sweep', 'sweep', 'completed', 2]],
    );
    const one = await api(`/api/experiments/${expId.slice(0, 4)}`);
    assert.equal(one.status, 200);
    assert.equal(one.body.experiment.id, expId);
    assert.equal(one.body.runs.length, 2);
    // The report over its levels: headline, a verdict per level, the load curve with its knee, the diagnosis.
    assert.match(one.body.headline_html, /<section class="headline" id="headline">/);
    assert.equal((one.body.table_html.match(/<tr data-run=/g) ?? []).length, 2);
    assert.equal(one.body.charts[0].id, 'load-curve');
    assert.ok(
      one.body.charts.every((c: Json) => c.run === undefined),
      'only the cross-run charts',
    );
    assert.equal(typeof one.body.diagnosis_html, 'string');
    const none = await api('/api/runs?experiment=zzzzzzzz');
    assert.equal(none.status, 404);
    assert.match(none.body.hint, /api\/experiments/);
  });

  test('/api/runs/:id (a prefix) gives the row, the stored summary and the report table', async () => {
    const { status, body } = await api(`/api/runs/${runA.slice(0, 5)}`);
    assert.equal(status, 200);
    assert.equal(body.run.id, runA);
    assert.equal(body.summary_source, 'stored');
    assert.equal(body.summary.requests.succeeded, 30);
    assert.equal(body.summary.requests.failed, 2);
    assert.equal(body.summary.ttft_ms.p50, 34.5);
    assert.match(body.table_html, /<table/);
    assert.match(body.table_html, /c=2/);
    assert.equal(body.run.config.load.concurrency, 2);
  });

  test('a running run gets a summary computed from the records committed so far', async () => {
    const { body } = await api(`/api/runs/${runLive}`);
    assert.equal(body.run.status, 'running');
    assert.equal(body.summary_source, 'computed');
    assert.equal(body.summary.requests.succeeded, 5);
    assert.equal(body.summary.ttft_ms.p50, 10);
  });

  test('/api/runs/:id/records pages in commit order', async () => {
    const ids: string[] = [];
    let offset = 0;
    let pages = 0;
    for (;;) {
      const { status, body } = await api(`/api/runs/${runA}/records?offset=${offset}&limit=7`);
      assert.equal(status, 200);
      assert.equal(body.total, 32);
      assert.equal(body.offset, offset);
      assert.ok(body.records.length <= 7);
      ids.push(...body.records.map((r: RequestRecord) => r.id));
      pages += 1;
      offset = body.next_offset;
      if (body.done) break;
      assert.ok(pages < 10, 'paging must end');
    }
    assert.equal(pages, 5);
    const expected = [...Array.from({ length: 30 }, (_, i) => `r${i}`), 'f0', 'f1'];
    assert.deepEqual(ids, expected);
    const first = await api(`/api/runs/${runA}/records?offset=0&limit=1`);
    assert.deepEqual(first.body.records[0].chunk_times_ms.length, 10);
    const bad = await api(`/api/runs/${runA}/records?offset=-3`);
    assert.equal(bad.status, 400);
    assert.match(bad.body.error, /offset/);
  });

  test('/api/runs/:id/series returns scraped points on the run clock', async () => {
    const { body } = await api(`/api/runs/${runA}/series`);
    const running = body.series.filter((p: Json) => p.name === 'running');
    // 30 requests 100 ms apart: series every second from 0 to 3 s.
    assert.deepEqual(
      running.map((p: Json) => p.t_ms),
      [0, 1000, 2000, 3000],
    );
    const gpu = body.series.find((p: Json) => p.name === 'gpu_util_pct');
    assert.deepEqual(gpu.labels, { gpu: '0' });
  });

  test('/api/runs/:id/charts returns the report charts, server series on the timeline', async () => {
    const { body } = await api(`/api/runs/${runA}/charts`);
    const ids = body.charts.map((c: Json) => c.id);
    assert.ok(ids.includes('ttft-cdf'), ids.join());
    assert.ok(ids.includes('e2e-cdf'));
    const timeline = body.charts.find((c: Json) => c.id.startsWith('timeline-'));
    const names = timeline.option.series.map((s: Json) => s.name);
    assert.deepEqual(names, ['in flight (client)', 'running (server)', 'waiting (server)', 'KV usage %']);
    assert.ok(ids.some((id: string) => id.startsWith('chunk-gaps-')));
  });

  test('/api/compare gives the report table and charts for several runs', async () => {
    const { status, body } = await api(`/api/compare?ids=${runA},${runB.slice(0, 6)}`);
    assert.equal(status, 200);
    assert.deepEqual(
      body.runs.map((r: Json) => r.id),
      [runA, runB],
    );
    assert.equal(body.table.length, 2);
    assert.equal(body.runs[1].summary.requests.succeeded, 40);
    const ids = body.charts.map((c: Json) => c.id);
    // Two runs at concurrency 2 and 8 share a load axis: the load curve is drawn.
    assert.ok(ids.includes('load-curve'), ids.join());
    const cdf = body.charts.find((c: Json) => c.id === 'ttft-cdf');
    assert.deepEqual(
      cdf.option.series.map((s: Json) => s.name),
      ['c=2', 'c=8'],
    );
  });

  test('unknown ids and routes answer 404 JSON with a hint', async () => {
    for (const path of [
      '/api/runs/zzzzzzzz',
      '/api/runs/zzzzzzzz/records',
      '/api/runs/zzzzzzzz/series',
      '/api/runs/zzzzzzzz/charts',
      '/api/runs/zzzzzzzz/live',
      '/api/experiments/zzzzzzzz',
      `/api/compare?ids=${runA},zzzzzzzz`,
      '/api/nope',
      `/api/runs/${runA}/nope`,
    ]) {
      const r = await api(path);
      assert.equal(r.status, 404, path);
      assert.match(String(r.headers['content-type']), /application\/json/, path);
      assert.equal(typeof r.body.error, 'string', path);
      assert.equal(typeof r.body.hint, 'string', path);
    }
    const cmp = await api(`/api/compare?ids=${runA},zzzzzzzz`);
    assert.match(cmp.body.error, /zzzzzzzz/);
    const empty = await api('/api/compare?ids=');
    assert.equal(empty.status, 400);
    const malformed = await api('/api/runs/%E0%A4%A');
    assert.equal(malformed.status, 400);
    const notFound = await get(`${base}/../package.json`);
    assert.equal(notFound.status, 404);
  });

  test('only GET, and only for a loopback Host header', async () => {
    const post = await new Promise<number>((resolve, reject) => {
      import('node:http').then(({ request }) => {
        const req = request(`${base}/api/runs`, { method: 'POST' }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.end('{}');
      }, reject);
    });
    assert.equal(post, 405);
    const rebinding = await get(`${base}/api/runs`, { host: `evil.example:${dash.port}` });
    assert.equal(rebinding.status, 403);
    const local = await get(`${base}/api/runs`, { host: `localhost:${dash.port}` });
    assert.equal(local.status, 200);
  });

  test('serves the page, its assets and echarts itself', async () => {
    const page = await get(`${base}/`);
    assert.equal(page.status, 200);
    assert.match(String(page.headers['content-type']), /text\/html/);
    assert.match(page.text, /<script src="\/vendor\/echarts\.min\.js">/);
    assert.doesNotMatch(page.text, /https?:\/\//, 'the page must need no network');
    assert.match(String(page.headers['content-security-policy']), /default-src 'self'/);
    const js = await get(`${base}/app.js`);
    assert.equal(js.status, 200);
    assert.match(String(js.headers['content-type']), /javascript/);
    const ec = await get(`${base}/vendor/echarts.min.js`);
    assert.equal(ec.status, 200);
    assert.ok(ec.text.length > 500_000, 'the full echarts bundle');
    const css = await get(`${base}/style.css`);
    assert.match(String(css.headers['content-type']), /text\/css/);
  });

  test('no secret from a run config ever reaches a response', async () => {
    await api(`/api/runs/${runA}`);
    await api(`/api/compare?ids=${runA},${runB}`);
    for (const b of bodies) assert.doesNotMatch(b, /sk-secret-123/);
  });
});

describe('startDashboard input checks', () => {
  test('refuses a non-loopback host, a bad port and a missing store, all at once', async () => {
    await assert.rejects(
      startDashboard({ dbPath: '/nonexistent/servelab.db', host: '0.0.0.0', port: 70000 }),
      (e: unknown) => {
        assert.ok(e instanceof UsageError);
        assert.deepEqual(
          e.problems.map((p) => p.path),
          ['--host', '--port', '--db'],
        );
        for (const p of e.problems) assert.ok(p.hint);
        return true;
      },
    );
  });

  test('a busy port is a usage error with a hint', async () => {
    const tmp = tempStorePath();
    const w = openWriter(tmp.path);
    w.close();
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const port = (blocker.address() as { port: number }).port;
    try {
      await assert.rejects(startDashboard({ dbPath: tmp.path, port }), (e: unknown) => {
        assert.ok(e instanceof UsageError);
        assert.match(e.message, /in use/);
        return true;
      });
    } finally {
      await new Promise<void>((r) => blocker.close(() => r()));
      tmp.cleanup();
    }
  });

  test('a file that is not a store is a usage error', async () => {
    const tmp = tempStorePath();
    const { writeFileSync } = await import('node:fs');
    writeFileSync(tmp.path, '');
    try {
      await assert.rejects(startDashboard({ dbPath: tmp.path }), UsageError);
    } finally {
      tmp.cleanup();
    }
  });
});

describe('an empty store', () => {
  test('lists no runs and no experiments', async () => {
    const tmp = tempStorePath();
    const w = openWriter(tmp.path);
    w.close();
    const d = await startDashboard({ dbPath: tmp.path });
    try {
      const r = await getJson<{ runs: unknown[] }>(`${d.url}api/runs`);
      assert.equal(r.status, 200);
      assert.deepEqual(r.body.runs, []);
      const e = await getJson<{ experiments: unknown[] }>(`${d.url}api/experiments`);
      assert.deepEqual(e.body.experiments, []);
    } finally {
      await d.close();
      tmp.cleanup();
    }
  });
});

describe('serveDashboard', () => {
  test('serves until interrupted, then closes', async () => {
    const tmp = tempStorePath();
    const w = openWriter(tmp.path);
    w.close();
    const lines: string[] = [];
    let interrupt: ((sig: string) => void) | undefined;
    let unsubscribed = false;
    const done = serveDashboard({ dbPath: tmp.path, log: (l) => lines.push(l) }, (h) => {
      interrupt = h;
      return () => {
        unsubscribed = true;
      };
    });
    try {
      // The ready line comes once the socket is bound; wait for the handler to be installed after it.
      while (!interrupt) await new Promise((r) => setImmediate(r));
      const url = lines[0].replace('listening on ', '');
      assert.equal((await get(`${url}/api/runs`)).status, 200);
      interrupt('SIGINT');
      assert.equal(await done, 'SIGINT');
      assert.ok(unsubscribed);
      // A kept-alive socket may see the close as a hang-up rather than a refused connection.
      await assert.rejects(get(`${url}/api/runs`), /ECONNREFUSED|socket hang up|ECONNRESET/);
    } finally {
      tmp.cleanup();
    }
  });
});

describe('loaded-run cache', () => {
  test('a finished run is re-read when its row changes', async () => {
    const tmp = tempStorePath();
    const w = openWriter(tmp.path);
    const id = addFinishedRun(w, { label: 'x', n: 5 });
    const d = await startDashboard({ dbPath: tmp.path });
    try {
      const first = await getJson<Json>(`${d.url}api/runs/${id}/charts`);
      const cdf = (b: Json) => b.charts.find((c: Json) => c.id === 'ttft-cdf').option.series[0].data.length;
      assert.equal(cdf(first.body), 5);
      // A record committed late (a writer flushing after finishRun) changes the row's count.
      w.appendRecord(id, streamed(5, { sent: 600, ttft: 30, gap: 5, tokens: 10 }));
      const second = await getJson<Json>(`${d.url}api/runs/${id}/charts`);
      assert.equal(cdf(second.body), 6);
    } finally {
      await d.close();
      w.close();
      tmp.cleanup();
    }
  });
});

describe('dashboard run verdicts', () => {
  const tmp = tempStorePath();
  let writer: Store;
  let dash: Dashboard;
  after(async () => {
    await dash?.close();
    writer?.close();
    tmp.cleanup();
  });

  test('/api/runs gives each run its stored verdict: NOT VALID with its reasons, valid, or none yet', async () => {
    writer = openWriter(tmp.path);
    const rec = (i: number) => streamed(i, { sent: i * 100, ttft: 20, gap: 5, tokens: 4 });
    // As `measure` stores a run it judged: `record.validity`.
    const judged = (label: string, validity: Json) => {
      const run = writer.createRun({ kind: 'run', label, record: { validity } });
      for (let i = 0; i < 3; i++) writer.appendRecord(run.id, rec(i));
      writer.finishRun(run.id, null, 'completed');
      return run.id;
    };
    const bad = judged('bad', {
      valid: false,
      reasons: [
        { code: 'token_mismatch', run: 'bad', message: 'the server counted 10% more tokens than the client' },
        { code: 'lateness', run: 'bad', message: 'the generator sent late' },
      ],
    });
    const good = judged('good', { valid: true, reasons: [] });
    const live = writer.createRun({ kind: 'run', label: 'running' }).id;
    dash = await startDashboard({ dbPath: tmp.path });
    const { body } = await getJson<{ runs: Json[] }>(`${dash.url}api/runs`);
    const byId = new Map(body.runs.map((r) => [r.id, r]));
    // Completed, but not valid: the list says so, with the codes and messages.
    assert.equal(byId.get(bad)?.status, 'completed');
    assert.deepEqual(byId.get(bad)?.verdict, {
      valid: false,
      reasons: [
        { code: 'token_mismatch', message: 'the server counted 10% more tokens than the client' },
        { code: 'lateness', message: 'the generator sent late' },
      ],
    });
    assert.deepEqual(byId.get(good)?.verdict, { valid: true, reasons: [] });
    assert.equal(byId.get(live)?.verdict, null, 'not judged while running: no verdict, not "valid"');
    // The page renders the verdict from these fields, in the dashboard's language.
    const { body: i18n } = await getJson<{ messages: Record<string, string> }>(`${dash.url}api/i18n`);
    assert.equal(i18n.messages['dashboard.verdict.invalid'], 'NOT VALID: {codes}');
    const js = await get(`${dash.url}app.js`);
    assert.match(js.text, /verdict\.invalid/);
  });
});
