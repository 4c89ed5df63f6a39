/**
 * @module analysis/validity
 * The validity verdict: reasons why a run's numbers cannot bear weight — the load generator
 * fell behind, the client lagged or was CPU-bound, servelab's simulator fell behind real time,
 * usage was missing, client and server token counts disagree, a run meant to be cold hit the
 * prefix cache, too many errors, the server stopped answering mid-run, or Little's law does not
 * hold.
 */

import type { T } from '../i18n/index.js';
import type { ScrapePoint } from '../record/series.js';
import { EN } from './diagnose/default-lang.js';
import { engineFamily, runEngine } from './diagnose/engine-terms.js';
import type { SkippedCheck, ValidityReason } from './diagnose/types.js';
import { LITTLES_LAW_MAX_GAP, LITTLES_LAW_MIN_REQUESTS } from './littles-law.js';
import type { LoadedRun } from './loaded-run.js';
import { requestMetrics } from './request.js';
import { counterIncrease, seriesSummary } from './series.js';
import { serverGone } from './server-gone.js';
import { describe } from './stats.js';
import { groupAttempts } from './summary.js';
import { attemptEndAt, measurementWindow, slotWaits } from './window.js';

/** Thresholds of the verdict; every one can be overridden. */
export interface ValidityOptions {
  /** Generator lateness p99 above this is invalid, ms (default 5). */
  max_lateness_p99_ms?: number;
  /** Client event-loop delay p99 above this is invalid, ms (default 10, as the summary warns). */
  max_event_loop_p99_ms?: number;
  /** Client CPU above this, % of one core, is saturated (default 90). */
  max_client_cpu_percent?: number;
  /** Error rate above this fraction is invalid (default 0.05). */
  max_error_rate?: number;
  /** Little's-law relative gap above this is invalid (default 0.10, `LITTLES_LAW_MAX_GAP`). */
  max_littles_gap?: number;
  /** Client/server completion-token mismatch above this fraction is invalid (default 0.02). */
  max_token_mismatch?: number;
  /**
   * A run meant to meet a cold prefix cache (`config.prompts: fresh`, a sweep level with fresh
   * prompts) whose prompt tokens hit the cache above this fraction is invalid (default 0.10).
   */
  max_cold_hit_rate?: number;
  /**
   * Share of its steps servelab's simulator may deliver late (its `servelab_sim_behind_total`
   * counter over `servelab_sim_emit_lag_seconds_count`) before the run is invalid (default 0.01:
   * a p99 emit lag above the 10 ms that makes a step late, as `max_lateness_p99_ms` judges the
   * client). Without the step count, any late step.
   */
  max_sim_behind_fraction?: number;
  /**
   * Other clients load the same server at the same time (the other shards of a `--shard i/N`
   * run): its counters count their requests too, so this run's own usage is not compared with
   * them (the token check is left out).
   */
  shared_server?: boolean;
}

/** Client CPU is judged only over a measurement window at least this long (ms). */
export const MIN_CPU_WINDOW_MS = 5000;

export const VALIDITY_DEFAULTS: Required<ValidityOptions> = {
  max_lateness_p99_ms: 5,
  max_event_loop_p99_ms: 10,
  max_client_cpu_percent: 90,
  max_error_rate: 0.05,
  max_littles_gap: LITTLES_LAW_MAX_GAP,
  max_token_mismatch: 0.02,
  max_cold_hit_rate: 0.1,
  max_sim_behind_fraction: 0.01,
  shared_server: false,
};

/** The concurrency cap a run was made with (level, else config), or null. */
export function concurrencyCap(run: LoadedRun): number | null {
  // `run`/`plan` keep their load settings under config.load (camelCase); experiments put the
  // level's concurrency at the top of config.
  const load = (run.config?.load ?? {}) as Record<string, unknown>;
  const c =
    run.level?.concurrency ??
    run.config.max_concurrency ??
    run.config.concurrency ??
    load.maxConcurrency ??
    load.concurrency;
  return typeof c === 'number' && c > 0 ? c : null;
}

/**
 * Whether the run offered its requests at an unbounded rate (`--rate inf`: every request at
 * t = 0, as vLLM's `--request-rate inf`). JSON has no Infinity, so a stored run's rate reads null.
 */
export function unboundedRate(run: LoadedRun): boolean {
  const load = (run.config.load ?? {}) as Record<string, unknown>;
  return load.mode === 'open' && !(typeof load.rateRps === 'number' && Number.isFinite(load.rateRps));
}

/**
 * p99 of the generator's own lateness (sent − planned), ms, leaving out requests that waited for
 * a concurrency slot: a slot wait is the cap doing its job (it is `queue_ms`), not the generator
 * falling behind. Null when nothing was sent.
 */
export function generatorLatenessP99(run: LoadedRun): number | null {
  const waited = slotWaits(run.records, concurrencyCap(run));
  const xs: number[] = [];
  for (const g of groupAttempts(run.records).values()) {
    if (g.final.phase !== 'measure' || waited.has(g.first.id)) continue;
    const l = requestMetrics(g.first).lateness_ms;
    if (l !== undefined) xs.push(l);
  }
  return describe(xs).p99;
}

/**
 * Client-summed completion tokens vs the server's generation-token counter increase, over the
 * whole run (every attempt, warm-up included, because the counter saw them all). Null when the
 * series does not bracket the run (first scrape after the first send, or last before the last
 * end), or when no record was sent (none loaded): then the counter cannot be compared.
 */
export function tokenCounts(run: LoadedRun): { client: number; server: number } | null {
  const pts = (run.series ?? []).filter((p) => p.name === 'generation_tokens_total');
  if (pts.length < 2) return null;
  let first = Number.POSITIVE_INFINITY;
  let last = Number.NEGATIVE_INFINITY;
  let client = 0;
  for (const r of run.records) {
    if (r.sent_at_ms === null) continue;
    first = Math.min(first, r.sent_at_ms);
    last = Math.max(last, attemptEndAt(r) as number);
    client += r.usage?.completion_tokens ?? 0;
  }
  // No sent request (no records): nothing to compare, not a client sum of 0.
  if (first === Number.POSITIVE_INFINITY) return null;
  const t0 = Math.min(...pts.map((p) => p.t_ms));
  const t1 = Math.max(...pts.map((p) => p.t_ms));
  if (!(t0 <= first && t1 >= last)) return null;
  const server = seriesSummary(pts as ScrapePoint[]).generation_tokens_delta;
  return server === null ? null : { client, server };
}

/** Why a run has no per-request records, for the checks that need them. */
export function noRecordsReason(run: LoadedRun, t: T = EN): string {
  return t(run.source ? 'diagnose.skipped.no_records_vllm' : 'diagnose.skipped.no_records');
}

/**
 * The validity checks that cannot run on a run's data, with the reason; empty when all can.
 * {@link validityReasons} finds nothing wrong on data it does not have, so without this list a
 * vLLM result file would read as "valid" on points nobody looked at.
 */
export function validitySkipped(run: LoadedRun, t: T = EN): SkippedCheck[] {
  if (run.source)
    return [
      {
        run: run.id,
        checks: [
          'lateness',
          'event_loop_lag',
          'client_cpu',
          'usage_missing',
          'token_mismatch',
          'cache_hits',
          'littles_law',
        ],
        reason: t('diagnose.skipped.vllm_validity'),
      },
    ];
  if (run.records.length === 0)
    return [
      {
        run: run.id,
        checks: run.series?.length ? ['lateness', 'token_mismatch'] : ['lateness'],
        reason: noRecordsReason(run, t),
      },
    ];
  return [];
}

/**
 * How many steps the simulator delivered late during the run (the increase of `sim_behind_total`
 * over the scraped series), and how many it delivered (`sim_steps_total`, null when not exposed).
 * Null when the target did not expose the counter (not servelab's simulator) or was scraped
 * fewer than twice: one reading has no increase, and a long-running `servelab sim` counts
 * earlier runs' steps too.
 */
export function simBehindSteps(run: LoadedRun): { behind: number; steps: number | null } | null {
  const values = (name: string) =>
    (run.series ?? [])
      .filter((p) => p.name === name)
      .sort((a, b) => a.t_ms - b.t_ms)
      .map((p) => p.value);
  const behind = counterIncrease(values('sim_behind_total'));
  return behind === null ? null : { behind, steps: counterIncrease(values('sim_steps_total')) };
}

/** The prefix-cache hits of a run meant to be cold, with what preemption may have put there. */
export interface ColdRunHits {
  /** Hits that preemption cannot explain, over the queried tokens, 0..1. */
  rate: number;
  /** The counters' own hit rate, 0..1. */
  raw_rate: number;
  /** Preemptions during the run (the counter's increase), 0 without the counter. */
  preemptions: number;
  /** The most tokens the preempted requests' recomputation can have hit, tokens. */
  recompute_bound: number;
  /**
   * Tokens every request carries beyond the prompt it asked for (the chat template's and BOS:
   * the server's prompt_tokens − the requested input length), summed: the same for every
   * request, so a cold cache still finds their common prefix. 0 when unknown.
   */
  template_bound: number;
  /** Where the counts came from: the server's counters, or each response's own count. */
  from: 'series' | 'records';
}

/**
 * Prefix-cache hits and queries from the responses themselves, when the series has none (no
 * `/metrics`, or `--no-scrape`): llama.cpp's `timings.cache_n` or `usage.prompt_tokens_details
 * .cached_tokens`, over `usage.prompt_tokens`, summed over every sent attempt (the counters
 * count them all too). Null when no response said.
 */
function recordHits(run: LoadedRun): { hits: number; queries: number } | null {
  let hits = 0;
  let queries = 0;
  let known = 0;
  for (const r of run.records) {
    const prompt = r.usage?.prompt_tokens;
    const cacheN = r.timings?.cache_n;
    const cached = typeof cacheN === 'number' ? cacheN : r.usage?.cached_tokens;
    if (typeof prompt !== 'number' || typeof cached !== 'number') continue;
    known++;
    hits += cached;
    // llama.cpp's prompt_tokens counts the cached tokens too (prompt_n + cache_n).
    queries += prompt;
  }
  return known > 0 ? { hits, queries } : null;
}

/**
 * The prefix-cache hit rate of a run meant to be cold, less what recomputation after preemption
 * can explain; null without the prefix counters. A preempted request is freed and later
 * re-admitted with its prompt and the tokens it had generated, and the lookup then finds its own
 * blocks if they were not evicted yet: recomputation, not a warm cache. Current vLLM keeps those
 * lookups out of `vllm:prefix_cache_queries`/`_hits` (`PrefixCacheStats.record(..., preempted)`
 * counts them as `preempted_queries`/`preempted_hits`, which /metrics does not export,
 * vllm/v1/metrics/stats.py); older vLLM, SGLang's `cached_tokens_total` and servelab's simulator
 * count them with the rest. A re-admission can hit at most the request's own tokens, so each
 * preemption is discounted by its request's prompt plus completion tokens (the request's
 * `timings.preemptions` where the server reports them per request, as the simulator does; else
 * the counter's increase times the largest request of the run): what remains is a warm cache.
 */
export function coldRunHits(run: LoadedRun): ColdRunHits | null {
  const ss = seriesSummary((run.series ?? []) as ScrapePoint[]);
  const fromSeries = ss.prefix_hits_delta !== null && ss.prefix_queries_delta !== null;
  const counts = fromSeries
    ? { hits: ss.prefix_hits_delta as number, queries: ss.prefix_queries_delta as number }
    : recordHits(run);
  if (!counts || !(counts.queries > 0)) return null;
  const { hits, queries } = counts;
  let template = 0;
  for (const r of run.records) {
    const p = r.usage?.prompt_tokens;
    if (typeof p === 'number' && typeof r.input_len === 'number') template += Math.max(0, p - r.input_len);
  }
  const preemptions = Math.max(0, ss.preemptions_delta ?? 0);
  let bound = 0;
  if (preemptions > 0) {
    let perRequest = 0;
    let known = 0;
    let largest = 0;
    for (const r of run.records) {
      const tokens = (r.usage?.prompt_tokens ?? 0) + (r.usage?.completion_tokens ?? 0);
      largest = Math.max(largest, tokens);
      const n = r.timings?.preemptions;
      if (typeof n === 'number' && n >= 0) {
        known++;
        perRequest += n * tokens;
      }
    }
    bound = known === run.records.length && known > 0 ? perRequest : preemptions * largest;
  }
  return {
    rate: Math.max(0, hits - bound - template) / queries,
    raw_rate: hits / queries,
    preemptions,
    recompute_bound: bound,
    template_bound: template,
    from: fromSeries ? 'series' : 'records',
  };
}

/**
 * Requests per user a closed loop needed before Little's law was judged on it, in summaries
 * written before the closed-loop estimator (`analysis/littles-law`): their λ·W over the send
 * span counted the edges of the span as a gap. Summaries that say whether they can be judged
 * (`littles_law.judged`) are taken at their word.
 */
const LEGACY_REQUESTS_PER_USER = 10;

/** The users of a closed-loop run (its concurrency), or null for an open loop or sessions. */
function closedLoopUsers(run: LoadedRun): number | null {
  const load = (run.config.load ?? {}) as Record<string, unknown>;
  if (['open', 'sessions'].includes(String(load.mode ?? load.kind ?? ''))) return null;
  const c = run.level?.concurrency ?? run.config.concurrency ?? load.concurrency;
  return typeof c === 'number' && c > 0 ? c : null;
}

/** Whether a run has enough requests for its Little's-law gap to mean something. */
function littlesLawTestable(run: LoadedRun): boolean {
  const ll = run.summary.littles_law;
  if (ll.judged !== undefined) return ll.judged;
  const measured = run.summary.requests.measured;
  return (
    measured >= LITTLES_LAW_MIN_REQUESTS && measured >= LEGACY_REQUESTS_PER_USER * (closedLoopUsers(run) ?? 0)
  );
}

/**
 * Whether the run was made by an experiment file (`exp run`), whose sim target names its clock
 * there (`clock: virtual`); else by the command line (`run` against `servelab sim`), where
 * virtual time is `servelab plan`. An experiment's run config names its target by its name in
 * the file (a string); `run` describes the target it reached (an object with its URL).
 */
function fromExperimentFile(run: LoadedRun): boolean {
  return typeof run.config.target === 'string';
}

/**
 * Validity reasons for one run (empty = valid; see {@link validitySkipped} for what could not be
 * checked).
 * @param opts thresholds (see {@link VALIDITY_DEFAULTS})
 * @param t the language of the messages (default English)
 */
export function validityReasons(run: LoadedRun, opts: ValidityOptions = {}, t: T = EN): ValidityReason[] {
  const o = { ...VALIDITY_DEFAULTS, ...opts };
  const s = run.summary;
  const out: ValidityReason[] = [];
  const add = (code: string, message: string) => out.push({ code, run: run.id, message });

  // A burst at t = 0 offers no rate that lateness could miss: its requests leave as fast as
  // the client can send them, which is the load asked for.
  const late = unboundedRate(run) ? null : generatorLatenessP99(run);
  if (late !== null && late > o.max_lateness_p99_ms) {
    add('lateness', t('diagnose.validity.lateness', { late: late.toFixed(1), max: o.max_lateness_p99_ms }));
  }
  const loop = s.client.event_loop_delay_ms?.p99 ?? null;
  if (loop !== null && loop > o.max_event_loop_p99_ms) {
    add(
      'event_loop_lag',
      t('diagnose.validity.event_loop_lag', { p99: loop.toFixed(1), max: o.max_event_loop_p99_ms }),
    );
  }
  // CPU over a run of a second or two is mostly start-up (JIT, first connections), not load.
  const w = run.window ?? measurementWindow(run.records);
  const windowMs = w ? w.end_ms - w.start_ms : Number.POSITIVE_INFINITY;
  const cpu = s.client.cpu_percent;
  if (cpu !== null && cpu > o.max_client_cpu_percent && windowMs >= MIN_CPU_WINDOW_MS) {
    add(
      'client_cpu',
      t('diagnose.validity.client_cpu', { cpu: cpu.toFixed(0), max: o.max_client_cpu_percent }),
    );
  }
  if (s.usage_missing > 0) {
    add('usage_missing', t('diagnose.validity.usage_missing', { n: s.usage_missing }));
  }
  const tc = o.shared_server ? null : tokenCounts(run);
  if (tc) {
    const denom = Math.max(tc.client, tc.server, 1);
    const gap = Math.abs(tc.client - tc.server) / denom;
    if (gap > o.max_token_mismatch) {
      add(
        'token_mismatch',
        t('diagnose.validity.token_mismatch', {
          client: tc.client,
          server: tc.server,
          pct: (100 * gap).toFixed(1),
        }),
      );
    }
  }
  if (run.config.prompts === 'fresh') {
    const hits = coldRunHits(run);
    if (hits && hits.rate > o.max_cold_hit_rate)
      add(
        'cache_hits',
        hits.preemptions
          ? t('diagnose.validity.cache_hits_preempted', {
              pct: (100 * hits.rate).toFixed(1),
              raw: (100 * hits.raw_rate).toFixed(1),
              preemptions: hits.preemptions,
              recomputed: hits.recompute_bound,
            })
          : t(
              engineFamily(runEngine(run)) === 'llamacpp'
                ? 'diagnose.validity.cache_hits_llamacpp'
                : fromExperimentFile(run) || typeof run.config.seed !== 'number'
                  ? 'diagnose.validity.cache_hits'
                  : 'diagnose.validity.cache_hits_seen',
              { pct: (100 * hits.rate).toFixed(1), seed: run.config.seed as number },
            ),
      );
  }
  const simLate = simBehindSteps(run);
  const share = simLate?.steps ? simLate.behind / simLate.steps : null;
  if (simLate && simLate.behind > 0 && (share === null || share > o.max_sim_behind_fraction)) {
    add(
      'sim_behind',
      t(simLate.steps ? 'diagnose.validity.sim_behind_of' : 'diagnose.validity.sim_behind', {
        behind: simLate.behind,
        steps: simLate.steps,
        fix: t(
          fromExperimentFile(run)
            ? 'diagnose.validity.sim_behind_fix_file'
            : 'diagnose.validity.sim_behind_fix_cli',
        ),
      }),
    );
  }
  // Before the error rate: it is why the requests failed, and the run failed with it.
  const gone = serverGone(run.records);
  if (gone) {
    add(
      'server_gone',
      t('diagnose.validity.server_gone', {
        at: (gone.at_ms / 1000).toFixed(1),
        n: gone.connect_errors,
        unsent: gone.unsent,
      }),
    );
  }
  if (s.error_rate !== null && s.error_rate > o.max_error_rate) {
    add(
      'error_rate',
      t('diagnose.validity.error_rate', {
        pct: (100 * s.error_rate).toFixed(1),
        max: (100 * o.max_error_rate).toFixed(0),
      }),
    );
  }
  const gap = s.littles_law.rel_gap;
  // A dead server's run is judged by that: its workers backed off between connect errors, which
  // is not a loop that failed to keep its users busy.
  if (gap !== null && gap > o.max_littles_gap && littlesLawTestable(run) && !gone) {
    add(
      'littles_law',
      t('diagnose.validity.littles_law', {
        pct: (100 * gap).toFixed(0),
        measured: s.littles_law.measured_in_flight?.toFixed(2) ?? '—',
        predicted: s.littles_law.predicted_in_flight?.toFixed(2) ?? '—',
      }),
    );
  }
  return out;
}
