/**
 * The HTTP target against purpose-built misbehaving servers over real loopback: one test per
 * outcome class and per wire shape, asserting the record's fields (never wall-clock durations).
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { createHttpTarget, type HttpTarget, type SendResult } from '../../src/client/http.js';
import type { ClientOptions } from '../../src/client/types.js';
import type { RequestRecord } from '../../src/record/types.js';
import { RealClock } from '../../src/runtime/clock.js';
import type { RequestSpec } from '../../src/workload/types.js';
import {
  misbehaviours,
  refusedPort,
  type ScriptSource,
  startSseServer,
  type TestServer,
} from '../helpers/misbehaving.js';

const KEY = 'sk-test-SECRET-0123456789abcdef';
const servers: TestServer[] = [];
const targets: HttpTarget[] = [];
/** Every record and error produced here, for the key grep at the end. */
const produced: unknown[] = [];

after(async () => {
  await Promise.all(targets.map((t) => t.close()));
  await Promise.all(servers.map((s) => s.close()));
});

const spec: RequestSpec = { index: 3, prompt: 'Say hi', input_len: 2, output_len: null };
let seq = 0;

async function serve(source: ScriptSource): Promise<TestServer> {
  const s = await startSseServer(source);
  servers.push(s);
  return s;
}

function target(srv: TestServer | string, over: Partial<ClientOptions> = {}): HttpTarget {
  const t = createHttpTarget({
    baseUrl: typeof srv === 'string' ? srv : srv.baseUrl,
    endpoint: 'chat',
    model: 'test-model',
    stream: true,
    maxTokens: 16,
    apiKey: KEY,
    clock: new RealClock(),
    ...over,
  });
  targets.push(t);
  return t;
}

async function sendTo(
  source: ScriptSource,
  over: Partial<ClientOptions> = {},
  signal = new AbortController().signal,
): Promise<SendResult & { srv: TestServer }> {
  const srv = await serve(source);
  const id = `req-${++seq}`;
  const res = await target(srv, over).sendDetailed({
    id,
    planned_id: id,
    attempt: 1,
    phase: 'measure',
    spec,
    planned_at_ms: 0,
    signal,
  });
  produced.push(res.record);
  return { ...res, srv };
}

function assertTimesOrdered(r: RequestRecord): void {
  assert.ok(r.sent_at_ms !== null && r.end_at_ms !== null);
  if (r.headers_at_ms !== null) assert.ok(r.headers_at_ms >= r.sent_at_ms);
  for (let i = 1; i < r.chunk_times_ms.length; i++) assert.ok(r.chunk_times_ms[i] >= r.chunk_times_ms[i - 1]);
  assert.equal(r.chunk_times_ms.length, r.chunk_kinds.length);
}

describe('request sent', () => {
  it('sends body, auth, request id and include_usage', async () => {
    const { srv, record } = await sendTo(misbehaviours.wellBehaved(), {
      ignoreEos: true,
      topP: 0.9,
      stop: ['\n'],
      headers: { 'X-Team': 'a' },
      extraBody: { chat_template_kwargs: { enable_thinking: false }, temperature: 0.5 },
    });
    const req = srv.requests[0];
    assert.equal(req.method, 'POST');
    assert.equal(req.path, '/v1/chat/completions');
    assert.equal(req.headers.authorization, `Bearer ${KEY}`);
    assert.equal(req.headers['x-request-id'], record.id);
    assert.equal(req.headers['x-team'], 'a');
    assert.deepEqual(req.body, {
      model: 'test-model',
      messages: [{ role: 'user', content: 'Say hi' }],
      max_tokens: 16,
      temperature: 0.5,
      top_p: 0.9,
      stop: ['\n'],
      ignore_eos: true,
      stream: true,
      stream_options: { include_usage: true },
      chat_template_kwargs: { enable_thinking: false },
    });
    // max_tokens 16 came from the generic cap (maxTokens), but with ignore_eos the request is
    // told to run to it: 16 is its expected length.
    assert.equal(record.output_len, 16);
    assert.equal(record.input_len, 2);
    assert.equal(record.index, 3);
  });

  it('completions endpoint, output_len wins over maxTokens, no key header without a key', async () => {
    const srv = await serve(misbehaviours.wellBehaved());
    const t = target(srv, { endpoint: 'completions', apiKey: undefined, stream: false });
    const r = await t.send({
      id: 'c1',
      planned_id: 'c1',
      attempt: 1,
      phase: 'warmup',
      spec: { index: 0, prompt: 'p', input_len: null, output_len: 5 },
      planned_at_ms: null,
      signal: new AbortController().signal,
    });
    produced.push(r);
    const req = srv.requests[0];
    assert.equal(req.path, '/v1/completions');
    assert.equal(req.headers.authorization, undefined);
    assert.deepEqual(req.body, {
      model: 'test-model',
      prompt: 'p',
      max_tokens: 5,
      temperature: 0,
      stream: false,
    });
    assert.equal(r.phase, 'warmup');
    // The spec's length went out as max_tokens: it is the record's expected length.
    assert.equal(r.output_len, 5);
  });

  it('an extra_body max_tokens override leaves the record without an expected length', async () => {
    const srv = await serve(misbehaviours.wellBehaved());
    const record = await target(srv, { extraBody: { max_tokens: 3 } }).send({
      id: 'x1',
      planned_id: 'x1',
      attempt: 1,
      phase: 'measure',
      spec: { ...spec, output_len: 5 },
      planned_at_ms: null,
      signal: new AbortController().signal,
    });
    produced.push(record);
    // 5 was asked for but 3 went out: a stop at 3 must not read as "reached its length".
    assert.equal(srv.requests[0].body?.max_tokens, 3);
    assert.equal(record.output_len, null);
  });
});

describe('bad input', () => {
  it('an invalid base URL is a UsageError with a hint', () => {
    assert.throws(
      () =>
        createHttpTarget({
          baseUrl: 'not a url',
          endpoint: 'chat',
          model: 'm',
          stream: true,
          clock: new RealClock(),
        }),
      (e: Error & { problems?: { hint?: string }[] }) =>
        e.name === 'UsageError' && /--url/.test(e.problems?.[0]?.hint ?? ''),
    );
  });

  it('a body that cannot be serialised still resolves with one record', async () => {
    const { record: r, srv } = await sendTo(misbehaviours.wellBehaved(), { extraBody: { n: 1n } });
    assert.notEqual(r.outcome, 'ok');
    assert.ok(r.error);
    assert.equal(srv.requests.length, 0);
  });
});

describe('outcome classes', () => {
  it('ok: well-behaved vLLM stream', async () => {
    const { record: r, info } = await sendTo(misbehaviours.wellBehaved());
    assert.equal(r.outcome, 'ok');
    assert.equal(r.finish_reason, 'stop');
    assert.equal(r.done, true);
    assert.equal(r.has_content, true);
    assert.equal(r.http_status, 200);
    assert.equal(r.error, null);
    assert.deepEqual(r.usage, { prompt_tokens: 20, completion_tokens: 3, total_tokens: 23 });
    assert.deepEqual(r.chunk_kinds, ['c', 'c', 'c']);
    assert.equal(r.first_token_at_ms, r.chunk_times_ms[0]);
    assert.equal(r.first_content_at_ms, r.chunk_times_ms[0]);
    assert.equal(r.last_token_at_ms, r.chunk_times_ms[2]);
    assert.equal(r.end_at_ms, r.chunk_times_ms[2], 'E2E ends at the finish chunk');
    assert.equal(r.first_reasoning_at_ms, null);
    assert.ok(r.first_chunk_at_ms !== null && r.first_chunk_at_ms <= (r.first_token_at_ms as number));
    assert.equal(info.usage_where, 'separate_chunk');
    assert.equal(info.reasoning_field, null);
    assertTimesOrdered(r);
  });

  it('incomplete: truncated stream (no finish, no [DONE])', async () => {
    const { record: r } = await sendTo(misbehaviours.truncated());
    assert.equal(r.outcome, 'incomplete');
    assert.equal(r.done, false);
    assert.equal(r.finish_reason, null);
    assert.equal(r.chunk_times_ms.length, 2);
    assert.match(r.error ?? '', /without finish_reason/);
    assertTimesOrdered(r);
  });

  it('stream_error: in-band error object (HTTP 200)', async () => {
    const { record: r } = await sendTo(misbehaviours.inBandError());
    assert.equal(r.outcome, 'stream_error');
    assert.equal(r.http_status, 200);
    assert.match(r.error ?? '', /CUDA out of memory/);
    assert.equal(r.done, true);
  });

  it('stream_error: flat error object', async () => {
    const { record: r } = await sendTo(misbehaviours.flatInBandError());
    assert.equal(r.outcome, 'stream_error');
    assert.match(r.error ?? '', /engine died/);
  });

  it('stream_error: event: error', async () => {
    const { record: r } = await sendTo(misbehaviours.errorEvent());
    assert.equal(r.outcome, 'stream_error');
    assert.match(r.error ?? '', /upstream failed/);
  });

  it('stream_error: malformed JSON wins over a later normal finish', async () => {
    const { record: r } = await sendTo(misbehaviours.malformedJson());
    assert.equal(r.outcome, 'stream_error');
    assert.equal(r.finish_reason, 'stop');
    assert.match(r.error ?? '', /malformed JSON/);
    assert.deepEqual(r.chunk_kinds, ['c', 'c']);
  });

  it('stream_error: finish_reason abort', async () => {
    const { record: r } = await sendTo(misbehaviours.finishAbort());
    assert.equal(r.outcome, 'stream_error');
    assert.equal(r.finish_reason, 'abort');
  });

  it('incomplete: reset mid-stream', async () => {
    const { record: r } = await sendTo(misbehaviours.resetMidStream());
    assert.equal(r.outcome, 'incomplete');
    assert.equal(r.http_status, 200);
    assert.equal(r.chunk_times_ms.length, 2);
    assert.match(r.error ?? '', /stream broken/);
  });

  it('connect_error: reset before headers', async () => {
    const { record: r } = await sendTo(misbehaviours.resetBeforeHeaders());
    assert.equal(r.outcome, 'connect_error');
    assert.equal(r.http_status, null);
    assert.ok(r.error);
  });

  it('connect_error: connection refused', async () => {
    const port = await refusedPort();
    const t = target(`http://127.0.0.1:${port}/v1`);
    const r = await t.send({
      id: 'x',
      planned_id: 'x',
      attempt: 1,
      phase: 'measure',
      spec,
      planned_at_ms: null,
      signal: new AbortController().signal,
    });
    produced.push(r);
    assert.equal(r.outcome, 'connect_error');
    assert.match(r.error ?? '', /ECONNREFUSED/);
    assert.ok(r.sent_at_ms !== null && r.end_at_ms !== null);
  });

  it('timeout: no first token within timeoutTtftMs', async () => {
    const { record: r } = await sendTo(misbehaviours.stallBeforeFirstToken(), { timeoutTtftMs: 150 });
    assert.equal(r.outcome, 'timeout');
    assert.equal(r.http_status, 200);
    assert.match(r.error ?? '', /timeout-ttft/);
    assert.equal(r.chunk_times_ms.length, 0);
  });

  it('timeout: whole-request timeout after the first token', async () => {
    const { record: r } = await sendTo(misbehaviours.stallAfterFirstToken(), {
      timeoutMs: 200,
      timeoutTtftMs: 5000,
    });
    assert.equal(r.outcome, 'timeout');
    assert.equal(r.chunk_times_ms.length, 1);
    assert.match(r.error ?? '', /exceeded 200 ms/);
  });

  it('cancelled: abort signal mid-stream, and before send', async () => {
    const ac = new AbortController();
    const srv1 = await serve(misbehaviours.stallAfterFirstToken());
    const p = target(srv1).send({
      id: 'cx',
      planned_id: 'cx',
      attempt: 1,
      phase: 'measure',
      spec,
      planned_at_ms: null,
      signal: ac.signal,
    });
    // abort once the server has the request: poll the server side, not a wall-clock delay
    while (srv1.requests.length === 0) await new Promise((r) => setImmediate(r));
    ac.abort();
    const r = await p;
    produced.push(r);
    assert.equal(r.outcome, 'cancelled');
    assert.ok(r.sent_at_ms !== null && r.end_at_ms !== null);

    const { record: r2, srv } = await sendTo(misbehaviours.wellBehaved(), {}, AbortSignal.abort());
    assert.equal(r2.outcome, 'cancelled');
    assert.equal(r2.sent_at_ms, null);
    assert.equal(srv.requests.length, 0);
  });

  it('http_error: 429 keeps status and Retry-After', async () => {
    const { record: r } = await sendTo(misbehaviours.status429(7));
    assert.equal(r.outcome, 'http_error');
    assert.equal(r.http_status, 429);
    assert.equal(r.retry_after_s, 7);
    assert.match(r.error ?? '', /HTTP 429: rate limited/);
  });

  it('http_error: 500 with a flat error body', async () => {
    const { record: r } = await sendTo(misbehaviours.status500());
    assert.equal(r.outcome, 'http_error');
    assert.equal(r.http_status, 500);
    assert.equal(r.retry_after_s, null);
    assert.match(r.error ?? '', /internal failure/);
  });

  it('http_error: 401 echoing the key never stores it', async () => {
    const { record: r } = await sendTo(misbehaviours.status401());
    assert.equal(r.outcome, 'http_error');
    assert.equal(r.http_status, 401);
    assert.match(r.error ?? '', /Incorrect API key/);
    assert.ok(!(r.error ?? '').includes(KEY));
    assert.ok(!(r.error ?? '').includes(KEY.slice(3)));
  });

  it('no_content: reasoning only, then stop', async () => {
    const { record: r, info } = await sendTo(misbehaviours.reasoningOnly());
    assert.equal(r.outcome, 'no_content');
    assert.equal(r.has_content, false);
    assert.deepEqual(r.chunk_kinds, ['r', 'r']);
    assert.equal(r.first_content_at_ms, null);
    assert.equal(r.first_reasoning_at_ms, r.chunk_times_ms[0]);
    assert.equal(r.first_token_at_ms, r.chunk_times_ms[0]);
    assert.equal(r.usage?.reasoning_tokens, 2);
    assert.equal(info.reasoning_field, 'reasoning_content');
  });

  it('no_content: finish stop without any token', async () => {
    const { record: r } = await sendTo(misbehaviours.emptyStop());
    assert.equal(r.outcome, 'no_content');
    assert.equal(r.chunk_times_ms.length, 0);
    assert.ok(r.first_chunk_at_ms !== null);
    assert.equal(r.first_token_at_ms, null);
  });

  it('length: finish_reason length, with and without content', async () => {
    const { record: r } = await sendTo(misbehaviours.finishLength());
    assert.equal(r.outcome, 'length');
    assert.equal(r.has_content, true);
    const { record: r2 } = await sendTo(misbehaviours.finishLengthNoContent());
    assert.equal(r2.outcome, 'length');
    assert.equal(r2.has_content, false);
    assert.deepEqual(r2.chunk_kinds, ['r']);
  });

  it('ok: tool calls only count as content', async () => {
    const { record: r } = await sendTo(misbehaviours.toolCalls());
    assert.equal(r.outcome, 'ok');
    assert.equal(r.finish_reason, 'tool_calls');
    assert.deepEqual(r.chunk_kinds, ['t', 't']);
    assert.equal(r.has_content, true);
    assert.equal(r.first_content_at_ms, null);
  });
});

describe('wire shapes', () => {
  it('reasoning then content: TTFR before TTFT, `reasoning` field, cached tokens', async () => {
    const { record: r, info } = await sendTo(misbehaviours.reasoningThenContent('reasoning'));
    assert.equal(r.outcome, 'ok');
    assert.deepEqual(r.chunk_kinds, ['r', 'r', 'c', 'c']);
    assert.equal(r.first_reasoning_at_ms, r.chunk_times_ms[0]);
    assert.equal(r.first_content_at_ms, r.chunk_times_ms[2]);
    assert.ok((r.first_reasoning_at_ms as number) <= (r.first_content_at_ms as number));
    assert.equal(r.first_token_at_ms, r.first_reasoning_at_ms);
    assert.equal(r.last_content_at_ms, r.chunk_times_ms[3]);
    assert.deepEqual(r.usage, {
      prompt_tokens: 9,
      completion_tokens: 4,
      total_tokens: 13,
      reasoning_tokens: 2,
      cached_tokens: 8,
    });
    assert.equal(info.reasoning_field, 'reasoning');
  });

  it('finish and usage but no [DONE]: keeps its class, done false', async () => {
    const { record: r } = await sendTo(misbehaviours.noDoneAfterFinish());
    assert.equal(r.outcome, 'ok');
    assert.equal(r.done, false);
    assert.equal(r.usage?.completion_tokens, 2);
  });

  it('no usage: usage null', async () => {
    const { record: r, info } = await sendTo(misbehaviours.noUsage());
    assert.equal(r.outcome, 'ok');
    assert.equal(r.usage, null);
    assert.equal(info.usage_where, null);
  });

  it('CRLF line endings', async () => {
    const { record: r } = await sendTo(misbehaviours.crlf());
    assert.equal(r.outcome, 'ok');
    assert.equal(r.done, true);
    assert.deepEqual(r.chunk_kinds, ['c', 'c', 'c']);
    assert.equal(r.usage?.completion_tokens, 3);
  });

  it('keep-alive comments and multi-line data', async () => {
    const { record: r, info } = await sendTo(misbehaviours.keepAlives());
    assert.equal(r.outcome, 'ok');
    assert.deepEqual(r.chunk_kinds, ['c', 'c']);
    assert.equal(r.done, true);
    assert.equal(info.comments, 3);
  });

  it('multi-byte UTF-8 split across writes', async () => {
    const { record: r } = await sendTo(misbehaviours.splitUtf8());
    assert.equal(r.outcome, 'ok');
    assert.equal(r.error, null);
    assert.deepEqual(r.chunk_kinds, ['c']);
  });

  it('usage in the finish chunk', async () => {
    const { record: r, info } = await sendTo(misbehaviours.usageInFinishChunk());
    assert.equal(r.outcome, 'ok');
    assert.equal(r.usage?.completion_tokens, 2);
    assert.equal(info.usage_where, 'finish_chunk');
  });

  it('role in its own chunk is not token-carrying; role with the first token is', async () => {
    const { record: a } = await sendTo(misbehaviours.wellBehaved());
    const { record: b } = await sendTo(misbehaviours.roleWithFirstToken());
    assert.equal(a.chunk_times_ms.length, 3);
    assert.ok((a.first_chunk_at_ms as number) <= (a.first_token_at_ms as number));
    assert.deepEqual(b.chunk_kinds, ['c', 'c']);
    assert.equal(b.first_chunk_at_ms, b.first_token_at_ms);
  });

  it('several events per read and several tokens per chunk', async () => {
    const { record: r } = await sendTo(misbehaviours.multiTokenChunks());
    assert.equal(r.outcome, 'ok');
    assert.deepEqual(r.chunk_kinds, ['c', 'c']);
    assert.equal(r.usage?.completion_tokens, 5, 'token counts come from usage, not chunk counts');
  });

  it('SGLang explicit nulls and usage: null in every chunk', async () => {
    const { record: r, info } = await sendTo(misbehaviours.sglangNulls());
    assert.equal(r.outcome, 'ok');
    assert.deepEqual(r.chunk_kinds, ['r', 'c', 'c']);
    assert.deepEqual(r.usage, {
      prompt_tokens: 20,
      completion_tokens: 3,
      total_tokens: 23,
      reasoning_tokens: 1,
    });
    assert.equal(info.reasoning_field, 'reasoning_content');
  });

  it('llama.cpp timings and cached tokens', async () => {
    const { record: r, info } = await sendTo(misbehaviours.llamacppTimings());
    assert.equal(r.outcome, 'ok');
    assert.deepEqual(r.timings, {
      prompt_n: 4,
      prompt_ms: 12.5,
      predicted_n: 2,
      predicted_ms: 30.1,
      cache_n: 16,
    });
    assert.equal(r.usage?.cached_tokens, 16);
    assert.equal(info.timings_seen, true);
  });

  it('non-stream JSON body: first token = end = body complete', async () => {
    const { record: r } = await sendTo(misbehaviours.jsonBody(), { stream: false });
    assert.equal(r.outcome, 'ok');
    assert.equal(r.done, true);
    assert.equal(r.first_chunk_at_ms, r.end_at_ms);
    assert.equal(r.first_token_at_ms, r.end_at_ms);
    assert.equal(r.first_content_at_ms, r.end_at_ms);
    assert.equal(r.first_reasoning_at_ms, r.end_at_ms);
    assert.deepEqual(r.chunk_kinds, ['c']);
    assert.equal(r.usage?.completion_tokens, 2);
    // Marked as not streamed, so analysis/ gives it no TTFT or TPOT.
    assert.equal(r.stream, false);
  });

  it('a JSON answer to a streaming request is recorded as not streamed; an SSE one as streamed', async () => {
    const { record: json } = await sendTo(misbehaviours.jsonBody(), { stream: true });
    assert.equal(json.outcome, 'ok');
    assert.equal(json.stream, false);
    const { record: sse } = await sendTo(misbehaviours.wellBehaved(), { stream: true });
    assert.equal(sse.stream, true);
  });

  it('onChunk sees every token-carrying chunk as it arrives', async () => {
    const srv = await serve(misbehaviours.reasoningThenContent());
    const seen: string[] = [];
    const r = await target(srv).send({
      id: 'oc',
      planned_id: 'oc',
      attempt: 1,
      phase: 'measure',
      spec,
      planned_at_ms: null,
      signal: new AbortController().signal,
      onChunk: (rec) => {
        seen.push(rec.chunk_kinds.join(''));
        if (seen.length === 2) throw new Error('observer bug');
      },
    });
    produced.push(r);
    assert.deepEqual(seen, ['r', 'rr', 'rrc', 'rrcc']);
    assert.equal(r.outcome, 'ok');
  });
});

describe('capture', () => {
  it('keeps the response text and every parsed data event, only when asked', async () => {
    const srv = await serve(misbehaviours.wellBehaved());
    const send = (capture: boolean) =>
      target(srv).sendDetailed({
        id: `cap-${capture}`,
        planned_id: 'cap',
        attempt: 1,
        phase: 'measure',
        spec,
        planned_at_ms: 0,
        signal: new AbortController().signal,
        capture,
      });
    const on = await send(true);
    assert.equal(on.record.outcome, 'ok');
    const events = on.events ?? [];
    assert.equal(events.at(-1), '[DONE]');
    // role chunk, 3 content chunks, usage chunk, [DONE]
    assert.equal(events.length, 6);
    const text = events
      .slice(0, -1)
      .map((e) => (e as { choices: { delta?: { content?: string } }[] }).choices[0]?.delta?.content ?? '')
      .join('');
    assert.equal(text, 'Hello, world');
    assert.match(on.raw ?? '', /^data: \{.*\n\ndata: \[DONE\]\n\n$/s);
    const off = await send(false);
    assert.equal(off.raw, undefined);
    assert.equal(off.events, undefined);
    // the same record either way
    assert.equal(off.record.outcome, on.record.outcome);
    assert.deepEqual(off.record.chunk_kinds, on.record.chunk_kinds);
  });
});

describe('many requests on one target', () => {
  it('one record per request, keep-alive reuse', async () => {
    const srv = await serve(misbehaviours.wellBehaved());
    const t = target(srv);
    const n = 40;
    const recs = await Promise.all(
      Array.from({ length: n }, (_, i) =>
        t.send({
          id: `m${i}`,
          planned_id: `m${i}`,
          attempt: 1,
          phase: 'measure',
          spec,
          planned_at_ms: null,
          signal: new AbortController().signal,
        }),
      ),
    );
    produced.push(...recs);
    assert.equal(recs.length, n);
    assert.deepEqual(new Set(recs.map((r) => r.id)).size, n);
    assert.ok(recs.every((r) => r.outcome === 'ok'));
    assert.equal(srv.requests.length, n);
  });
});

describe('secrets', () => {
  it('a key passed as a plain header is scrubbed from echoed errors too', async () => {
    const { record: r } = await sendTo(misbehaviours.status401(), {
      apiKey: undefined,
      headers: { Authorization: `Bearer ${KEY}`, 'X-Api-Key': KEY },
    });
    assert.equal(r.http_status, 401);
    assert.ok(!(r.error ?? '').includes(KEY));
  });

  // runs last (tests in a file run in order): every record and error written above
  it('the API key appears in no record or error', () => {
    assert.ok(produced.length > 40, 'the grep must cover every record above');
    const all = JSON.stringify(produced);
    assert.ok(!all.includes(KEY), 'the API key leaked into a record');
    assert.ok(!all.includes(KEY.slice(3)), 'part of the API key leaked into a record');
  });
});
