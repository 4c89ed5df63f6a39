/**
 * @module exp/template-parts
 * The shared pieces every kind's `exp init` template is made of (`exp/kinds/`, each kind's
 * `template`): the opening comment, a sim target documenting every simulator setting (from the
 * settings schema), the commented url target, and the shared sections (generation, workload,
 * load, cache, repeats, warm-up, SLOs, thresholds) with their optional fields commented out at
 * their defaults.
 */
import type { MessageKey, T } from '../i18n/index.js';
import { BUILTIN_GPUS, BUILTIN_MODELS } from '../sim/catalogue/index.js';
import {
  type SimSettingKey,
  simSettingDescription,
  simSettingExample,
  simSettingKeys,
  simSettingRequiredInFile,
} from '../sim/settings.js';

export interface SimTarget {
  name: string;
  /** Extra `key: value` lines inside `sim:` that this kind needs (set, not commented). */
  set?: string[];
  /** Write the fully commented option list (only on the first target). */
  full?: boolean;
  gpu?: string;
  /** The simulated model (default qwen3-0.6b). */
  model?: string;
  /**
   * The clock the simulator runs on (default virtual): a template must succeed as shipped on a
   * small, busy machine, and only virtual time does not depend on the machine keeping up.
   */
  clock?: 'real' | 'virtual';
}

/** `# key: value` (or `key: value`) padded to the comment column, then `# comment`. */
const commented = (line: string, width: number, comment: string) => `${line.padEnd(width)} # ${comment}`;

/**
 * A simulator setting's description in `t`'s language: the declaration's own text in English,
 * else the catalogue's `tpl.simopt.<key>` (the English catalogue copies the declarations, and
 * test/i18n/zh-templates.test.ts holds the copies equal).
 */
function simOptionDescription(t: T, key: SimSettingKey): string {
  return t.lang === 'en' ? simSettingDescription(key) : t(`tpl.simopt.${key}` as MessageKey);
}

/**
 * A sim target's optional settings, commented out at their defaults (or an example), each with
 * its description: from the settings schema, so that every setting is documented.
 */
function simOptionDocs(t: T): [key: string, line: string][] {
  return [
    ...simSettingKeys('file')
      .filter((k) => !simSettingRequiredInFile(k))
      .map((k): [string, string] => [
        k,
        commented(`# ${k}: ${simSettingExample(k) ?? ''}`, 36, simOptionDescription(t, k)),
      ]),
  ];
}

function simTarget(t: T, s: SimTarget): string {
  const lines = [
    `  ${s.name}:`,
    '    sim:',
    `      ${commented(`model: ${s.model ?? 'qwen3-0.6b'}`, 34, Object.keys(BUILTIN_MODELS).join(' | '))}`,
    `      ${commented(`gpu: ${s.gpu ?? 'h100'}`, 34, Object.keys(BUILTIN_GPUS).join(' | '))}`,
  ];
  const setKeys = new Set((s.set ?? []).map((x) => x.split(':')[0]));
  // Every sim target writes its clock out (virtual unless the kind says otherwise).
  if (!setKeys.has('clock'))
    lines.push(`      ${commented(`clock: ${s.clock ?? 'virtual'}`, 34, t('tpl.sim.clock'))}`);
  for (const x of s.set ?? []) lines.push(`      ${x}`);
  // The commented list documents every option; those set above are not repeated.
  if (s.full) for (const [k, d] of simOptionDocs(t)) if (!setKeys.has(k)) lines.push(`      ${d}`);
  return lines.join('\n');
}

function urlTargetDocs(t: T): string {
  const c = (line: string, key: Parameters<T>[0], width = 36) =>
    commented(`  #   ${line}`, width + 2, t(key));
  return [
    `  # ${t('tpl.url.intro')}`,
    '  # my-vllm:',
    c('url: http://127.0.0.1:8000/v1', 'tpl.url.url', 35),
    c('api_key_env: VLLM_API_KEY', 'tpl.url.api_key_env'),
    c('headers: {X-Team: perf}', 'tpl.url.headers'),
    c('model: Qwen/Qwen3-8B', 'tpl.url.model'),
    '  #   endpoint: chat                   # chat | completions',
    c('local: true', 'tpl.url.local'),
    `  #   metrics_url: http://127.0.0.1:8000/metrics  # ${t('tpl.url.metrics_url')}`,
    c('generation: {thinking: false}', 'tpl.url.generation'),
    `  #   extra_body: {chat_template_kwargs: {enable_thinking: false}}  # ${t('tpl.url.extra_body')}`,
    c('declared:', 'tpl.url.declared'),
    '  #     image: vllm/vllm-openai@sha256:…',
    '  #     gpu: H100 SXM',
    '  #     gpu_count: 1',
    '  #     driver: "570.86"',
    '  #     cuda: "12.8"',
    '  #     kernel_backend: FLASH_ATTN',
    '  #     weights_dtype: bf16',
    '  #     kv_cache_dtype: auto',
    '  #     model_revision: main',
    `${commented('  #     engine: vllm', 38, t('tpl.url.declared_more', { fields: 'engine_version, gpu_memory_gib, interconnect, rocm,' }))}`,
    '  #                                    # activations_dtype, max_model_len, max_num_seqs,',
    '  #                                    # max_num_batched_tokens, chat_template, routing',
  ].join('\n');
}

export interface Common {
  generation?: string[];
  workload?: string[];
  load: string[];
  cache?: string[];
  repeats?: number;
  warmup?: number;
  slo?: string[];
  thresholds?: string[];
}

/** A comment block: each line of `text` after `# `. */
const block = (text: string) => `# ${text.split('\n').join('\n# ')}`;

function commonBlocks(t: T, c: Common): string {
  const gen = c.generation ?? [];
  const wl = c.workload ?? ['input_len: 256', 'output_len: 64'];
  const set = (lines: readonly string[]) => lines.map((l) => `  ${l}\n`).join('');
  const opt = (line: string, key: Parameters<T>[0]) => `${commented(`  # ${line}`, 37, t(key))}\n`;
  const out: string[] = [];
  out.push(`${block(t('tpl.model'))}
# model: qwen3-0.6b
# endpoint: chat                      # chat (/v1/chat/completions) | completions (/v1/completions)

${block(t('tpl.seed'))}
# seed: 1

${block(t('tpl.generation'))}
generation:
${set(gen)}${opt('thinking: false', 'tpl.generation.thinking')}${opt('temperature: 0', 'tpl.generation.temperature')}  # top_p: 1
${opt('max_tokens: 128', 'tpl.generation.max_tokens')}  # stop: ["\\n\\n"]
${opt('ignore_eos: false', 'tpl.generation.ignore_eos')}  # stream: true
${opt('seed: 0', 'tpl.generation.seed')}
${block(t('tpl.workload'))}
workload:
${set(wl)}  # dataset: {format: sharegpt, path: ShareGPT_V3.json}   # ${t('tpl.workload.dataset')}
  # shared_prefix: {tokens: 1024, groups: 4}   # ${t('tpl.workload.shared_prefix')}
${opt('seed: 1', 'tpl.workload.seed')}${opt('reuse_prompts: false', 'tpl.workload.reuse_prompts')}
${block(t('tpl.load'))}
load:
${set(c.load)}${opt('mode: closed', 'tpl.load.mode')}${opt('arrival: poisson', 'tpl.load.arrival')}${opt('burstiness: 1', 'tpl.load.burstiness')}${opt('max_concurrency: 256', 'tpl.load.max_concurrency')}${opt('duration_s: 60', 'tpl.load.duration_s')}${opt('timeout_s: 600', 'tpl.load.timeout_s')}${opt('timeout_ttft_s: 60', 'tpl.load.timeout_ttft_s')}
${block(t('tpl.cache'))}
cache:
${set(c.cache ?? ['policy: as-is'])}  # reset: auto                       # auto | vllm | sglang | none
${opt('routing: single replica', 'tpl.cache.routing')}
${commented(`repeats: ${c.repeats ?? 1}`, 37, t('tpl.repeats'))}
${commented(`warmup: ${c.warmup ?? 2}`, 37, t('tpl.warmup'))}`);
  out.push(
    c.slo
      ? `\n${block(t('tpl.slo'))}\nslo:\n${set(c.slo)}  # itl_ms: 100`
      : `\n${block(t('tpl.slo'))}\n# slo: {ttft_ms: 1000, tpot_ms: 50, e2e_ms: 20000, itl_ms: 100}`,
  );
  out.push(
    `\n${block(t('tpl.thresholds'))}\nthresholds:${
      c.thresholds?.length ? `\n${c.thresholds.map((x) => `  - '${x}'`).join('\n')}` : ' []'
    }\n  # - 'ttft_ms.p99<500'\n  # - 'error_rate<0.01'`,
  );
  return out.join('\n');
}

function head(t: T, kind: string, name: string, about: string): string {
  return `# ${t('tpl.head.title', { kind })}
# ${about.split('\n').join('\n# ')}
# ${t('tpl.head.run', { name })}
kind: ${kind}
name: ${name}
# description: ${t('tpl.head.description')}
# lesson: ${t('tpl.head.lesson')}
`;
}

/** The shared parts a kind's template is made of, in one language. */
export interface TemplateParts {
  /** The language of the comments; a kind translates its own comments with it. */
  tr: T;
  /** The opening comment, `kind:` and `name:`. */
  head(kind: string, name: string, about: string): string;
  /** One sim target; `full` documents every simulator setting. */
  simTarget(t: SimTarget): string;
  /** The commented url target, documenting its fields. */
  urlTargets: string;
  /** The shared sections (generation, workload, load, cache, repeats, warmup, slo, thresholds). */
  common(c: Common): string;
}

/** The parts, as the kinds' templates take them, with comments in `t`'s language. */
export function templateParts(t: T): TemplateParts {
  return {
    tr: t,
    head: (kind, name, about) => head(t, kind, name, about),
    simTarget: (s) => simTarget(t, s),
    urlTargets: urlTargetDocs(t),
    common: (c) => commonBlocks(t, c),
  };
}
