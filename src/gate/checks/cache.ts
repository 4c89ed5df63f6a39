/**
 * Gate checks, group "cache" (docs/gate.md, group 8): cache parity. A greedy request on a cold
 * prefix cache and its repeat on a warm one must give the same text: the cached KV blocks are the
 * ones the cold request computed. Kernels do differ between a full prefill and a cached prefix
 * plus a short one (different batch shapes, different reduction order), so a divergence is
 * tolerated where the two top candidates were within {@link MARGIN_LIMIT} in logprob, a near tie
 * that floating-point rounding can flip; anything wider is a cache that returns the wrong state.
 */
import { freshPrompt, openChat } from '../load/target-io.js';
import type { Check, EachCheck, Evidence } from '../types.js';
import { trimEvidence } from '../types.js';

/** A divergence at a top-two logprob margin below this is a near tie, not a cache bug. */
export const MARGIN_LIMIT = 0.1;

/** Words of the prompt: well over a few KV blocks (vLLM's default block is 16 tokens). */
const PROMPT_WORDS = 240;

interface LpEntry {
  token: string;
  logprob: number;
  top_logprobs?: { token: string; logprob: number }[];
}

interface Answer {
  text: string;
  logprobs: LpEntry[] | null;
}

function answerOf(body: string): Answer | null {
  try {
    const j = JSON.parse(body) as {
      choices?: { message?: { content?: unknown }; logprobs?: { content?: unknown } | null }[];
    };
    const c = j.choices?.[0];
    if (typeof c?.message?.content !== 'string') return null;
    const lp = c.logprobs?.content;
    return { text: c.message.content, logprobs: Array.isArray(lp) && lp.length ? (lp as LpEntry[]) : null };
  } catch {
    return null;
  }
}

/** The top-two logprob margin of one entry (null with fewer than two candidates). */
function margin(e: LpEntry | undefined): number | null {
  const top = (e?.top_logprobs ?? []).map((x) => x.logprob).sort((a, b) => b - a);
  return top.length >= 2 ? top[0] - top[1] : null;
}

const warmColdParity: EachCheck = {
  kind: 'each',
  id: 'cache.warm-cold-parity',
  number: '8.1',
  group: 'cache',
  title: 'gate-load.title.warm-cold-parity',
  probe: true,
  async run(target, ctx) {
    const { t } = ctx;
    // A prompt no earlier request shared: the first request meets a cold cache for all of it.
    const body = {
      messages: [{ role: 'user', content: freshPrompt(ctx.seed, `cache-${target.role}`, PROMPT_WORDS) }],
      temperature: 0,
      max_tokens: 48,
      logprobs: true,
      top_logprobs: 2,
      stream: false,
    };
    const evidence: Evidence[] = [];
    const answers: Answer[] = [];
    for (const which of ['cold', 'warm'] as const) {
      const req = openChat(target, body, ctx.timeoutMs);
      const end = await req.done;
      evidence.push({
        note: t(which === 'cold' ? 'gate-load.evidence.cold' : 'gate-load.evidence.warm'),
        sent: trimEvidence(req.body),
        received: trimEvidence(end.body),
      });
      const a = end.status === 200 ? answerOf(end.body) : null;
      if (!a)
        return {
          status: 'fail',
          reason: t('gate-load.cache.failed', { which, error: end.error ?? `HTTP ${end.status}` }),
          evidence,
        };
      answers.push(a);
    }
    const [cold, warm] = answers;
    if (cold.text === warm.text) return { status: 'pass', observed: { same: true }, evidence };
    if (!cold.logprobs || !warm.logprobs) {
      let i = 0;
      while (i < cold.text.length && cold.text[i] === warm.text[i]) i++;
      return {
        status: 'fail',
        reason: t('gate-load.cache.diverged-no-logprobs', { index: i }),
        observed: { same: false, margin: null },
        evidence,
      };
    }
    let i = 0;
    while (
      i < cold.logprobs.length &&
      i < warm.logprobs.length &&
      cold.logprobs[i].token === warm.logprobs[i].token
    )
      i++;
    // The near tie may show on either side: the cold pass's candidates or the warm one's.
    const ms = [margin(cold.logprobs[i]), margin(warm.logprobs[i])].filter((m): m is number => m !== null);
    const m = ms.length ? Math.min(...ms) : null;
    const observed = { same: false, index: i, margin: m === null ? null : Math.round(m * 1e4) / 1e4 };
    if (m !== null && m < MARGIN_LIMIT) return { status: 'pass', observed, evidence };
    return {
      status: 'fail',
      reason: t('gate-load.cache.diverged', {
        index: i,
        cold: JSON.stringify(cold.logprobs[i]?.token ?? ''),
        warm: JSON.stringify(warm.logprobs[i]?.token ?? ''),
        margin: observed.margin ?? 'null',
        limit: MARGIN_LIMIT,
      }),
      observed,
      evidence,
    };
  },
};

export const checks: Check[] = [warmColdParity];
