/**
 * Gate checks, group 1 "stream": framing and parity (docs/gate.md). One greedy streamed request
 * (shared by 1.1–1.3, 1.5, 1.6 on each target) is read event by event; the others send what they
 * test (a batch of short streams, the same request without streaming, max_tokens, stop, n=2,
 * logprobs).
 */

import { type ChatView, readChat } from '../chat-view.js';
import { type Exchange, evidenceOf, exchange } from '../http.js';
import { fail, pass, skipped } from '../result.js';
import type { Check, CheckContext, EachCheck, GateTarget, SideResult } from '../types.js';
import { each, once, userChat } from './shared.js';

/** The greedy prompt of the stream group: a long enough answer for stop strings and parity. */
const PROMPT = 'Count from one to twenty in words, separated by spaces.';
const MAX_TOKENS = 48;

function streamed(target: GateTarget, ctx: CheckContext): Promise<Exchange> {
  return once(target, 'stream.basic', () =>
    exchange(target, ctx, userChat(PROMPT, { max_tokens: MAX_TOKENS, temperature: 0, stream: true })),
  );
}

/** The answer must have arrived at all before its framing is judged. */
function answered(x: Exchange, ctx: CheckContext): SideResult | null {
  const r = x.result.record;
  if (x.status !== 200 || x.events.length === 0)
    return fail(ctx.t('gate.request.failed', { status: x.status ?? '-', error: r.error ?? '' }), [
      evidenceOf(x, ctx.t('gate.evidence.response')),
    ]);
  return null;
}

/** A check on the shared greedy stream. */
function onBasic(
  id: Parameters<typeof each>[1],
  number: string,
  judge: (v: ChatView, x: Exchange, ctx: CheckContext) => SideResult,
): EachCheck {
  return each(number, id, true, {
    async run(target, ctx) {
      const x = await streamed(target, ctx);
      return answered(x, ctx) ?? judge(readChat(x), x, ctx);
    },
  });
}

const roleFirst = onBasic('stream.role-first', '1.1', (v, x, ctx) => {
  const bad = v.choices.filter((c) => c.firstRole !== 'assistant');
  if (v.choices.length === 0 || bad.length > 0)
    return fail(ctx.t('gate.stream.role-first.fail', { role: bad[0]?.firstRole ?? 'none' }), [
      evidenceOf(x, ctx.t('gate.evidence.stream')),
    ]);
  return pass('assistant');
});

const oneId = onBasic('stream.one-id', '1.2', (v, x, ctx) => {
  if (v.ids.length !== 1)
    return fail(
      ctx.t('gate.stream.one-id.fail', { count: v.ids.length, ids: v.ids.slice(0, 3).join(', ') }),
      [evidenceOf(x, ctx.t('gate.evidence.stream'))],
    );
  return pass(1);
});

const oneFinish = onBasic('stream.one-finish', '1.3', (v, x, ctx) => {
  const bad = v.choices.find((c) => c.finishReasons.length !== 1);
  if (v.choices.length === 0 || bad)
    return fail(
      ctx.t('gate.stream.one-finish.fail', {
        count: bad?.finishReasons.length ?? 0,
        reasons: bad?.finishReasons.join(', ') || '-',
      }),
      [evidenceOf(x, ctx.t('gate.evidence.stream'))],
    );
  return pass(v.choices[0].finishReasons[0]);
});

const usageChunk = onBasic('stream.usage-chunk', '1.5', (v, x, ctx) => {
  const u = v.usage;
  const ok =
    u !== null &&
    typeof u.prompt_tokens === 'number' &&
    typeof u.completion_tokens === 'number' &&
    u.completion_tokens > 0;
  if (!ok)
    return fail(ctx.t('gate.stream.usage-chunk.fail', { usage: JSON.stringify(u) }), [
      evidenceOf(x, ctx.t('gate.evidence.stream')),
    ]);
  return pass(x.result.info.usage_where);
});

const done = onBasic('stream.done', '1.6', (v, x, ctx) => {
  if (!v.done || v.afterDone > 0 || x.events[x.events.length - 1] !== '[DONE]')
    return fail(ctx.t('gate.stream.done.fail', { after: v.afterDone }), [
      evidenceOf(x, ctx.t('gate.evidence.stream')),
    ]);
  return pass(true);
});

/** finish_reason values a complete answer may end with. */
const NORMAL_FINISH = new Set(['stop', 'length', 'tool_calls']);

/** 1.4: a batch of short streams; an `abort`/`error` finish followed by `[DONE]` is no success. */
const finishReason = each('1.4', 'stream.finish-reason', true, {
  async run(target, ctx) {
    const total = ctx.probe ? 4 : 32;
    const xs: Exchange[] = [];
    for (let i = 0; i < total; i += 8)
      xs.push(
        ...(await Promise.all(
          Array.from({ length: Math.min(8, total - i) }, (_, j) =>
            exchange(
              target,
              ctx,
              userChat(`Write a short sentence about the number ${i + j}.`, {
                max_tokens: 16,
                temperature: 0,
                stream: true,
              }),
            ),
          ),
        )),
      );
    const counts: Record<string, number> = {};
    const bad: Exchange[] = [];
    for (const x of xs) {
      const v = readChat(x);
      const reasons = v.choices.flatMap((c) => c.finishReasons);
      const key = x.status !== 200 ? `HTTP ${x.status ?? '-'}` : reasons.join('+') || 'none';
      counts[key] = (counts[key] ?? 0) + 1;
      if (x.status !== 200 || reasons.length === 0 || reasons.some((r) => !NORMAL_FINISH.has(r))) bad.push(x);
    }
    if (bad.length > 0) {
      const abortDone = bad.filter((x) => {
        const v = readChat(x);
        return v.done && v.choices.some((c) => c.finishReasons.some((r) => r === 'abort' || r === 'error'));
      }).length;
      return fail(
        ctx.t(abortDone > 0 ? 'gate.stream.finish-reason.abort' : 'gate.stream.finish-reason.fail', {
          bad: bad.length,
          total,
          abort: abortDone,
          counts: JSON.stringify(counts),
        }),
        bad.slice(0, 3).map((x) => evidenceOf(x, ctx.t('gate.evidence.stream'))),
        counts,
      );
    }
    return pass(counts);
  },
});

/** 1.7: the streamed text equals the non-streamed text at temperature 0. */
const parity = each('1.7', 'stream.parity', true, {
  async run(target, ctx) {
    const s = await streamed(target, ctx);
    const n = await exchange(
      target,
      ctx,
      userChat(PROMPT, { max_tokens: MAX_TOKENS, temperature: 0, stream: false }),
    );
    const bad = answered(s, ctx) ?? (n.status === 200 ? null : answered(n, ctx));
    if (bad) return bad;
    const a = readChat(s).choices[0]?.content ?? '';
    const b = readChat(n).choices[0]?.content ?? '';
    if (a !== b || a === '')
      return fail(ctx.t('gate.stream.parity.fail', { streamed: a.slice(0, 80), plain: b.slice(0, 80) }), [
        evidenceOf(s, ctx.t('gate.evidence.stream')),
        evidenceOf(n, ctx.t('gate.evidence.body')),
      ]);
    return pass(a.length);
  },
});

/** 1.8: `max_tokens: 5` ends at 5 tokens with `length`. */
const maxTokens = each('1.8', 'stream.max-tokens', true, {
  async run(target, ctx) {
    const x = await exchange(target, ctx, userChat(PROMPT, { max_tokens: 5, temperature: 0, stream: true }));
    const bad = answered(x, ctx);
    if (bad) return bad;
    const v = readChat(x);
    const tokens = v.usage?.completion_tokens;
    const reason = v.choices[0]?.finishReasons[0] ?? null;
    if (typeof tokens !== 'number' || tokens > 5 || reason !== 'length')
      return fail(ctx.t('gate.stream.max-tokens.fail', { tokens: String(tokens), reason: String(reason) }), [
        evidenceOf(x, ctx.t('gate.evidence.stream')),
      ]);
    return pass({ completion_tokens: tokens, finish_reason: reason });
  },
});

/** 1.9: a stop string taken from the greedy answer cuts it there, with finish_reason `stop`. */
const stop = each('1.9', 'stream.stop', true, {
  async run(target, ctx) {
    const base = await streamed(target, ctx);
    const bad = answered(base, ctx);
    if (bad) return bad;
    const text = readChat(base).choices[0]?.content ?? '';
    // a word from the middle of the answer, long enough not to occur earlier by chance
    const words = [...text.matchAll(/\S{3,}/g)].filter((m) => text.indexOf(m[0]) === m.index);
    const pick = words[Math.floor(words.length / 2)];
    if (!pick || pick.index === undefined || pick.index === 0)
      return skipped(ctx.t('gate.stream.stop.short', { text: text.slice(0, 80) }));
    const word = pick[0];
    const x = await exchange(
      target,
      ctx,
      userChat(PROMPT, { max_tokens: MAX_TOKENS, temperature: 0, stream: true, stop: [word] }),
    );
    const b2 = answered(x, ctx);
    if (b2) return b2;
    const v = readChat(x).choices[0];
    const want = text.slice(0, pick.index);
    if (
      !v ||
      v.content.includes(word) ||
      v.finishReasons[0] !== 'stop' ||
      v.content.trimEnd() !== want.trimEnd()
    )
      return fail(
        ctx.t('gate.stream.stop.fail', {
          stop: word,
          got: (v?.content ?? '').slice(-60),
          reason: v?.finishReasons[0] ?? '-',
        }),
        [evidenceOf(x, ctx.t('gate.evidence.stream'))],
      );
    return pass('stop');
  },
});

/** 1.10: `n: 2` gives choices 0 and 1, each finished, streamed and not. */
const n2 = each('1.10', 'stream.n2', true, {
  async run(target, ctx) {
    const evidence = [];
    for (const stream of [true, false]) {
      const x = await exchange(
        target,
        ctx,
        userChat('Name a colour.', { max_tokens: 8, temperature: 1, seed: ctx.seed, n: 2, stream }),
      );
      if (x.status !== null && x.status >= 400 && x.status < 500 && stream)
        return skipped(ctx.t('gate.stream.n2.unsupported', { status: x.status }), [
          evidenceOf(x, ctx.t('gate.evidence.response')),
        ]);
      const v = readChat(x);
      const idx = v.choices.map((c) => c.index).join(',');
      if (x.status !== 200 || idx !== '0,1' || v.choices.some((c) => c.finishReasons.length !== 1)) {
        evidence.push(evidenceOf(x, ctx.t(stream ? 'gate.evidence.stream' : 'gate.evidence.body')));
        return fail(ctx.t('gate.stream.n2.fail', { indexes: idx || '-', status: x.status ?? '-' }), evidence);
      }
    }
    return pass(2);
  },
});

/** 1.11: `logprobs` with `top_logprobs: 2`: one entry per token, logprob ≤ 0, two alternatives. */
const logprobs = each('1.11', 'stream.logprobs', true, {
  async run(target, ctx) {
    const x = await exchange(
      target,
      ctx,
      userChat(PROMPT, { max_tokens: 8, temperature: 0, stream: true, logprobs: true, top_logprobs: 2 }),
    );
    if (x.status !== null && x.status >= 400 && x.status < 500)
      return skipped(ctx.t('gate.stream.logprobs.unsupported', { status: x.status }), [
        evidenceOf(x, ctx.t('gate.evidence.response')),
      ]);
    const bad = answered(x, ctx);
    if (bad) return bad;
    const v = readChat(x);
    const lp = v.choices[0]?.logprobs ?? [];
    const tokens = v.usage?.completion_tokens;
    const wrong = lp.find(
      (e) =>
        typeof e.logprob !== 'number' ||
        e.logprob > 0 ||
        !Array.isArray(e.top_logprobs) ||
        (e.top_logprobs as unknown[]).length !== 2,
    );
    if (lp.length === 0 || wrong || (typeof tokens === 'number' && lp.length !== tokens))
      return fail(
        ctx.t('gate.stream.logprobs.fail', {
          entries: lp.length,
          tokens: String(tokens),
          entry: JSON.stringify(wrong ?? null).slice(0, 120),
        }),
        [evidenceOf(x, ctx.t('gate.evidence.stream'))],
      );
    return pass(lp.length);
  },
});

export const checks: Check[] = [
  roleFirst,
  oneId,
  oneFinish,
  finishReason,
  usageChunk,
  done,
  parity,
  maxTokens,
  stop,
  n2,
  logprobs,
];
