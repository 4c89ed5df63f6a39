/**
 * @module test/analysis/sessions
 * The sessions block from hand-made records, every value computed by hand: per-turn TTFT and
 * user wait, the user wait from the first attempt's planned time (a retry and a slot wait
 * included), turns per user-minute, cache hit rates per turn, and how sessions ended.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { summarizeSessions } from '../../src/analysis/sessions.js';
import type { RequestRecord } from '../../src/record/types.js';
import { type RecSpec, rec } from './records.js';

function turn(session: string, k: number, s: RecSpec & { cached?: number }): RequestRecord {
  const r = rec({ tokens: 4, ...s });
  r.session_id = session;
  r.turn = k;
  if (r.usage && s.cached !== undefined) r.usage.cached_tokens = s.cached;
  return r;
}

describe('summarizeSessions', () => {
  it('is null for a run without sessions', () => {
    assert.equal(summarizeSessions([rec({ id: 'a', chunks: [[5, 'c']] })]), null);
  });

  it('gives per-turn TTFT, the user wait, turns per user-minute and hit rates', () => {
    const records = [
      // s0: two turns, both ok. Turn 0 planned 0, sent 0, first content 100, end 1000.
      turn('s0', 0, {
        id: 'a',
        planned: 0,
        sent: 0,
        chunks: [[100, 'c']],
        end: 1000,
        prompt: 100,
        cached: 0,
      }),
      // Turn 1 planned 3000 (think 2 s), waited 500 ms for a slot: sent 3500, content 3550.
      turn('s0', 1, {
        id: 'b',
        planned: 3000,
        sent: 3500,
        chunks: [[3550, 'c']],
        end: 6000,
        prompt: 200,
        cached: 150,
      }),
      // s1: turn 0 failed with a 503 then its retry succeeded; turn 1 failed; turn 2 never sent.
      turn('s1', 0, {
        id: 'c',
        planned_id: 'c',
        attempt: 1,
        planned: 0,
        sent: 0,
        end: 10,
        outcome: 'http_error',
      }),
      turn('s1', 0, {
        id: 'c.2',
        planned_id: 'c',
        attempt: 2,
        planned: 260,
        sent: 260,
        chunks: [[300, 'c']],
        end: 2000,
        prompt: 120,
        cached: 20,
      }),
      turn('s1', 1, { id: 'd', planned: 4000, sent: 4000, end: 4010, outcome: 'http_error' }),
      turn('s1', 2, { id: 'e', planned: null, sent: null, end: null, outcome: 'cancelled' }),
    ];
    const s = summarizeSessions(records, {
      intended: { ratio: 0.5, per_turn: [0.1, 0.6, 0.7], document_ratio: 0.2 },
      server_prefix_hit_rate: 0.4,
    });
    assert.ok(s);
    assert.deepEqual(s.sessions, { planned: 2, completed: 1, ended_early: 1, never_started: 0 });
    assert.equal(s.turns.planned, 5);
    assert.equal(s.turns.succeeded, 3);
    assert.equal(s.turns.failed, 2);
    assert.equal(s.turns.cancelled, 1);
    // User waits: 100 (s0 t0), 550 (s0 t1: slot wait included), 300 (s1 t0: from the first attempt's plan).
    assert.equal(s.user_ttft_ms.n, 3);
    assert.equal(s.user_ttft_ms.p50, 300);
    assert.equal(s.user_ttft_ms.max, 550);
    const [t0, t1, t2] = s.per_turn;
    assert.equal(t0.planned, 2);
    assert.equal(t0.succeeded, 2);
    // TTFT (server side: content − sent) 100 and 40; p50 = 70, p90 = 40 + 0.9·60 = 94.
    assert.equal(t0.ttft_ms.p50, 70);
    assert.ok(Math.abs((t0.ttft_ms.p90 ?? 0) - 94) < 1e-9);
    assert.equal(t0.user_ttft_ms.p50, 200);
    assert.equal(t0.prompt_tokens_mean, 110);
    assert.equal(t0.cache_hit_rate, 20 / 220);
    assert.equal(t0.intended_sharing, 0.1);
    assert.equal(t1.ttft_ms.p50, 50);
    assert.equal(t1.user_ttft_ms.p50, 550);
    assert.equal(t1.cache_hit_rate, 150 / 200);
    assert.equal(t2.succeeded, 0);
    assert.equal(t2.ttft_ms.p50, null);
    assert.equal(t2.cache_hit_rate, null);
    assert.equal(s.cache_hit_rate, 170 / 420);
    // User-minutes: s0 0 → 6000, s1 0 → 4010: 10 010 ms; 3 successful turns.
    assert.equal(s.turns_per_user_minute, 3 / (10_010 / 60_000));
    assert.equal(s.intended_sharing, 0.5);
    assert.equal(s.intended_document_sharing, 0.2);
    assert.equal(s.server_prefix_hit_rate, 0.4);
  });

  it('says null, not 0, when usage carries no cached tokens', () => {
    const s = summarizeSessions([turn('s0', 0, { id: 'a', chunks: [[5, 'c']], end: 5, prompt: 10 })]);
    assert.equal(s?.cache_hit_rate, null);
    assert.equal(s?.per_turn[0].cache_hit_rate, null);
    assert.equal(s?.intended_sharing, null);
    assert.equal(s?.server_prefix_hit_rate, null);
  });
});
