/**
 * @module test/dashboard/helpers
 * Fills a temporary store the way `servelab run` does (createRun → appendRecord → addSeries →
 * finishRun with a summary), and small HTTP helpers for the dashboard tests.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { summarize } from '../../src/analysis/summary.js';
import { emptyRecord, type Outcome, type RequestRecord } from '../../src/record/types.js';
import { VirtualClock } from '../../src/runtime/clock.js';
import { openStore, type SeriesSample, type Store } from '../../src/store/index.js';

/** A temp directory with a store path inside; `cleanup()` removes it. */
export function tempStorePath(): { path: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'servelab-dash-'));
  return { path: join(dir, 'servelab.db'), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A writer store on a virtual clock (deterministic ids come from crypto, which is fine here). */
export function openWriter(path: string): Store {
  // flushEvery 1: every appended record is committed at once, so a reader sees it without waiting.
  return openStore(path, { clock: new VirtualClock(1_700_000_000_000), flushEvery: 1 });
}

/**
 * One streamed request: sent at `sent` ms, first content token `ttft` ms later, then one token
 * every `gap` ms, `tokens` tokens in all (usage reported).
 */
export function streamed(
  i: number,
  o: {
    sent: number;
    ttft: number;
    gap: number;
    tokens: number;
    outcome?: Outcome;
    phase?: 'warmup' | 'measure';
  },
): RequestRecord {
  const r = emptyRecord({
    id: `r${i}`,
    planned_id: `r${i}`,
    attempt: 1,
    phase: o.phase ?? 'measure',
    index: i,
  });
  const times = Array.from({ length: o.tokens }, (_, k) => o.sent + o.ttft + k * o.gap);
  r.planned_at_ms = o.sent;
  r.sent_at_ms = o.sent;
  r.headers_at_ms = o.sent + 1;
  r.first_chunk_at_ms = times[0];
  r.first_token_at_ms = times[0];
  r.first_content_at_ms = times[0];
  r.last_token_at_ms = times[times.length - 1];
  r.last_content_at_ms = times[times.length - 1];
  r.end_at_ms = times[times.length - 1];
  r.chunk_times_ms = times;
  r.chunk_kinds = times.map(() => 'c' as const);
  r.outcome = o.outcome ?? 'ok';
  r.finish_reason = 'stop';
  r.done = true;
  r.has_content = true;
  r.http_status = 200;
  r.usage = { prompt_tokens: 100, completion_tokens: o.tokens, total_tokens: 100 + o.tokens };
  r.input_len = 100;
  r.output_len = o.tokens;
  return r;
}

/** A failed request (HTTP 500 after 5 ms). */
export function failed(i: number, sent: number): RequestRecord {
  const r = emptyRecord({ id: `f${i}`, planned_id: `f${i}`, attempt: 1, phase: 'measure', index: i });
  r.planned_at_ms = sent;
  r.sent_at_ms = sent;
  r.headers_at_ms = sent + 5;
  r.end_at_ms = sent + 5;
  r.outcome = 'http_error';
  r.http_status = 500;
  r.error = 'HTTP 500';
  return r;
}

/** Server series as the scraper stores them: running/waiting/kv_usage and GPU utilisation each second. */
export function serverSeries(fromS: number, toS: number): SeriesSample[] {
  const out: SeriesSample[] = [];
  for (let s = fromS; s <= toS; s++) {
    const t_ms = s * 1000;
    out.push({ source: 'http://127.0.0.1:8000/metrics', name: 'running', t_ms, value: 4 });
    out.push({ source: 'http://127.0.0.1:8000/metrics', name: 'waiting', t_ms, value: s % 3 });
    out.push({ source: 'http://127.0.0.1:8000/metrics', name: 'kv_usage', t_ms, value: 0.1 * (s % 10) });
    out.push({ source: 'nvidia-smi', name: 'gpu_util_pct', labels: { gpu: '0' }, t_ms, value: 50 + s });
  }
  return out;
}

/**
 * A finished closed-loop run with `n` successful requests (TTFT 20 + i ms, 10 tokens 5 ms apart)
 * and `nFailed` failures, server series, and the summary `servelab run` would store.
 */
export function addFinishedRun(
  store: Store,
  o: { label: string; n: number; nFailed?: number; concurrency?: number; experimentId?: string },
): string {
  const run = store.createRun({
    kind: o.experimentId ? 'exp' : 'run',
    label: o.label,
    experimentId: o.experimentId,
    config: {
      load: { mode: 'closed', concurrency: o.concurrency ?? 4, rateRps: null },
      target: { url: 'http://127.0.0.1:8000/v1', headers: { Authorization: 'Bearer sk-secret-123' } },
      label: o.label,
    },
  });
  const records: RequestRecord[] = [];
  for (let i = 0; i < o.n; i++)
    records.push(streamed(i, { sent: i * 100, ttft: 20 + i, gap: 5, tokens: 10 }));
  for (let i = 0; i < (o.nFailed ?? 0); i++) records.push(failed(i, i * 100 + 50));
  for (const r of records) store.appendRecord(run.id, r);
  store.addSeries(run.id, serverSeries(0, Math.ceil((o.n * 100) / 1000)));
  const summary = summarize(records, { max_concurrency: o.concurrency ?? 4 });
  store.finishRun(run.id, summary as unknown as Record<string, unknown>, 'completed');
  return run.id;
}

/** GET over loopback; returns status, headers and the body as text. */
export function get(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          text: Buffer.concat(chunks).toString('utf8'),
        }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** GET and parse JSON. */
export async function getJson<T = Record<string, unknown>>(
  url: string,
): Promise<{ status: number; body: T }> {
  const r = await get(url);
  return { status: r.status, body: JSON.parse(r.text) as T };
}
