/**
 * Gate checks, group 3 "context" (docs/gate.md). Prompts of an exact length are sent as token
 * ids on `/v1/completions` (vLLM, SGLang and llama.cpp all take them), so no tokenizer is needed:
 * L−1 tokens pass; L, L+1 and 2L are a 400 before any SSE byte, naming L; a prompt plus
 * max_tokens over L is rejected or clamped the way the old version does it; a body of several MB
 * is refused quickly; `/health` still answers afterwards. L is the context one request may fill:
 * `/v1/models` `max_model_len` (vLLM, SGLang) or `meta.n_ctx`, else `/props` (llama.cpp, per slot).
 */
import { modelEntryContext, propsContext, type ServedContext } from '../../core/models.js';
import { call, type Exchange, evidenceOf, exchange, postLarge } from '../http.js';
import { fail, judgeSame, pass, skipped } from '../result.js';
import type { Check, CheckContext, EachCheck, Evidence, GateTarget, SideResult } from '../types.js';
import { each, modelEntry, once, propsOf } from './shared.js';

/** A prompt of `n` token ids (ids 1000–1999, present in every modern vocabulary). */
function idPrompt(n: number): number[] {
  return Array.from({ length: n }, (_, i) => 1000 + (i % 1000));
}

/** The body of several MB (12 MiB: above the simulator's 10 MiB default --max-body-bytes). */
const LARGE_BODY_BYTES = 12 * 1024 * 1024;
/** How long refusing that body may take, ms. */
export const LARGE_BODY_MAX_MS = 10_000;

/** The response was an event stream (content type), whatever its status. */
function isSse(x: Exchange): boolean {
  const ct = x.result.headers?.['content-type'];
  return String(Array.isArray(ct) ? ct[0] : (ct ?? '')).includes('text/event-stream');
}

/**
 * The context L one request may fill: the served model's `/v1/models` entry (vLLM
 * `max_model_len`, llama.cpp `meta.n_ctx`), else llama.cpp's `/props` (the per-slot
 * `default_generation_settings.n_ctx`); one reading for every engine (`core/models`), asked once
 * per target and pass.
 */
function servedContext(target: GateTarget, ctx: CheckContext): Promise<ServedContext | null> {
  return once(target, 'context', async () => {
    const fromModels = modelEntryContext(await modelEntry(target, ctx));
    if (fromModels) return fromModels;
    return propsContext(await propsOf(target, ctx));
  });
}

function withLen(
  run: (target: GateTarget, ctx: CheckContext, len: number) => Promise<SideResult>,
): EachCheck['run'] {
  return async (target, ctx) => {
    const c = await servedContext(target, ctx);
    if (c === null) return skipped(ctx.t('gate.context.no-len'));
    const r = await run(target, ctx, c.tokens);
    return {
      ...r,
      evidence: [
        { note: ctx.t('gate.context.len-from', { len: c.tokens, source: c.source }) },
        ...r.evidence,
      ],
    };
  };
}

const lenUnchanged = each('3.1', 'context.max-model-len', true, {
  run: withLen(async (_t, _c, len) => pass(len)),
  judge: (old, next, ctx) => judgeSame(old, next, ctx),
});

const belowLimit = each('3.2', 'context.below-limit', false, {
  run: withLen(async (target, ctx, len) => {
    const x = await exchange(
      target,
      ctx,
      { prompt: idPrompt(len - 1), max_tokens: 1, temperature: 0 },
      { endpoint: 'completions' },
    );
    if (x.status === 404)
      return skipped(ctx.t('gate.context.no-completions'), [evidenceOf(x, ctx.t('gate.evidence.response'))]);
    if (x.status !== 200)
      return fail(
        ctx.t('gate.context.below-fail', {
          tokens: len - 1,
          status: x.status ?? x.result.record.error ?? '-',
        }),
        [evidenceOf(x, ctx.t('gate.evidence.response'))],
      );
    return pass(len - 1);
  }),
});

const overLimit = each('3.3', 'context.over-limit', false, {
  run: withLen(async (target, ctx, len) => {
    const observed: Record<string, number | null> = {};
    const problems: string[] = [];
    const evidence: Evidence[] = [];
    for (const [name, n] of [
      ['L', len],
      ['L+1', len + 1],
      ['2L', 2 * len],
    ] as const) {
      const x = await exchange(
        target,
        ctx,
        { prompt: idPrompt(n), max_tokens: 1, temperature: 0, stream: true },
        { endpoint: 'completions' },
      );
      if (x.status === 404) return skipped(ctx.t('gate.context.no-completions'));
      observed[name] = x.status;
      const names = x.raw.includes(String(len));
      if (x.status !== 400 || x.events.length > 0 || isSse(x) || !names) {
        problems.push(
          ctx.t(x.status === 400 && !names ? 'gate.context.over-unnamed' : 'gate.context.over-fail', {
            case: name,
            tokens: n,
            status: x.status ?? '-',
            len,
          }),
        );
        evidence.push(evidenceOf(x, name));
      }
    }
    return problems.length ? fail(problems.join('; '), evidence, observed) : pass(observed);
  }),
});

const promptPlusMax = each('3.4', 'context.prompt-plus-max-tokens', false, {
  run: withLen(async (target, ctx, len) => {
    // L−8 prompt tokens and 16 to generate: over L by 8, and cheap if clamped
    const prompt = len - 8;
    const x = await exchange(
      target,
      ctx,
      { prompt: idPrompt(prompt), max_tokens: 16, temperature: 0 },
      { endpoint: 'completions' },
    );
    if (x.status === 404) return skipped(ctx.t('gate.context.no-completions'));
    if (x.status !== null && x.status >= 400 && x.status < 500) return pass('rejected');
    const tokens = x.result.record.usage?.completion_tokens;
    if (x.status === 200 && typeof tokens === 'number' && tokens <= len - prompt) return pass('clamped');
    return fail(
      ctx.t('gate.context.overrun', {
        status: x.status ?? '-',
        tokens: String(tokens),
        room: len - prompt,
      }),
      [evidenceOf(x, ctx.t('gate.evidence.response'))],
    );
  }),
  judge: (old, next, ctx) =>
    judgeSame(old, next, ctx, (o, n) => ctx.t('gate.context.reject-or-clamp-changed', { old: o, new: n })),
});

const largeBody = each('3.5', 'context.large-body', false, {
  async run(target, ctx) {
    const body = {
      model: target.model,
      messages: [{ role: 'user', content: 'a '.repeat(LARGE_BODY_BYTES / 2) }],
      max_tokens: 1,
    };
    const r = await postLarge(target, ctx, '/chat/completions', JSON.stringify(body), LARGE_BODY_MAX_MS);
    const observed = { status: r.status, ms: Math.round(r.ms) };
    const shown = {
      ...body,
      messages: [{ role: 'user', content: `${'a '.repeat(16)}… (${LARGE_BODY_BYTES} bytes)` }],
    };
    if (r.status !== null && r.status >= 400 && r.status < 500 && r.ms <= LARGE_BODY_MAX_MS)
      return pass(observed);
    return fail(
      ctx.t('gate.context.large-body-fail', {
        mb: LARGE_BODY_BYTES / 1024 / 1024,
        status: r.status ?? r.error ?? '-',
        ms: Math.round(r.ms),
        limit: LARGE_BODY_MAX_MS,
      }),
      [evidenceOf(r, ctx.t('gate.evidence.response'), shown)],
      observed,
    );
  },
});

const healthAfter = each('3.6', 'context.health-after', true, {
  async run(target, ctx) {
    const r = await call(target, ctx, 'GET', '/health', { root: true });
    if (r.status === 200) return pass(200);
    return fail(ctx.t('gate.context.health-fail', { status: r.status ?? r.error ?? '-' }), [
      evidenceOf(r, ctx.t('gate.evidence.response')),
    ]);
  },
});

export const checks: Check[] = [lenUnchanged, belowLimit, overLimit, promptPlusMax, largeBody, healthAfter];
