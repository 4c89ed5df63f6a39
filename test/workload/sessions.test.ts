/**
 * @module test/workload/sessions
 * The session workload: seeded and stable per session (more users leave the first sessions
 * unchanged), token-exact questions and documents, Zipf document picks, the intended sharing
 * computed by hand, and the option problems.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UsageError } from '../../src/core/errors.js';
import { Rng } from '../../src/runtime/rng.js';
import { buildWorkload } from '../../src/workload/build.js';
import { workloadProblems } from '../../src/workload/options.js';
import { intendedSharing, zipfPick } from '../../src/workload/sessions.js';
import type { RequestSpec } from '../../src/workload/types.js';

const opts = (users: number, seed = 7) => ({
  seed,
  model: 'qwen3-8b',
  inputLen: 'uniform:20-40',
  outputLen: 16,
  sessions: { users, turns: 'uniform:2-4', thinkTime: 'exp:3', documents: 3, docLen: 'uniform:200-300' },
});

describe('session workload', () => {
  it('documentSeed keeps the documents of one seed under the sessions of another', async () => {
    const a = await buildWorkload(opts(3, 7));
    const o = opts(3, 8);
    const b = await buildWorkload({ ...o, sessions: { ...o.sessions, documentSeed: 7 } });
    const c = await buildWorkload(opts(3, 8));
    // The same documents as seed 7's; new questions (seed 8's, as without documentSeed).
    assert.deepEqual(b.sessions?.documents, a.sessions?.documents);
    assert.notDeepEqual(c.sessions?.documents, a.sessions?.documents);
    const qs = (w: typeof a) => w.sessions?.sessions.map((x) => x.turns.map((t) => t.spec.messages));
    assert.deepEqual(qs(b), qs(c));
    assert.notDeepEqual(qs(b), qs(a));
  });
  it('is reproducible, token-exact, and stable per session when users are added', async () => {
    const a = await buildWorkload(opts(3));
    const b = await buildWorkload(opts(3));
    const c = await buildWorkload(opts(5));
    assert.deepEqual(a.sessions, b.sessions);
    assert.equal(a.method, 'tokenizer');
    assert.equal(a.inexact, 0);
    const sa = a.sessions?.sessions ?? [];
    const sc = c.sessions?.sessions ?? [];
    assert.equal(sa.length, 3);
    assert.equal(sc.length, 5);
    for (let s = 0; s < 3; s++) {
      assert.equal(sc[s].document, sa[s].document);
      assert.deepEqual(
        sc[s].turns.map((t) => [t.spec.messages, t.spec.input_len, t.spec.output_len, t.think_s]),
        sa[s].turns.map((t) => [t.spec.messages, t.spec.input_len, t.spec.output_len, t.think_s]),
      );
    }
    assert.deepEqual(a.sessions?.documents, c.sessions?.documents);
    // Turns in range, identified, indexed 0..n−1 over the sessions in order, as the specs.
    const specs: RequestSpec[] = sc.flatMap((s) => s.turns.map((t) => t.spec));
    assert.deepEqual(c.specs, specs);
    assert.deepEqual(
      specs.map((s) => s.index),
      specs.map((_, i) => i),
    );
    for (const s of sc) {
      assert.ok(s.turns.length >= 2 && s.turns.length <= 4);
      s.turns.forEach((t, k) => {
        assert.equal(t.spec.session_id, s.id);
        assert.equal(t.spec.turn, k);
        assert.ok(t.think_s >= 0);
        assert.equal(t.spec.messages?.length, 1);
        assert.equal(t.spec.messages?.[0].role, 'user');
      });
    }
    for (const d of c.sessions?.documents ?? []) assert.ok(d.tokens >= 200 && d.tokens <= 300);
    // A different seed changes the content.
    const other = await buildWorkload(opts(3, 8));
    assert.notDeepEqual(other.sessions?.sessions[0].turns[0].spec.messages, sa[0].turns[0].spec.messages);
  });

  it('picks documents by Zipf: popularity falls with the rank, S = 0 is uniform', () => {
    const counts = (s: number) => {
      const rng = new Rng(11);
      const n = [0, 0, 0, 0];
      for (let i = 0; i < 8000; i++) n[zipfPick(rng, 4, s)]++;
      return n;
    };
    const z1 = counts(1);
    assert.ok(z1[0] > z1[1] && z1[1] > z1[2] && z1[2] > z1[3], `zipf:1 ${z1}`);
    // P(0) = 1 / (1 + 1/2 + 1/3 + 1/4) = 0.48
    assert.ok(Math.abs(z1[0] / 8000 - 0.48) < 0.03, `zipf:1 ${z1}`);
    for (const n of counts(0)) assert.ok(Math.abs(n / 8000 - 0.25) < 0.03);
  });

  it('computes the intended sharing: documents across sessions, history within one', () => {
    // Two sessions on document 0 (100 tokens), two turns each: question 10, answer 20 tokens.
    const turn = (k: number) => ({ spec: { index: k, input_len: 10, output_len: 20 }, think_s: 0 });
    const s = { document: 0, turns: [turn(0), turn(1)] };
    const r = intendedSharing([s, s], [100]);
    // prompts: 110, 140 (110 + 20 + 10), 110, 140 = 500; shared: 0, 130, 100, 130 = 360
    assert.equal(r.ratio, 360 / 500);
    assert.deepEqual(r.per_turn, [100 / 220, 260 / 280]);
    assert.equal(r.document_ratio, 200 / 500);
    const none = intendedSharing([{ document: null, turns: [turn(0)] }], []);
    assert.equal(none.ratio, 0);
    assert.equal(intendedSharing([], []).ratio, null);
  });

  it('reports every problem of the session options at once', async () => {
    const problems = workloadProblems({
      seed: 1,
      prompt: 'hi',
      sessions: { users: 0, turns: '0', thinkTime: '-1', documents: 2, docPopularity: 'pareto:1' },
    });
    const paths = problems.map((p) => p.path);
    for (const p of ['--users', '--turns', '--think-time', '--doc-len', '--doc-popularity'])
      assert.ok(paths.includes(p), `${p} in ${paths}`);
    assert.ok(problems.some((p) => /synthetic/.test(p.message)));
    assert.ok(problems.every((p) => p.hint));
    await assert.rejects(
      buildWorkload({ seed: 1, inputLen: 8, sessions: { users: 2, turns: 1, thinkTime: 0, docLen: 100 } }),
      UsageError,
    );
  });
});
