/**
 * @module exp/harness/workloads
 * What an experiment sends: the requests of a run from the file's `workload` (synthetic prompts,
 * a dataset, shared prefixes) and seed, a level's fresh prompts and warm-up prompts, and a
 * sessions workload with the load that replays it. Every target gets the same requests; lengths
 * are token-exact with the first target's tokenizer (`model`).
 */
import { defaultOutputLen, syntheticDefault, workloadOptionValues } from '../../config/run-settings.js';
import { sessionsLoadMode } from '../../pipeline/load-plan.js';
import { sharesPrefix } from '../../pipeline/measure-settings.js';
import { hashString } from '../../runtime/rng.js';
import { buildWorkload, type Workload } from '../../workload/index.js';
import type { RequestSpec } from '../../workload/types.js';
import type { SharedFile } from '../fields.js';
import type { KindWorkloadOptions, LevelWorkload, SessionsLoad } from '../kinds/context.js';

/** Build `count` synthetic requests (or dataset prompts) with the experiment's seed. */
export async function workloadOf(
  exp: SharedFile,
  model: string,
  opts: KindWorkloadOptions,
): Promise<RequestSpec[]> {
  const w = exp.workload;
  const seed = opts.seed ?? w.seed ?? exp.seed;
  const dataset = !opts.plain ? w.dataset : undefined;
  const prefix = !opts.plain && !dataset ? w.shared_prefix : undefined;
  // `shared_prefix.prompts_per_group` cycles the groups' prompts: only with the shared prefix.
  const { promptsPerGroup, ...given } = workloadOptionValues(w, 'file');
  const built = await buildWorkload({
    ...given,
    seed,
    count: opts.count,
    model,
    ...(dataset
      ? dataset.format === 'sharegpt'
        ? { dataset: { kind: 'sharegpt', path: dataset.path } }
        : { promptsFile: dataset.path }
      : { inputLen: opts.inputLen ?? w.input_len ?? syntheticDefault('input_len') }),
    // A dataset brings its own output lengths (ShareGPT: the reply's), as on the command line.
    outputLen: opts.outputLen ?? w.output_len ?? defaultOutputLen(!!dataset, exp.generation.max_tokens),
    ...(prefix
      ? {
          sharedPrefixLen: prefix.tokens,
          numPrefixGroups: prefix.groups,
          ...(promptsPerGroup !== undefined ? { promptsPerGroup } : {}),
        }
      : {}),
  });
  return built.specs;
}

/**
 * A sessions load of `users` users from the file's `load` (turns, think_time_s, ramp_up_s or
 * session_rate, max_concurrency) and `workload` (input_len, output_len, documents), with the
 * experiment's seed (or `opts.seed`; `opts.documentSeed` keeps the shared documents of another
 * seed): the workload (its turns as `specs`) and the load to measure it with.
 */
export async function sessionsOf(
  exp: SharedFile,
  model: string,
  users: number,
  opts: { seed?: number; documentSeed?: number } = {},
): Promise<{ workload: Workload; load: SessionsLoad }> {
  const w = exp.workload;
  const l = exp.load;
  const seed = opts.seed ?? w.seed ?? exp.seed;
  const workload = await buildWorkload({
    ...workloadOptionValues(w, 'file'),
    seed,
    model,
    inputLen: w.input_len ?? syntheticDefault('input_len'),
    outputLen: w.output_len ?? syntheticDefault('output_len'),
    sessions: {
      users,
      turns: l.turns ?? '1',
      thinkTime: l.think_time_s ?? '0',
      ...(w.documents
        ? {
            documents: w.documents.count,
            docLen: w.documents.tokens,
            docPopularity: w.documents.popularity,
            ...(opts.documentSeed !== undefined ? { documentSeed: opts.documentSeed } : {}),
          }
        : {}),
    },
  });
  const load = sessionsLoadMode(workload.sessions ?? null, {
    rampUpS: l.ramp_up_s ?? null,
    sessionRateRps: l.session_rate ?? null,
    seed,
    maxConcurrency: l.max_concurrency ?? null,
  });
  return { workload, load };
}

/**
 * The prompts of one level of a sweep or matrix, and its warm-up prompts: fresh for every level
 * (seeded from the experiment seed and the level, so a rerun sends the same ones), unless the
 * file asks for `workload.reuse_prompts`. Warm-up prompts are always distinct from the measured
 * ones, so warming up never pre-fills the prefix cache with the prompts about to be measured;
 * only `cache.policy: warm` warms the cache with the measured prompts themselves. A level is
 * meant to meet a cold cache (`coldPrompts`, the verdict's `cache_hits`) unless its prompts are
 * reused, the cache is warmed on purpose, or its prompts share a prefix (`shared_prefix`,
 * `documents`): then hits are what the level measures.
 */
export async function levelWorkloadOf(
  exp: SharedFile,
  model: string,
  level: Record<string, number | string>,
  opts: Omit<KindWorkloadOptions, 'seed'>,
): Promise<LevelWorkload> {
  const reuse = exp.workload.reuse_prompts;
  const base = exp.workload.seed ?? exp.seed;
  const seed = reuse ? base : hashString(`${base}:${JSON.stringify(level)}`);
  const specs = await workloadOf(exp, model, { ...opts, seed });
  const warm = exp.cache.policy === 'warm';
  // Prompts that share a prefix (as `workloadOf` builds them) are meant to hit the cache.
  const w = exp.workload;
  const shared =
    !opts.plain &&
    !w.dataset &&
    sharesPrefix({
      sharedPrefixLen: w.shared_prefix?.tokens,
      numPrefixGroups: w.shared_prefix?.groups,
      documents: w.documents,
    });
  const warmupSpecs =
    exp.warmup > 0 && !warm
      ? await workloadOf(exp, model, { ...opts, count: exp.warmup, seed: hashString(`${seed}:warmup`) })
      : undefined;
  return { specs, warmupSpecs, coldPrompts: !reuse && !warm && !shared };
}

/** Measured requests for one level of a sweep: `load.requests`, else `max(16, 4 × concurrency)`. */
export function requestsFor(exp: SharedFile, concurrency: number): number {
  return exp.load.requests ?? Math.max(16, 4 * concurrency);
}
