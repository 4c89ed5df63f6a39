/**
 * @module config/inference-perf
 * Reads an inference-perf configuration (the YAML its `--config_file` takes) into servelab's
 * terms: the API, the load stages and the data. The schema is upstream's pydantic models in
 * `kubernetes-sigs/inference-perf` @ e8e0aa99 (`inference_perf/config.py`: `APIConfig`
 * {type completion|chat, streaming}, `DataConfig` {type, input_distribution,
 * output_distribution, shared_prefix}, `Distribution` {min, max, mean, std_dev, total_count},
 * `SharedPrefix` {num_groups, num_prompts_per_group, system_prompt_len, question_len,
 * output_len, enable_multi_turn_chat}, `LoadConfig` {type constant|poisson, interval, stages
 * [{rate, duration}]}); defaults are upstream's. Keys upstream has but servelab does not use
 * (server, metrics, report, storage, tokenizer) are accepted and left alone. Pure: the caller
 * reads the file.
 *
 * Names differ: inference-perf's `constant` load is rescaled exponential gaps, servelab's
 * `poisson` within a stage (`schedule/stages`); its `poisson` (a Poisson count per second, each
 * second's requests spread by the constant timer) is read as servelab's `poisson` too, with a note.
 */

import { z } from 'zod';
import { type Problem, UsageError } from '../core/errors.js';
import { parseUserYaml } from '../core/yaml.js';
import { type T, translator } from '../i18n/index.js';
import type { SharedPrefixSpec } from '../workload/shared-prefix.js';

const EN = translator('en');

const distribution = z.object({
  min: z.number().int().default(10),
  max: z.number().int().default(1024),
  mean: z.number().default(512),
  std_dev: z.number().default(200),
  total_count: z.number().int().nullish(),
});

const sharedPrefix = z.looseObject({
  num_groups: z.number().int().positive().default(10),
  num_prompts_per_group: z.number().int().positive().default(10),
  system_prompt_len: z.number().int().nonnegative().default(100),
  question_len: z.number().int().positive().default(50),
  output_len: z.number().int().positive().default(50),
  enable_multi_turn_chat: z.boolean().default(false),
});

const schema = z.looseObject({
  api: z
    .looseObject({
      type: z.enum(['completion', 'chat']).default('completion'),
      streaming: z.boolean().default(false),
    })
    .default({ type: 'completion', streaming: false }),
  data: z
    .looseObject({
      type: z.enum(['mock', 'shareGPT', 'synthetic', 'random', 'shared_prefix']).default('mock'),
      input_distribution: distribution.nullish(),
      output_distribution: distribution.nullish(),
      shared_prefix: sharedPrefix.nullish(),
    })
    .default({ type: 'mock' }),
  load: z.looseObject({
    type: z.enum(['constant', 'poisson']).default('constant'),
    interval: z.number().nonnegative().default(1),
    stages: z.array(z.object({ rate: z.number().positive(), duration: z.number().positive() })).min(1),
  }),
});

/** inference-perf's length distribution (a truncated normal), in upstream's fields. */
export type InferencePerfDistribution = z.infer<typeof distribution>;

/** An inference-perf configuration in servelab's terms. */
export interface InferencePerfPlan {
  endpoint: 'chat' | 'completions';
  stream: boolean;
  /** Load stages (`schedule/stages`' LoadStage shape; config/ does not import schedule/). */
  stages: { rateRps: number; durationS: number }[];
  /** The servelab arrival kind within a stage. */
  arrival: 'poisson';
  /** Pause between stages, s (upstream `load.interval`). */
  stagePauseS: number;
  data:
    | { kind: 'shared_prefix'; sharedPrefix: SharedPrefixSpec; multiTurn: boolean }
    | {
        kind: 'random' | 'synthetic';
        input: InferencePerfDistribution | null;
        output: InferencePerfDistribution | null;
      }
    | { kind: 'mock' | 'shareGPT' };
  /** What was read differently from what upstream's words suggest (printed before the run). */
  notes: string[];
}

/**
 * Parse the YAML text of an inference-perf configuration.
 * @throws UsageError listing every problem with its key path and a hint.
 */
export function parseInferencePerfConfig(
  text: string,
  file = 'inference-perf config',
  t: T = EN,
): InferencePerfPlan {
  const raw = parseUserYaml(text, file, 'check the indentation');
  const r = schema.safeParse(raw ?? {});
  if (!r.success) {
    const problems: Problem[] = r.error.issues.map((i) => ({
      path: `${file}: ${i.path.join('.') || '(top level)'}`,
      message: i.message,
      hint: t('cli.inference_perf.schema_hint'),
    }));
    throw new UsageError(problems);
  }
  const c = r.data;
  const notes: string[] = [];
  if (c.load.type === 'poisson') notes.push(t('cli.inference_perf.poisson'));
  const d = c.data;
  const sp = d.shared_prefix;
  let data: InferencePerfPlan['data'];
  if (d.type === 'shared_prefix') {
    const s = sp ?? sharedPrefix.parse({});
    data = {
      kind: 'shared_prefix',
      sharedPrefix: {
        numGroups: s.num_groups,
        promptsPerGroup: s.num_prompts_per_group,
        systemPromptLen: s.system_prompt_len,
        questionLen: s.question_len,
        outputLen: s.output_len,
      },
      multiTurn: s.enable_multi_turn_chat,
    };
    for (const k of ['num_unique_system_prompts', 'num_users_per_system_prompt'])
      if (sp && k in sp) notes.push(t('cli.inference_perf.unknown_key', { key: `data.shared_prefix.${k}` }));
  } else if (d.type === 'random' || d.type === 'synthetic') {
    data = { kind: d.type, input: d.input_distribution ?? null, output: d.output_distribution ?? null };
  } else data = { kind: d.type };
  return {
    endpoint: c.api.type === 'chat' ? 'chat' : 'completions',
    stream: c.api.streaming,
    stages: c.load.stages.map((s) => ({ rateRps: s.rate, durationS: s.duration })),
    arrival: 'poisson',
    stagePauseS: c.load.interval,
    data,
    notes,
  };
}
