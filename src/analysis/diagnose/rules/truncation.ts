/**
 * @module analysis/diagnose/rules/truncation
 * Requests cut by a token limit (`truncation`): by max_tokens, or by the context window;
 * critical when structured output is configured.
 */
import type { RequestRecord } from '../../../record/types.js';
import type { LoadedRun } from '../../loaded-run.js';
import { describe } from '../../stats.js';
import { measuredSuccesses } from '../../summary.js';
import { engineTerms } from '../engine-terms.js';
import type { Finding } from '../types.js';
import { type Opts, one, type Rule } from './rule.js';
import { fmt } from './shared.js';

/** A context-window cut: how many cut requests show it, the window and what they asked for. */
interface ContextCut {
  k: number;
  /** Prompt plus output tokens where they stopped: the context window (per slot on llama.cpp). */
  ctx: number;
  /** The output tokens they asked for (the most common cap among them). */
  cap: number;
}

function mode(xs: readonly number[]): number {
  const n = new Map<number, number>();
  for (const x of xs) n.set(x, (n.get(x) ?? 0) + 1);
  return [...n].reduce((a, b) => (b[1] > a[1] || (b[1] === a[1] && b[0] > a[0]) ? b : a))[0];
}

/** The run's generic max_tokens cap: `run`'s config says `generation.maxTokens`. */
function runMaxTokens(config: Record<string, unknown>): unknown {
  const gen = config.generation as { maxTokens?: unknown; max_tokens?: unknown } | undefined;
  return gen?.maxTokens ?? gen?.max_tokens ?? config.max_tokens;
}

/**
 * Whether the cut requests ran into the context window rather than their max_tokens: a request
 * that asked for N output tokens (its `output_len`, else the run's `max_tokens`) and stopped with
 * `finish_reason: length` below N was not stopped by max_tokens. Such a stop is the context
 * window when prompt plus output reached the same total on most of them: vLLM's
 * `max_model_len`, SGLang's `--context-length`, or on llama.cpp the slot's context
 * (`n_ctx_slot`, `-c` over `-np`): llama-server ends a generation when
 * `n_past + 1 >= n_ctx_slot` and sends `finish_reason: "length"` (its `/completion` API says
 * `truncated: true, stop_type: "limit"`; `ggml-org/llama.cpp:tools/server/server.cpp`). Null when
 * at most half the cut requests stopped below their cap, or their totals differ.
 */
function contextCut(cut: readonly RequestRecord[], runMaxTokens: unknown): ContextCut | null {
  const below: { total: number; cap: number }[] = [];
  for (const r of cut) {
    const cap = r.output_len ?? (typeof runMaxTokens === 'number' ? runMaxTokens : null);
    const p = r.usage?.prompt_tokens;
    const c = r.usage?.completion_tokens;
    if (cap === null || p == null || c == null || c >= cap) continue;
    below.push({ total: p + c, cap });
  }
  if (below.length === 0 || 2 * below.length <= cut.length) return null;
  const ctx = mode(below.map((b) => b.total));
  const at = below.filter((b) => b.total === ctx);
  if (2 * at.length <= cut.length) return null;
  return { k: at.length, ctx, cap: mode(at.map((b) => b.cap)) };
}

/**
 * Requests cut by a token limit (outcome `length`: they stopped at a limit before the output
 * length they asked for, or asked for none; `isTruncated` in `record/outcome`). A fixed-length
 * benchmark whose requests reached their length is not truncated, so it never shows here. With
 * structured output configured, a cut answer is also invalid JSON.
 */
export function truncation(run: LoadedRun, o: Opts): Finding | null {
  const s = run.summary;
  const n = s.requests.measured;
  const cut = s.outcomes.length;
  if (n === 0 || cut / n <= o.max_truncated_fraction) return null;
  const target = run.config.target as { extra_body?: Record<string, unknown> | null } | undefined;
  const cfg = { ...(target?.extra_body ?? {}), ...run.config };
  const structured = [
    'response_format',
    'json_schema',
    'guided_json',
    'guided_regex',
    'structured_outputs',
  ].find((k) => cfg[k] != null);
  const cutRecs = measuredSuccesses(run.records).filter((r) => r.outcome === 'length');
  const ids = cutRecs.slice(0, 5).map((r) => r.id);
  const outLen = describe(cutRecs.map((r) => r.usage?.completion_tokens ?? 0));
  const t = o.t;
  const ctxCut = contextCut(cutRecs, runMaxTokens(run.config));
  const terms = ctxCut ? engineTerms(run, t) : null;
  return {
    rule: 'truncation',
    severity: structured ? 'critical' : 'warn',
    runs: [run.id],
    symptom: t('diagnose.truncation.symptom', { cut, n, pct: fmt((100 * cut) / n, 0) }),
    evidence: [
      t('diagnose.truncation.ev_tokens', { p50: fmt(outLen.p50, 0), max: fmt(outLen.max, 0) }),
      structured
        ? t('diagnose.truncation.ev_structured', { key: structured })
        : t('diagnose.truncation.ev_unstructured'),
      ...(ctxCut
        ? [t('diagnose.truncation.ev_context', { k: ctxCut.k, cap: ctxCut.cap, ctx: ctxCut.ctx })]
        : []),
    ],
    request_ids: ids,
    mechanism:
      ctxCut && terms
        ? t('diagnose.truncation.mechanism_context', { window: terms.contextWindow(String(ctxCut.ctx)) })
        : t(structured ? 'diagnose.truncation.mechanism_structured' : 'diagnose.truncation.mechanism'),
    next: {
      command: 'servelab exp init baseline',
      change:
        ctxCut && terms
          ? t('diagnose.truncation.next_context', { limit: terms.contextLimit, ctx: ctxCut.ctx })
          : t('diagnose.truncation.next'),
    },
  };
}

export const rule: Rule = {
  id: 'truncation',
  scope: 'run',
  needs: ['own_outcomes'],
  emits: ['truncation'],
  run: (run, { o }) => one(truncation(run, o)),
};
