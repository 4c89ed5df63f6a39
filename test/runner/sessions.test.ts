/**
 * @module test/runner/sessions
 * The sessions load mode over real loopback HTTP: each user a closed loop over its turns, every
 * turn carrying the document and the history with the answers the server actually returned, the
 * session header on every turn, and every planned turn ending as exactly one record. A scripted
 * server fails one session's second turn: its later turns are recorded `cancelled` with the
 * reason, and the other sessions run to the end. Then the same against the simulator.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createHttpTarget } from '../../src/client/http.js';
import { SESSION_ENDED, type SessionLoad } from '../../src/runner/load.js';
import { runLoad } from '../../src/runner/loops.js';
import { RealClock } from '../../src/runtime/clock.js';
import { type SimServer, startSimServer } from '../../src/sim/server/index.js';
import type { ChatMessage, RequestSpec } from '../../src/workload/types.js';
import {
  chatChunk,
  DONE,
  type Script,
  type SeenRequest,
  sse,
  startSseServer,
  type TestServer,
  usageChunk,
} from '../helpers/misbehaving.js';

/** A session of `turns` turns, questions `q{s}.{k}`, answers of at most 4 tokens, no think time. */
function session(s: number, turns: number, prefix: ChatMessage[] = [], thinkMs = 0): SessionLoad {
  return {
    startMs: 0,
    prefix,
    turns: Array.from({ length: turns }, (_, k) => ({
      spec: {
        index: s * 10 + k,
        messages: [{ role: 'user', content: `q${s}.${k}` }],
        input_len: 3,
        output_len: 4,
        session_id: `s${s}`,
        turn: k,
      } satisfies RequestSpec,
      thinkMs,
    })),
  };
}

const userTurns = (req: SeenRequest) =>
  ((req.body?.messages as ChatMessage[] | undefined) ?? []).filter((m) => m.role === 'user').length;

/** Answers `A(<session>,<turn>)` in two chunks; session s1's second turn gets a 500. */
function script(req: SeenRequest): Script {
  const sid = String(req.headers['x-session-id'] ?? req.headers['x-conversation'] ?? '');
  const turn = userTurns(req) - 1;
  if (sid === 's1' && turn === 1)
    return {
      status: 500,
      headers: { 'content-type': 'application/json' },
      steps: [JSON.stringify({ error: { message: 'engine fell over', code: 500 } })],
    };
  return {
    headers: { 'content-type': 'text/event-stream' },
    steps: [
      sse(chatChunk({ role: 'assistant', content: `A(${sid},` })),
      sse(chatChunk({ content: `${turn})`, finish_reason: 'length' })),
      sse(usageChunk({ prompt_tokens: 10, completion_tokens: 4, total_tokens: 14 })),
      DONE,
    ],
  };
}

/** Run `sessions` against `baseUrl` over real HTTP; the target is closed after. */
async function runSessions(
  baseUrl: string,
  sessions: SessionLoad[],
  o: { maxConcurrency?: number; sessionHeader?: string; model?: string } = {},
) {
  const clock = new RealClock();
  const target = createHttpTarget({
    baseUrl,
    endpoint: 'chat',
    model: o.model ?? 'm',
    stream: true,
    clock,
    ...(o.sessionHeader ? { sessionHeader: o.sessionHeader } : {}),
  });
  try {
    return await runLoad(
      {
        load: { kind: 'sessions', sessions, maxConcurrency: o.maxConcurrency ?? null },
        specs: sessions.flatMap((s) => s.turns.map((t) => t.spec)),
      },
      { target, clock },
    );
  } finally {
    await target.close();
  }
}

describe('sessions over loopback HTTP', () => {
  let srv: TestServer;
  before(async () => {
    srv = await startSseServer(script);
  });
  after(() => srv.close());

  it('carries the history the server returned, sends the session header, ends a failed session with the reason', async () => {
    srv.requests.length = 0;
    const doc: ChatMessage[] = [{ role: 'system', content: 'the shared document' }];
    const res = await runSessions(srv.baseUrl, [session(0, 3, doc), session(1, 4), session(2, 2)]);

    // Every planned turn is exactly one record.
    assert.equal(res.records.length, 3 + 4 + 2);
    assert.equal(new Set(res.records.map((r) => `${r.session_id}/${r.turn}`)).size, 9);
    const rec = (s: number, k: number) => res.records.find((r) => r.session_id === `s${s}` && r.turn === k);

    // Session 0: three turns, each carrying the document, the earlier questions and the answers as returned.
    const s0 = srv.requests.filter((r) => r.headers['x-session-id'] === 's0');
    assert.equal(s0.length, 3);
    assert.deepEqual(s0[2].body?.messages, [
      { role: 'system', content: 'the shared document' },
      { role: 'user', content: 'q0.0' },
      { role: 'assistant', content: 'A(s0,0)' },
      { role: 'user', content: 'q0.1' },
      { role: 'assistant', content: 'A(s0,1)' },
      { role: 'user', content: 'q0.2' },
    ]);
    for (let k = 0; k < 3; k++) assert.equal(rec(0, k)?.outcome, 'ok');

    // Session 1: turn 1 fails; turns 2 and 3 are never sent, cancelled with the reason.
    assert.equal(rec(1, 0)?.outcome, 'ok');
    assert.equal(rec(1, 1)?.outcome, 'http_error');
    for (const k of [2, 3]) {
      const r = rec(1, k);
      assert.equal(r?.outcome, 'cancelled');
      assert.equal(r?.sent_at_ms, null);
      assert.match(
        r?.error ?? '',
        new RegExp(`^${SESSION_ENDED}: turn 1 failed \\(http_error: HTTP 500: engine fell over\\)`),
      );
    }
    assert.equal(srv.requests.filter((r) => r.headers['x-session-id'] === 's1').length, 2);

    // Session 2 is not affected by session 1's failure.
    assert.equal(rec(2, 1)?.outcome, 'ok');
    // A turn is planned when the previous answer ended (no think time here), never before it.
    const t0 = rec(0, 0);
    const t1 = rec(0, 1);
    assert.ok(t0?.end_at_ms != null && t1?.planned_at_ms != null && t1.planned_at_ms >= t0.end_at_ms);
    assert.ok(res.records.every((r) => r.phase === 'measure'));
  });

  it('names the session header as configured, and caps turns in flight across users', async () => {
    srv.requests.length = 0;
    const res = await runSessions(srv.baseUrl, [session(0, 2), session(2, 2), session(3, 2)], {
      maxConcurrency: 1,
      sessionHeader: 'X-Conversation',
    });
    assert.equal(res.records.length, 6);
    assert.ok(res.records.every((r) => r.outcome === 'ok'));
    // The turns only: the runner opened its slot's connection first (GET /v1/models, no session).
    const turns = srv.requests.filter((r) => r.method === 'POST');
    assert.deepEqual([...new Set(turns.map((r) => r.headers['x-conversation']))].sort(), ['s0', 's2', 's3']);
    assert.ok(turns.every((r) => r.headers['x-session-id'] === undefined));
    // With one slot, no two turns were in flight at once.
    const spans = res.records
      .map((r) => [r.sent_at_ms as number, r.end_at_ms as number])
      .sort((a, b) => a[0] - b[0]);
    for (let i = 1; i < spans.length; i++) assert.ok(spans[i][0] >= spans[i - 1][1]);
  });
});

describe('sessions against the simulator', () => {
  let sim: SimServer;
  before(async () => {
    sim = await startSimServer({ model: 'llama-3.1-8b', gpu: 'h100', timeScale: 50 }, { log: () => {} });
  });
  after(() => sim.close());

  it('gets a cached-token count that grows with the turn as the history is resent', async () => {
    const words = (n: number, w: string) => Array.from({ length: n }, () => w).join(' ');
    const sessions: SessionLoad[] = [0, 1].map((s) => ({
      startMs: 0,
      prefix: [],
      turns: Array.from({ length: 3 }, (_, k) => ({
        spec: {
          index: s * 3 + k,
          messages: [{ role: 'user', content: `${s} ${k} ${words(120, ['alpha', 'beta', 'gamma'][k])}` }],
          input_len: null,
          output_len: 32,
          session_id: `s${s}`,
          turn: k,
        },
        thinkMs: 0,
      })),
    }));
    const res = await runSessions(`${sim.url}/v1`, sessions, { model: 'llama-3.1-8b' });
    assert.ok(
      res.records.every((r) => r.outcome === 'ok'),
      res.records.map((r) => r.error).join('; '),
    );
    for (const s of ['s0', 's1']) {
      const turns = res.records
        .filter((r) => r.session_id === s)
        .sort((a, b) => (a.turn ?? 0) - (b.turn ?? 0));
      const prompt = turns.map((r) => r.usage?.prompt_tokens ?? 0);
      const cached = turns.map((r) => r.usage?.cached_tokens ?? 0);
      // The prompt grows by the answer and the next question; the cache serves the previous prompt.
      assert.ok(prompt[0] < prompt[1] && prompt[1] < prompt[2], `prompts ${prompt}`);
      assert.ok(cached[1] >= prompt[0] - 16 && cached[2] >= prompt[1] - 16, `cached ${cached} of ${prompt}`);
    }
  });
});
