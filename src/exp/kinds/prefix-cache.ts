/**
 * @module exp/kinds/prefix-cache
 * `prefix-cache`: a long shared document with the question last, in four phases, one request
 * at a time:
 *  - **cold**: each request after a cache reset (vLLM `/reset_prefix_cache`, SGLang
 *    `/flush_cache`); a target with neither is refused with "restart the engine";
 *  - **exact-repeat**: the cold request again, word for word;
 *  - **new-question**: the same document with new questions;
 *  - **scattered**: the document rotated (it starts at a different word each time), so
 *    consecutive requests share no prefix.
 * Per phase: cached tokens (`usage.prompt_tokens_details.cached_tokens`, or the change in
 * the server's prefix-cache hit counter on `/metrics` between the scrapes before and after the
 * phase), TTFT, and a prefill estimate (server-side prefill time when the engine exposes it,
 * else TTFT as its upper bound), with whether the hits are where they should be. A virtual
 * target is a long-lived in-process simulator, so its cache carries over between phases as a
 * server's does.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { mean, percentile, requestMetrics } from '../../analysis/index.js';
import { UsageError } from '../../core/errors.js';
import { listOf, oneOf, posInt, str } from '../../core/fields.js';
import type { MessageKey, T } from '../../i18n/index.js';
import type { RequestRecord } from '../../record/types.js';
import type { ExperimentAnswer } from '../../report/answer.js';
import type { RequestSpec } from '../../workload/types.js';
import { refuseRates } from '../fields.js';
import { cell, joinVerdict, pctCell, runIdsOf, withTarget } from './answer-kit.js';
import type { KindContext, LiveTarget, RunCache } from './context.js';
import { pct } from './format.js';
import { defineKind, type OwnFile } from './kind.js';
import { fmt } from './points.js';

type PhaseName = 'cold' | 'exact-repeat' | 'new-question' | 'scattered';

export interface PrefixPhaseResult {
  phase: PhaseName;
  run_id: string | null;
  requests: number;
  prompt_tokens_mean: number | null;
  cached_tokens_mean: number | null;
  /** cached / prompt tokens. */
  hit_ratio: number | null;
  cached_source: 'usage' | 'metrics' | 'none';
  ttft_ms_p50: number | null;
  ttft_ms_mean: number | null;
  /** Prefill time, ms (p50): server-side when exposed, else TTFT (an upper bound). */
  prefill_ms_p50: number | null;
  prefill_source: 'server' | 'ttft';
  uncached_tokens_mean: number | null;
  /** Uncached prompt tokens / prefill time (tokens/s). */
  prefill_tok_s: number | null;
  /** Where hits are expected: none, the full prompt, the document, or partial (revisits). */
  expected: 'none' | 'full' | 'document' | 'partial';
  as_expected: boolean | null;
}

export interface PrefixTargetResult {
  target: string;
  /** How the cold state was reached: reset, or skipped (the user restarted the engine). */
  cold_state: string;
  phases: PrefixPhaseResult[];
  /**
   * Every phase's hits are where expected; null when no phase could be judged (no request came
   * back with its prompt-token usage, e.g. every request failed), never a vacuous yes.
   */
  hits_as_expected: boolean | null;
}

export interface PrefixCacheResult {
  kind: 'prefix-cache';
  document_tokens: number;
  question_tokens: number;
  documents: number;
  targets: PrefixTargetResult[];
}

/** The document starting `k/n` of the way through its words (same words, no shared prefix). */
export function rotateDocument(doc: string, k: number, n: number): string {
  const words = doc.split(/\s+/).filter(Boolean);
  const off = Math.floor((words.length * k) / n) % Math.max(1, words.length);
  return [...words.slice(off), ...words.slice(0, off)].join(' ');
}

function prompt(doc: string, q: string): string {
  return `${doc}\n\nQuestion: ${q}`;
}

/** Run the prefix-cache experiment on every target. */
export async function runPrefixCache(
  ctx: KindContext<OwnFile<'prefix-cache', 'prefix_cache', typeof prefixCacheSchema>>,
): Promise<PrefixCacheResult> {
  const pc = ctx.exp.prefix_cache;
  const rpp = pc.requests_per_phase;
  let doc: string;
  if (pc.document_file) {
    try {
      doc = readFileSync(pc.document_file, 'utf8');
    } catch (e) {
      throw new UsageError([
        {
          path: 'prefix_cache.document_file',
          message: ctx.tr('exp.usage.document_unreadable', {
            path: pc.document_file,
            error: (e as NodeJS.ErrnoException).code ?? (e as Error).message,
          }),
          hint: ctx.tr('exp.usage.document_unreadable_hint'),
        },
      ]);
    }
  } else {
    const d = await ctx.workload({
      count: 1,
      inputLen: String(pc.document_tokens),
      outputLen: '1',
      plain: true,
    });
    doc = d[0].prompt ?? '';
  }
  const qs = await ctx.workload({
    count: 2 * rpp + 1,
    inputLen: String(pc.question_tokens),
    plain: true,
    seed: ctx.exp.seed + 1,
  });
  const outLen = qs[0].output_len;
  const inLen = pc.document_tokens + pc.question_tokens;
  const spec = (text: string, i: number): RequestSpec => ({
    index: i,
    prompt: text,
    input_len: inLen,
    output_len: outLen,
  });
  const first = prompt(doc, qs[0].prompt ?? '');
  const phaseSpecs: Record<PhaseName, RequestSpec[]> = {
    cold: Array.from({ length: rpp }, (_, i) => spec(first, i)),
    'exact-repeat': Array.from({ length: rpp }, (_, i) => spec(first, i)),
    'new-question': Array.from({ length: rpp }, (_, i) => spec(prompt(doc, qs[1 + i].prompt ?? ''), i)),
    scattered: Array.from({ length: rpp }, (_, i) =>
      spec(
        prompt(rotateDocument(doc, 1 + (i % pc.documents), pc.documents + 1), qs[1 + rpp + i].prompt ?? ''),
        i,
      ),
    ),
  };
  const expected: Record<PhaseName, PrefixPhaseResult['expected']> = {
    cold: 'none',
    'exact-repeat': 'full',
    'new-question': 'document',
    scattered: rpp <= pc.documents ? 'none' : 'partial',
  };

  // Refuse before sending anything when a request does not fit a target's context.
  refuseUnfit(ctx.targets, pc.document_tokens, pc.question_tokens, outLen ?? 0, ctx.tr);
  // Refuse up front when a target cannot be made cold (or when one can and another cannot).
  const states = await ctx.ensureCold(ctx.targets);
  const out: PrefixTargetResult[] = [];
  for (const t of ctx.targets) {
    const phases: PrefixPhaseResult[] = [];
    const coldState = states[t.name];
    for (const ph of pc.phases as PhaseName[]) {
      let specs = phaseSpecs[ph];
      if (ph === 'cold' && coldState === 'skipped') {
        // cache.reset: none — only the first request after the user's restart is cold.
        specs = specs.slice(0, 1);
        ctx.warnings.push(
          `${t.name}: no cache reset (cache.reset: none); the cold phase is the first request only`,
        );
      }
      const m = await ctx.measure(t, {
        label: `phase=${ph}`,
        level: { phase: ph },
        specs,
        load: { kind: 'closed', concurrency: 1 },
        ...(ph === 'cold' && coldState === 'reset' ? { beforeEach: () => resetOrFail(ctx, t) } : {}),
      });
      phases.push(phaseResult(ph, m.run.run_id, m.records, m.run.cache, expected[ph]));
    }
    out.push({
      target: t.name,
      cold_state: coldState,
      phases,
      hits_as_expected: phases.some((p) => p.as_expected === false)
        ? false
        : phases.some((p) => p.as_expected === true)
          ? true
          : null,
    });
  }
  return {
    kind: 'prefix-cache',
    document_tokens: pc.document_tokens,
    question_tokens: pc.question_tokens,
    documents: pc.documents,
    targets: out,
  };
}

/**
 * Tokens a chat template and BOS may add around a prompt (Qwen2's ChatML adds about 20, Llama 3's
 * about 25), kept free when fitting the document to a context.
 */
export const TEMPLATE_ALLOWANCE_TOKENS = 64;

/**
 * Throw, before anything is sent, when one request (document, question, output and the template's
 * allowance) does not fit a target's context as its probe read it (`limits.max_model_len`: vLLM's
 * `max_model_len`, llama.cpp's per-slot `n_ctx`); the message names the context and where it was
 * read, the hint the largest document that fits. A target whose context is unknown is sent to.
 */
export function refuseUnfit(
  targets: readonly Pick<LiveTarget, 'name' | 'record'>[],
  documentTokens: number,
  questionTokens: number,
  outputTokens: number,
  tr: T,
): void {
  const need = documentTokens + questionTokens + outputTokens + TEMPLATE_ALLOWANCE_TOKENS;
  const problems = targets.flatMap((t) => {
    const limits = t.record?.limits;
    const len = limits?.value.max_model_len ?? null;
    if (len === null || need <= len) return [];
    const from = (limits?.from.max_model_len ?? '').replace(/^probed: /, '') || '-';
    // llama.cpp's n_ctx is one slot's share of -c
    const perSlot = /n_ctx/.test(from);
    const fits = len - questionTokens - outputTokens - TEMPLATE_ALLOWANCE_TOKENS;
    const longer = tr(perSlot ? 'exp.prefix.unfit.longer_slot' : 'exp.prefix.unfit.longer');
    return [
      {
        path: 'prefix_cache.document_tokens',
        message: tr(perSlot ? 'exp.prefix.unfit_slot' : 'exp.prefix.unfit', {
          target: t.name,
          document: documentTokens,
          question: questionTokens,
          output: outputTokens,
          template: TEMPLATE_ALLOWANCE_TOKENS,
          need,
          len,
          from,
        }),
        hint: fits > 0 ? tr('exp.prefix.unfit.hint', { fits, longer }) : longer,
      },
    ];
  });
  if (problems.length) throw new UsageError(problems);
}

async function resetOrFail(ctx: KindContext, t: LiveTarget): Promise<void> {
  const s = await ctx.resetCache(t);
  if (s !== 'reset')
    throw new UsageError([
      {
        path: `targets.${t.name}`,
        message: ctx.tr('exp.usage.cache_not_reset'),
        hint: ctx.tr('exp.usage.cache_not_reset_hint'),
      },
    ]);
}

function phaseResult(
  phase: PhaseName,
  runId: string | null,
  recs: RequestRecord[],
  cache: RunCache | null,
  expected: PrefixPhaseResult['expected'],
): PrefixPhaseResult {
  const n = recs.length;
  const prompts = recs.map((r) => r.usage?.prompt_tokens).filter((v): v is number => typeof v === 'number');
  const usageCached = recs.map((r) => r.usage?.cached_tokens);
  let cachedMean: number | null = null;
  let source: PrefixPhaseResult['cached_source'] = 'none';
  if (usageCached.length && usageCached.every((v) => typeof v === 'number')) {
    cachedMean = mean(usageCached as number[]);
    source = 'usage';
  } else if (cache && n > 0) {
    cachedMean = cache.hits_tokens / n;
    source = 'metrics';
  }
  const promptMean = mean(prompts);
  const ttft = recs.map((r) => requestMetrics(r).ttft_ms).filter((v): v is number => v !== undefined);
  const sortedTtft = [...ttft].sort((a, b) => a - b);
  let prefill: number[] = [];
  let prefillSource: PrefixPhaseResult['prefill_source'] = 'ttft';
  const t = recs.map((r) => r.timings?.prefill_ms);
  if (t.length && t.every((v) => typeof v === 'number')) {
    prefill = t as number[];
    prefillSource = 'server';
  } else prefill = ttft;
  const prefillP50 = percentile(
    [...prefill].sort((a, b) => a - b),
    50,
  );
  const uncached = promptMean !== null && cachedMean !== null ? promptMean - cachedMean : null;
  const ratio = promptMean && cachedMean !== null ? cachedMean / promptMean : null;
  let ok: boolean | null = null;
  if (ratio !== null)
    ok =
      expected === 'none'
        ? ratio < 0.1
        : expected === 'full'
          ? ratio >= 0.8
          : expected === 'document'
            ? ratio >= 0.5 && ratio < 1
            : null;
  return {
    phase,
    run_id: runId,
    requests: n,
    prompt_tokens_mean: promptMean,
    cached_tokens_mean: cachedMean,
    hit_ratio: ratio,
    cached_source: source,
    ttft_ms_p50: percentile(sortedTtft, 50),
    ttft_ms_mean: mean(ttft),
    prefill_ms_p50: prefillP50,
    prefill_source: prefillSource,
    uncached_tokens_mean: uncached,
    prefill_tok_s: uncached !== null && prefillP50 ? (uncached / prefillP50) * 1000 : null,
    expected,
    as_expected: ok,
  };
}

// ---- the answer --------------------------------------------------------------------------------

const PHASE_KEY: Record<PhaseName, MessageKey> = {
  cold: 'answer.prefix.phase.cold',
  'exact-repeat': 'answer.prefix.phase.exact_repeat',
  'new-question': 'answer.prefix.phase.new_question',
  scattered: 'answer.prefix.phase.scattered',
};
/** How a target was made cold, in words (the harness's cache-reset outcome; other values as they are). */
function coldStateText(state: string, tr: T): string {
  if (state === 'reset') return tr('exp.prefix.cold.reset');
  if (state === 'skipped') return tr('exp.prefix.cold.skipped');
  if (state === 'unsupported') return tr('exp.prefix.cold.unsupported');
  return state;
}

const EXPECTED_KEY: Record<PrefixPhaseResult['expected'], MessageKey> = {
  none: 'answer.prefix.expected.none',
  full: 'answer.prefix.expected.full',
  document: 'answer.prefix.expected.document',
  partial: 'answer.prefix.expected.partial',
};

/** One target's verdict clause: what the cache served per phase, the TTFT it saved, and whether the hits are where expected. */
function prefixVerdict(t: PrefixTargetResult, tr: T): string {
  const name = (p: PrefixPhaseResult) => tr(PHASE_KEY[p.phase]);
  const sep = tr('answer.list_sep');
  const cold = t.phases.find((p) => p.phase === 'cold');
  const warm = t.phases.filter((p) => p.phase !== 'cold');
  const ttfts = (ps: PrefixPhaseResult[]) =>
    ps.map((p) => tr('answer.prefix.ttft_of', { phase: name(p), ms: fmt(p.ttft_ms_p50) })).join(sep);
  let text: string;
  if (t.phases.every((p) => p.hit_ratio === null))
    text = tr('answer.prefix.no_counts', { ttft: ttfts(t.phases) });
  else {
    const hits = warm
      .filter((p) => p.hit_ratio !== null)
      .map((p) => tr('answer.prefix.hit_of', { phase: name(p), hit: pct(p.hit_ratio) }))
      .join(sep);
    text =
      cold && warm.length
        ? tr('answer.prefix.verdict', { hits, cold: fmt(cold.ttft_ms_p50), warm: ttfts(warm) })
        : tr('answer.prefix.verdict_no_cold', { hits, ttft: ttfts(t.phases) });
  }
  const off = t.phases.filter((p) => p.as_expected === false);
  return (
    text +
    (off.length
      ? tr('answer.prefix.not_expected', { phases: off.map(name).join(sep) })
      : t.hits_as_expected === null
        ? tr('answer.prefix.not_judged')
        : tr('answer.prefix.as_expected'))
  );
}

/**
 * The prefix-cache answer: the phase table the console prints (cold, exact repeat, the shared
 * document with a new question, scattered), its verdict, and TTFT per phase as bars.
 */
export function prefixCacheAnswer(res: PrefixCacheResult, tr: T): ExperimentAnswer {
  const many = res.targets.length > 1;
  const col = withTarget(many, tr);
  const phases = PREFIX_CACHE_PHASES.filter((ph) =>
    res.targets.some((t) => t.phases.some((p) => p.phase === ph)),
  );
  return {
    kind: res.kind,
    question: tr('answer.prefix.question', { tokens: res.document_tokens }),
    verdict: joinVerdict(
      res.targets.map((t) => ({ target: t.target, text: prefixVerdict(t, tr) })),
      tr,
    ),
    table: {
      columns: col.columns([
        tr('exp.col.phase'),
        tr('exp.prefix.prompt_tok'),
        tr('exp.prefix.cached_tok'),
        `${tr('exp.prefix.hit')} %`,
        'TTFT p50 ms',
        'prefill p50 ms',
        tr('answer.prefix.col.prefill_from'),
        'prefill tok/s',
        tr('exp.prefix.expected'),
        tr('exp.prefix.ok'),
      ]),
      rows: res.targets.flatMap((t) =>
        t.phases.map((p) =>
          col.row(t.target, [
            tr(PHASE_KEY[p.phase]),
            cell(p.prompt_tokens_mean, 0),
            cell(p.cached_tokens_mean, 0),
            pctCell(p.hit_ratio),
            cell(p.ttft_ms_p50),
            cell(p.prefill_ms_p50),
            tr(p.prefill_source === 'server' ? 'answer.prefix.prefill_server' : 'answer.prefix.prefill_ttft'),
            cell(p.prefill_tok_s, 0),
            tr(EXPECTED_KEY[p.expected]),
            p.as_expected === null ? null : tr(p.as_expected ? 'exp.yes' : 'exp.no_caps'),
          ]),
        ),
      ),
    },
    chart: {
      type: 'bar',
      title: tr('answer.prefix.chart_title'),
      x: { name: tr('exp.col.phase'), unit: null, categories: phases.map((ph) => tr(PHASE_KEY[ph])) },
      y: { name: 'TTFT p50', unit: 'ms' },
      series: res.targets.map((t) => ({
        name: t.target,
        points: phases.map((ph, i): [number, number | null] => [
          i,
          cell(t.phases.find((p) => p.phase === ph)?.ttft_ms_p50),
        ]),
      })),
    },
    run_ids: runIdsOf(res.targets.flatMap((t) => t.phases.map((p) => p.run_id))),
    interval: null,
  };
}

// ---- the kind module: file section and rules, defaults, template, console output ----------

/** Phases of the prefix-cache experiment, in the order they run. */
export const PREFIX_CACHE_PHASES = ['cold', 'exact-repeat', 'new-question', 'scattered'] as const;

export const prefixCacheSchema = z.strictObject({
  document_tokens: posInt().default(2048),
  /** Documents rotated in the scattered phase (consecutive requests share no prefix). */
  documents: posInt().default(4),
  question_tokens: posInt().default(32),
  requests_per_phase: posInt().default(4),
  phases: listOf(oneOf(PREFIX_CACHE_PHASES)).default([...PREFIX_CACHE_PHASES]),
  /** A text file used as the shared document instead of generated text. */
  document_file: str().optional(),
});

export const prefixCacheKind = defineKind({
  kind: 'prefix-cache',
  section: 'prefix_cache',
  sectionSchema: prefixCacheSchema,
  rules(f, report) {
    refuseRates(f, report, 'prefix-cache', 'prefix_cache');
  },
  defaults: (f) => ({
    ...f,
    prefix_cache: f.prefix_cache ?? prefixCacheSchema.parse({}),
    load: { ...f.load, concurrency: f.load.concurrency ?? [1] },
  }),
  template: (t) => `${t.head('prefix-cache', 'prefix-cache', t.tr('tpl.prefix_cache.about'))}
targets:
${t.simTarget({ name: 'sim', full: true, set: ['enable_prefix_caching: true'] })}
${t.urlTargets}

prefix_cache:
  document_tokens: 2048               # ${t.tr('tpl.prefix.document_tokens')}
  documents: 4                        # ${t.tr('tpl.prefix.documents')}
  question_tokens: 32
  requests_per_phase: 4
  phases: [cold, exact-repeat, new-question, scattered]
  # document_file: contract.txt       # ${t.tr('tpl.prefix.document_file')}

${t.common({ load: [`# ${t.tr('tpl.prefix.load')}`], workload: ['input_len: 2048', 'output_len: 32'], cache: ['policy: cold'], warmup: 0 })}
`,
  run: runPrefixCache,
  answer: prefixCacheAnswer,
  // The answer's phase table carries every number; the console adds how each target was made cold.
  format: (res, tr) =>
    res.targets.map((t) =>
      tr('exp.prefix.header', {
        target: t.target,
        cold: coldStateText(t.cold_state, tr),
        hits: tr(
          t.hits_as_expected === null ? 'exp.not_judged' : t.hits_as_expected ? 'exp.yes' : 'exp.no_caps',
        ),
      }),
    ),
});
