/**
 * @module sim/engine/speculative
 * Speculative decoding as vLLM V1 runs it (`--speculative-config`), kept apart from the engine
 * core, which calls it at three points of a step:
 *
 * 1. **schedule**: a decoding request carries `numSpec` draft tokens from the step before, so
 *    the scheduler gives it 1 + numSpec new tokens (vLLM: `num_tokens_with_spec −
 *    num_computed_tokens`, `vllm-project/vllm:vllm/v1/core/sched/scheduler.py`
 *    @b4622cf924bc72504aed99e486062d6633fde39e, `Scheduler.schedule`), within the token budget
 *    and the KV room (the drafts' slots are allocated like any other token's);
 * 2. **verify** ({@link SpecDecoder.verify}): the target's one forward pass runs over the k + 1
 *    positions (the cost model sees a query of k + 1 tokens and k + 1 sampled positions), the
 *    rejection sampler accepts a prefix of the drafts (`vllm/v1/sample/rejection_sampler.py`
 *    @7f6fc1c5ce8d02f473b1b923debbfef3fa0b7a6a: position i is accepted with the target's
 *    probability, the first rejection ends the prefix and is replaced by a token of the target)
 *    and m accepted + 1 tokens are emitted. The rejected drafts roll back:
 *    `num_computed_tokens −= num_rejected` (`Scheduler.update_from_output`), so their KV slots
 *    are free to be overwritten by the next step, and they are never registered in the prefix
 *    cache (vLLM caches only up to `request.num_tokens`, which holds no drafts);
 * 3. **propose** ({@link SpecDecoder.propose}): after sampling, the drafter proposes the next
 *    step's k tokens per running request (`vllm/v1/spec_decode/eagle.py`,
 *    `ngram_proposer.py`, `draft_model.py`), and the step takes as long as its drafting too
 *    ({@link SpecDecoder.proposeMs}).
 *
 * Acceptance is drawn per request from a seeded generator (the request id's hash): the
 * simulated text is not a model's, so whether a draft would match cannot be computed. Position
 * i is accepted with a conditional rate a_i, the prefix stopping at the first rejection
 * (i.i.d. a_i = α unless a list is given). The rates come from servelab's own `acceptance_rate`
 * (not a vLLM setting), in vLLM's reported units (`vllm/v1/spec_decode/metrics.py`
 * @016a8587edb04ae53c913a1da9355a07dc0ca4ae): one number is the draft acceptance rate
 * accepted / draft tokens, a list the per-position rates accepted_per_pos[i] / drafts.
 * Without it, a method's default ({@link DEFAULT_ACCEPTANCE}); for ngram, the prompt's own
 * repetition ({@link ngramPromptStats}), or, when the client says its prompts carry no text
 * (servelab's synthetic words, {@link SpecDecoder.assumeSyntheticPrompts}), a published prior
 * ({@link NGRAM_SYNTHETIC_ACCEPTANCE}).
 */
import { UsageError } from '../../core/errors.js';
import { hashString, Rng } from '../../runtime/rng.js';
import type { Catalogue, GpuSpec, ModelSpec } from '../catalogue/types.js';
import type { KvCacheDtype, WeightDtype } from '../config/vocab.js';
import type { SimLayerValues, SPEC_METHODS } from '../settings.js';
import { CostModel, emptyStepShape, type StepShape } from './cost.js';
import type { EngineReq, StepList } from './request.js';
import type { NgramPrior } from './types.js';

export type SpecMethod = (typeof SPEC_METHODS)[number];

/** `--speculative-config` as the engine reads it, resolved against the catalogue. */
export interface SpeculativeSpec {
  method: SpecMethod;
  /** num_speculative_tokens: drafts per request per step. */
  k: number;
  /**
   * Conditional acceptance of each position (a_i: accepted given every earlier one was), k
   * entries; null for ngram without `acceptance_rate` (each request's prompt gives its own).
   */
  conditional: number[] | null;
  /** ngram: the n-gram sizes looked up (vLLM's prompt_lookup_min/max, both 5 by default). */
  lookupMin: number;
  lookupMax: number;
  /** The model the draft passes run: the draft model, or the target's one-layer head (EAGLE, MTP). */
  draftModel: ModelSpec | null;
}

/**
 * Draft acceptance rate (accepted / draft tokens) by method, when `acceptance_rate` is not set.
 * eagle 0.6: EAGLE (arXiv:2401.15077) reports per-position acceptance n-α of about 0.7–0.8 for
 * chat at k = 1–4, which compounds to accepted/drafted ≈ 0.6 at k = 3; eagle3 0.7: EAGLE-3
 * (arXiv:2503.01840) accepts longer prefixes than EAGLE (its acceptance length rises ≈ 1.4×);
 * mtp 0.85: DeepSeek-V3 reports 85–90 % acceptance of its one MTP token (arXiv:2412.19437,
 * §5.4.3); draft_model 0.5: an assumption for a small same-family draft (vLLM's spec-decode
 * blog, blog.vllm.ai 2024-10-17, reports draft-model speed-ups of 1.5× at low load, what
 * ≈ 0.5 gives at k = 3–5 with a draft ~1/10 of the target).
 */
export const DEFAULT_ACCEPTANCE: Record<Exclude<SpecMethod, 'ngram'>, number> = {
  eagle: 0.6,
  eagle3: 0.7,
  mtp: 0.85,
  draft_model: 0.5,
};
/**
 * ngram's conditional acceptance per position for prompts that carry no text to match: random
 * words stand for a workload whose content is unknown, and their n-grams never repeat, so the
 * prompt cannot say how often a lookup would hit. The prior is Spec-Bench's measurement of
 * prompt lookup decoding (PLD, the method vLLM's ngram proposer implements) over chat,
 * translation, summarisation, QA, maths and RAG: 1.73 mean accepted tokens per step, Vicuna-7B
 * on an A100, greedy, batch 1 (Xia et al. 2024, arXiv:2401.07851; `hemingkx/Spec-Bench:
 * Leaderboard.md` @09244ff33257f2cdde9422f0e382eba1f3b43a9e, "Leaderboard on A100"), with PLD
 * drafting up to 10 tokens (`evaluation/inference_pld.py` @1bc7de1312007ee77a5157f2745bc8f75d8d16be,
 * `draft_num_candidate_tokens=10`). A conditional rate α with α + α² + … + α¹⁰ = 0.73 gives
 * those 1.73: α = 0.42. Spec-Bench does not split that into steps without a match and matches,
 * so every step drafts at α (which charges the verify pass its full width: the cautious side).
 */
export const NGRAM_SYNTHETIC_ACCEPTANCE = 0.42;
/** Spec-Bench's mean accepted tokens per step of prompt lookup decoding, which {@link NGRAM_SYNTHETIC_ACCEPTANCE} reproduces. */
export const NGRAM_SYNTHETIC_MEAN_ACCEPTED = 1.73;
/** Where {@link NGRAM_SYNTHETIC_ACCEPTANCE} comes from, as the run summary cites it (a citation, not prose). */
export const NGRAM_SYNTHETIC_SOURCE = 'Spec-Bench (Xia et al. 2024, arXiv:2401.07851), Vicuna-7B-v1.3, A100';
/** vLLM's ngram lookup sizes when neither is given (`vllm/config/speculative.py`, `__post_init__`). */
export const NGRAM_LOOKUP_DEFAULT = 5;
/**
 * ngram drafting is CPU work (a longest-match search over the request's tokens,
 * `vllm/v1/spec_decode/ngram_proposer.py`, numba): an assumption of 20 µs per step plus 2 µs
 * per request plus 0.5 ns per context token scanned; no public per-call profile was found.
 */
export const NGRAM_STEP_MS = 0.02;
export const NGRAM_REQ_MS = 0.002;
export const NGRAM_TOKEN_MS = 0.5e-6;
/** EAGLE-3 drafts over a reduced vocabulary (its draft head's `draft_vocab_size`, 32000 in the released heads). */
export const EAGLE3_DRAFT_VOCAB = 32000;

/** The speculative config of the settings, resolved (null when off). Problems name the flag. */
export function resolveSpeculative(
  raw: SimLayerValues<'engine'>['speculativeConfig'],
  target: ModelSpec,
  cat: Catalogue,
  engine: string,
): SpeculativeSpec | null {
  if (!raw) return null;
  const path = '--speculative-config';
  if (engine !== 'vllm-v1')
    throw new UsageError([
      {
        path,
        message: `speculative decoding is simulated for vllm-v1 only; --engine is ${engine}`,
        hint: 'use --engine vllm-v1 or drop --speculative-config',
      },
    ]);
  const method = raw.method as SpecMethod;
  const k = raw.num_speculative_tokens;
  let draftModel: ModelSpec | null = null;
  if (method === 'draft_model') {
    draftModel = cat.models[String(raw.model).toLowerCase()] ?? null;
    if (!draftModel)
      throw new UsageError([
        {
          path,
          message: `unknown draft model "${raw.model}"`,
          hint: `one of: ${Object.keys(cat.models).join(', ')}`,
        },
      ]);
  } else if (method !== 'ngram') {
    // EAGLE and MTP heads: one decoder layer of the target's shape on top of its hidden states,
    // sharing its LM head (EAGLE-3: over a reduced draft vocabulary).
    draftModel = {
      ...target,
      name: `${target.name}-${method}-head`,
      num_hidden_layers: 1,
      vocab_size: method === 'eagle3' ? Math.min(EAGLE3_DRAFT_VOCAB, target.vocab_size) : target.vocab_size,
    };
  }
  const rate = raw.acceptance_rate;
  let conditional: number[] | null;
  if (rate === undefined)
    conditional = method === 'ngram' ? null : iidFromRate(DEFAULT_ACCEPTANCE[method], k);
  else if (typeof rate === 'number') conditional = iidFromRate(rate, k);
  else {
    for (let i = 1; i < rate.length; i++)
      if (rate[i] > rate[i - 1])
        throw new UsageError([
          {
            path,
            message: `acceptance_rate per position must not rise (position ${i}: ${rate[i]} > ${rate[i - 1]})`,
            hint: "each entry is vLLM's per-position rate accepted_per_pos[i] / drafts: a draft reaches position i only through every earlier one",
          },
        ]);
    conditional = conditionalFromPerPosition(rate, k);
  }
  const lookupMin = raw.prompt_lookup_min ?? raw.prompt_lookup_max ?? NGRAM_LOOKUP_DEFAULT;
  const lookupMax = raw.prompt_lookup_max ?? raw.prompt_lookup_min ?? NGRAM_LOOKUP_DEFAULT;
  return { method, k, conditional, lookupMin, lookupMax, draftModel };
}

/** Expected accepted / drafted of k positions each accepted with conditional rate α. */
export function expectedRate(alpha: number, k: number): number {
  let p = 1;
  let sum = 0;
  for (let i = 0; i < k; i++) {
    p *= alpha;
    sum += p;
  }
  return sum / k;
}

/** The i.i.d. conditional rate α whose k positions give draft acceptance rate `rate` (bisection). */
export function iidFromRate(rate: number, k: number): number[] {
  let lo = 0;
  let hi = 1;
  for (let i = 0; i < 60; i++) {
    const mid = (lo + hi) / 2;
    if (expectedRate(mid, k) < rate) lo = mid;
    else hi = mid;
  }
  return new Array(k).fill((lo + hi) / 2);
}

/** Per-position rates p_i (share of drafts accepted through position i) → conditional a_i = p_i / p_{i−1}; the last repeats. */
export function conditionalFromPerPosition(rates: readonly number[], k: number): number[] {
  const out: number[] = [];
  let prev = 1;
  for (let i = 0; i < Math.min(k, rates.length); i++) {
    out.push(prev > 0 ? Math.min(1, rates[i] / prev) : 0);
    prev = rates[i];
  }
  while (out.length < k) out.push(out[out.length - 1]);
  return out;
}

/**
 * How predictable a prompt is from its own n-grams, as vLLM's ngram proposer would find it:
 * at each position, the longest suffix n-gram (lookupMax down to lookupMin tokens) that
 * occurred earlier; `matchRate` is the share of positions with such a match (a step with a
 * match drafts), `hitRate` the share of matches whose next token was right (the acceptance of
 * each drafted position). Random-word prompts repeat 5-grams almost never: both are ≈ 0.
 */
export function ngramPromptStats(
  tokens: ArrayLike<number>,
  lookupMin: number,
  lookupMax: number,
): { matchRate: number; hitRate: number } {
  const maps: Map<number, number>[] = [];
  for (let n = lookupMin; n <= lookupMax; n++) maps.push(new Map());
  let positions = 0;
  let matches = 0;
  let hits = 0;
  for (let i = lookupMin; i < tokens.length; i++) {
    positions++;
    let found = -1;
    for (let n = Math.min(lookupMax, i); n >= lookupMin; n--) {
      let h = n;
      for (let j = i - n; j < i; j++) h = Math.imul(h ^ tokens[j], 0x9e3779b1) >>> 0;
      const map = maps[n - lookupMin];
      const prev = map.get(h);
      map.set(h, i);
      if (found < 0 && prev !== undefined) found = prev;
    }
    if (found >= 0) {
      matches++;
      if (tokens[found] === tokens[i]) hits++;
    }
  }
  return {
    matchRate: positions ? matches / positions : 0,
    hitRate: matches ? hits / matches : 0,
  };
}

/** A request's drafting state: its generator, and for ngram its prompt's statistics. */
interface ReqSpec {
  rng: Rng;
  conditional: number[];
  /** Chance that a step finds something to draft (1 but for ngram). */
  matchRate: number;
}

/** Counters of vLLM's `SpecDecodingStats` since start. */
export interface SpecCounters {
  drafts: number;
  draftTokens: number;
  acceptedTokens: number;
  /** Drafts whose position i was accepted, i = 0..k−1. */
  acceptedPerPos: number[];
}

/** The target's settings the draft passes are costed on. */
export interface DraftCostTarget {
  gpu: GpuSpec;
  tp: number;
  dtype: WeightDtype;
  kvCacheDtype: KvCacheDtype;
  maxNumSeqs: number;
}

/** The proposer, the rejection sampler's outcome and their counters (see the module). */
export class SpecDecoder {
  readonly spec: SpeculativeSpec;
  readonly counters: SpecCounters;
  private readonly reqs = new WeakMap<EngineReq, ReqSpec>();
  /** ngram without `acceptance_rate`, prompts without text: the prior's rates (null: measure each prompt). */
  private prior: number[] | null = null;
  /** The draft passes' cost model (null for ngram, which runs on the CPU). */
  private readonly draftCost: CostModel | null;
  private readonly shape: StepShape = emptyStepShape();

  constructor(spec: SpeculativeSpec, target: DraftCostTarget) {
    this.spec = spec;
    this.counters = {
      drafts: 0,
      draftTokens: 0,
      acceptedTokens: 0,
      acceptedPerPos: new Array(spec.k).fill(0),
    };
    // A draft pass is launched inside the target's step (no scheduling of its own): the
    // per-step fixed cost is left out, the per-layer, per-request and sampling costs stay.
    this.draftCost = spec.draftModel
      ? new CostModel(
          spec.draftModel,
          target.gpu,
          target.tp,
          target.dtype,
          target.kvCacheDtype,
          { maxNumSeqs: target.maxNumSeqs },
          { tStepMs: 0 },
        )
      : null;
  }

  /**
   * The requests to come have prompts that carry no text (servelab's synthetic words, which
   * stand for content the client does not know): ngram without `acceptance_rate` drafts at
   * {@link NGRAM_SYNTHETIC_ACCEPTANCE} instead of its lookup in a prompt that never repeats.
   * Returns the conditional acceptance per position assumed and its source, or null when
   * nothing is assumed (another method, or the rate set).
   */
  assumeSyntheticPrompts(): NgramPrior | null {
    if (this.spec.method !== 'ngram' || this.spec.conditional) return null;
    this.prior = new Array(this.spec.k).fill(NGRAM_SYNTHETIC_ACCEPTANCE);
    return {
      acceptance_per_position: NGRAM_SYNTHETIC_ACCEPTANCE,
      mean_accepted_tokens: NGRAM_SYNTHETIC_MEAN_ACCEPTED,
      source: NGRAM_SYNTHETIC_SOURCE,
    };
  }

  private state(r: EngineReq): ReqSpec {
    let s = this.reqs.get(r);
    if (!s) {
      const rng = new Rng(hashString(`spec:${r.id}`));
      const given = this.spec.conditional ?? this.prior;
      if (given) s = { rng, conditional: given, matchRate: 1 };
      else {
        const st = ngramPromptStats(r.prompt, this.spec.lookupMin, this.spec.lookupMax);
        s = { rng, conditional: new Array(this.spec.k).fill(st.hitRate), matchRate: st.matchRate };
      }
      this.reqs.set(r, s);
    }
    return s;
  }

  /**
   * The rejection sampler's outcome for `numDraft` drafts of `r` verified this step: how many
   * lead the accepted prefix. Counts them as vLLM's `SpecDecodingStats.observe_draft` does.
   */
  verify(r: EngineReq, numDraft: number): number {
    const s = this.state(r);
    let m = 0;
    while (m < numDraft && s.rng.next() < s.conditional[m]) m++;
    const c = this.counters;
    c.drafts++;
    c.draftTokens += numDraft;
    c.acceptedTokens += m;
    for (let i = 0; i < m; i++) c.acceptedPerPos[i]++;
    return m;
  }

  /**
   * After sampling: set each request's drafts for the next step (`numSpec`), at most k and no
   * more than it may still emit beyond the next token; ngram drafts only when its lookup finds
   * a match. Requests still prefilling, or finished, draft nothing.
   */
  propose(sampled: StepList<EngineReq>): void {
    for (let i = 0; i < sampled.length; i++) {
      const r = sampled.at(i);
      if (i + 1 < sampled.length && sampled.at(i + 1) === r) continue; // its last token of the step
      r.numSpec = 0;
      if (r.status !== 'running') continue;
      const room = r.stopLen - r.numOutput - 1;
      if (room <= 0) continue;
      const s = this.state(r);
      if (s.matchRate < 1 && s.rng.next() >= s.matchRate) continue;
      r.numSpec = Math.min(this.spec.k, room);
    }
  }

  /**
   * How long the step's drafting takes, ms, for the requests `propose` just gave drafts, each
   * having had `emitted` tokens this step: ngram, the CPU search; a draft model or head, k
   * sequential passes, the first over the step's emitted tokens (the drafter catches up on
   * them), the next k − 1 over one token per request (`vllm/v1/spec_decode/eagle.py`
   * `propose`).
   */
  proposeMs(sampled: StepList<EngineReq>): number {
    let reqs = 0;
    let ctx = 0;
    let emitted = 0;
    let pairs = 0;
    let maxSpec = 0;
    let run = 0;
    for (let i = 0; i < sampled.length; i++) {
      const r = sampled.at(i);
      run++;
      if (i + 1 < sampled.length && sampled.at(i + 1) === r) continue;
      const n = run;
      run = 0;
      if (r.status !== 'running') continue;
      if (this.spec.method === 'ngram') {
        reqs++;
        ctx += r.numTokens;
        continue;
      }
      if (r.numSpec === 0) continue;
      reqs++;
      const c = r.numTokens - n;
      ctx += c;
      emitted += n;
      pairs += n * (c + n / 2);
      if (r.numSpec > maxSpec) maxSpec = r.numSpec;
    }
    if (reqs === 0) return 0;
    if (!this.draftCost) return NGRAM_STEP_MS + reqs * NGRAM_REQ_MS + ctx * NGRAM_TOKEN_MS;
    const sh = this.shape;
    sh.numReqs = reqs;
    sh.numSampled = reqs;
    sh.numTokens = emitted;
    sh.ctxTokens = ctx;
    sh.attnPairs = pairs;
    sh.numDecodes = emitted === reqs ? reqs : 0;
    sh.decodeCtxTokens = emitted === reqs ? ctx : 0;
    let ms = this.draftCost.stepMs(sh);
    for (let p = 1; p < maxSpec; p++) {
      sh.numTokens = reqs;
      sh.ctxTokens = ctx + emitted + (p - 1) * reqs;
      sh.attnPairs = sh.ctxTokens + reqs / 2;
      sh.numDecodes = reqs;
      sh.decodeCtxTokens = sh.ctxTokens;
      ms += this.draftCost.stepMs(sh);
    }
    return ms;
  }
}
