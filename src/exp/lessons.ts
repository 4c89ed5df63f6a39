/**
 * @module exp/lessons
 * The course's lessons (its "学习与升级的达成标志": what a learner must be able to explain), each
 * an experiment template of an existing kind with the lesson's name in `lesson:`: the one factor
 * it changes, what it holds fixed, and a sign check over the kind's own results that states the
 * measured effect with its sign and size. `exp/lesson-answer` puts that effect first in the kind's
 * answer, with the mechanism (catalogue `lesson.*`, English and Chinese), the step timeline to
 * look at and the source-map rows of vLLM, SGLang and llama.cpp where the mechanism lives.
 *
 * Every template runs as shipped on the simulator in virtual time (small request counts), and
 * against real engines when `exp init` is given their URLs: the same file, another target.
 */
import type { VoiceSummary } from '../analysis/voice-metrics.js';
import type { RunStepRecord } from '../record/engine-step.js';
import type { MatrixResult } from './kinds/matrix.js';
import { fmt } from './kinds/points.js';
import type { SweepResult } from './kinds/sweep-report.js';
import type { VoiceResult } from './kinds/voice.js';
import {
  at,
  head,
  type Lesson,
  type LessonEvidence,
  median,
  pctChange,
  signed,
  target,
} from './lesson-kit.js';
import type { LessonName } from './lesson-names.js';
import { speculation } from './lesson-speculation.js';
import { attributeDifferences } from './lesson-two-engines.js';

export type { Lesson, LessonEvidence, LessonOutcome, LessonSource } from './lesson-kit.js';

// ---- the lessons -------------------------------------------------------------------------------

const longContext: Lesson = {
  name: 'lesson-long-context',
  kind: 'matrix',
  urls: 1,
  template: (t, urls) => `${head(t, 'lesson-long-context', 'matrix')}
targets:
${target('engine', [], urls[0])}

matrix:
  cells:                                   # ${t('lesson.tpl.cells')}
    - {name: ctx-1k, input_len: 1024, output_len: 64}
    - {name: ctx-4k, input_len: 4096, output_len: 64}
    - {name: ctx-8k, input_len: 8192, output_len: 64}
  concurrency: [1, 8]                      # ${t('lesson.tpl.batch')}
generation: {ignore_eos: true}             # ${t('lesson.tpl.ignore_eos')}
load: {requests: 8}
cache: {policy: as-is}
warmup: 0
`,
  outcome(results, _e, t) {
    const r = results as MatrixResult;
    const cells = r.targets[0]?.cells ?? [];
    const levels = [...new Set(cells.map((c) => c.concurrency))];
    const parts: string[] = [];
    let holds: boolean | null = null;
    // The shortest and the longest prompts of the template (the cells in the order written).
    const first = cells[0]?.cell;
    const last = cells[cells.length - 1]?.cell;
    for (const c of levels) {
      const short = cells.find((x) => x.concurrency === c && x.cell === first)?.tpot_ms.p50 ?? null;
      const long = cells.find((x) => x.concurrency === c && x.cell === last)?.tpot_ms.p50 ?? null;
      if (short === null || long === null) continue;
      holds = (holds ?? true) && long > short;
      parts.push(
        t('lesson.lesson-long-context.effect', {
          c,
          from: first ?? '',
          to: last ?? '',
          short: fmt(short, 2),
          long: fmt(long, 2),
          change: pctChange(short, long),
        }),
      );
    }
    return { effect: parts.join(' ') || t('lesson.no_data'), holds };
  },
  sources: [
    { engine: 'vllm', path: 'vllm/v1/worker/gpu_model_runner.py', symbol: 'GPUModelRunner.execute_model' },
    {
      engine: 'sglang',
      path: 'python/sglang/srt/managers/tp_worker.py',
      symbol: 'TpModelWorker.forward_batch_generation',
    },
    { engine: 'llamacpp', path: 'src/llama-kv-cache.cpp', symbol: 'llama_kv_cache::get_n_kv' },
  ],
};

const pagingVsPrefix: Lesson = {
  name: 'lesson-paging-vs-prefix',
  kind: 'concurrency-sweep',
  urls: 2,
  template: (t, urls) => `${head(t, 'lesson-paging-vs-prefix', 'concurrency-sweep')}
targets:
${target('prefix-on', ['enable_prefix_caching: true'], urls[0])}
${target('prefix-off', ['enable_prefix_caching: false'], urls[1])}

sweep:
  stop: {error_rate: 0.5, ttft_p99_factor: 1000, e2e_p99_factor: 1000}
workload:
  input_len: 2304
  output_len: 32
  shared_prefix: {tokens: 2048, groups: 1}  # ${t('lesson.tpl.shared_prefix')}
generation: {ignore_eos: true}
load:
  concurrency: [1, 2]
  requests: 8
cache: {policy: as-is}
warmup: 1
`,
  outcome(results, evidence, t) {
    const r = results as SweepResult;
    const on = at(r, 0, 1)?.ttft_ms.p50 ?? null;
    const off = at(r, 1, 1)?.ttft_ms.p50 ?? null;
    const names = r.targets.map((x) => x.target);
    const blocks = (name: string | undefined) => {
      if (!evidence || !name) return null;
      const vals = Object.entries(evidence.blocks_held)
        .filter(([label, v]) => label.startsWith(`${name} `) && v !== null)
        .map(([, v]) => v as number);
      return vals.length ? (median(vals) ?? null) : null;
    };
    const bOn = blocks(names[0]);
    const bOff = blocks(names[1]);
    if (on === null || off === null) return { effect: t('lesson.no_data'), holds: null };
    const blocksText =
      bOn === null || bOff === null
        ? t('lesson.lesson-paging-vs-prefix.no_blocks')
        : t('lesson.lesson-paging-vs-prefix.blocks', { on: fmt(bOn, 0), off: fmt(bOff, 0) });
    return {
      effect: `${t('lesson.lesson-paging-vs-prefix.effect', { on: fmt(on), off: fmt(off), change: pctChange(off, on) })} ${blocksText}`,
      holds: bOn === null || bOff === null ? null : on < off && bOn === bOff,
    };
  },
  sources: [
    {
      engine: 'vllm',
      path: 'vllm/v1/core/kv_cache_manager.py',
      symbol: 'KVCacheManager.get_computed_blocks',
    },
    { engine: 'vllm', path: 'vllm/v1/core/kv_cache_manager.py', symbol: 'KVCacheManager.allocate_slots' },
    {
      engine: 'sglang',
      path: 'python/sglang/srt/mem_cache/radix_cache.py',
      symbol: 'RadixCache.match_prefix',
    },
    { engine: 'llamacpp', path: 'tools/server/server-context.cpp', symbol: 'get_available_slot' },
  ],
};

const batchVsTail: Lesson = {
  name: 'lesson-batch-vs-tail',
  kind: 'concurrency-sweep',
  urls: 1,
  template: (t, urls) => `${head(t, 'lesson-batch-vs-tail', 'concurrency-sweep')}
targets:
${target('engine', ['max_num_batched_tokens: 2048'], urls[0])}

sweep:
  stop: {error_rate: 0.5, ttft_p99_factor: 1000, e2e_p99_factor: 1000}
workload: {input_len: 'uniform:256-4096', output_len: 64}   # ${t('lesson.tpl.mixed')}
generation: {ignore_eos: true}
load:
  concurrency: [1, 32]                     # ${t('lesson.tpl.batch')}
  requests: 32
cache: {policy: as-is}
warmup: 0
`,
  outcome(results, _e, t) {
    const r = results as SweepResult;
    const pts = r.targets[0]?.points ?? [];
    const lo = pts[0];
    const hi = pts[pts.length - 1];
    const itlLo = lo?.itl_ms.p99 ?? null;
    const itlHi = hi?.itl_ms.p99 ?? null;
    const tpLo = lo?.output_throughput_tok_s ?? null;
    const tpHi = hi?.output_throughput_tok_s ?? null;
    if (!lo || !hi || lo === hi || itlLo === null || itlHi === null || tpLo === null || tpHi === null)
      return { effect: t('lesson.no_data'), holds: null };
    return {
      effect: t('lesson.lesson-batch-vs-tail.effect', {
        lo: lo.level,
        hi: hi.level,
        itl_lo: fmt(itlLo),
        itl_hi: fmt(itlHi),
        itl_change: pctChange(itlLo, itlHi),
        tp_lo: fmt(tpLo, 0),
        tp_hi: fmt(tpHi, 0),
        tp_change: pctChange(tpLo, tpHi),
      }),
      holds: itlHi > itlLo && tpHi > tpLo,
    };
  },
  sources: [
    { engine: 'vllm', path: 'vllm/v1/core/sched/scheduler.py', symbol: 'Scheduler.schedule' },
    { engine: 'sglang', path: 'python/sglang/srt/managers/schedule_policy.py', symbol: 'PrefillAdder' },
    { engine: 'llamacpp', path: 'tools/server/server-context.cpp', symbol: 'update_slots' },
  ],
};

const int4: Lesson = {
  name: 'lesson-int4',
  kind: 'concurrency-sweep',
  urls: 2,
  template: (t, urls) => `${head(t, 'lesson-int4', 'concurrency-sweep')}
targets:
${target('bf16', ['model: llama-3.1-8b', 'dtype: bf16', 'max_num_seqs: 256', 'record_steps: false'], urls[0])}
${target('int4', ['model: llama-3.1-8b', 'dtype: int4', 'max_num_seqs: 256', 'record_steps: false'], urls[1])}

sweep:
  stop: {error_rate: 0.5, ttft_p99_factor: 1000, e2e_p99_factor: 1000}
workload: {input_len: 128, output_len: 32}
generation: {ignore_eos: true}
load:
  concurrency: [1, 128]                    # ${t('lesson.tpl.int4_levels')}
  requests: 128
cache: {policy: as-is}
warmup: 0
`,
  outcome(results, _e, t) {
    const r = results as SweepResult;
    const levels = (r.targets[0]?.points ?? []).map((p) => p.level);
    const parts: string[] = [];
    const faster: boolean[] = [];
    for (const c of levels) {
      const a = at(r, 0, c)?.tpot_ms.p50 ?? null;
      const b = at(r, 1, c)?.tpot_ms.p50 ?? null;
      if (a === null || b === null) continue;
      faster.push(b < a);
      parts.push(
        t('lesson.lesson-int4.effect', { c, bf16: fmt(a, 2), int4: fmt(b, 2), change: pctChange(a, b) }),
      );
    }
    if (faster.length < 2) return { effect: t('lesson.no_data'), holds: null };
    return { effect: parts.join(' '), holds: faster[0] && !faster[faster.length - 1] };
  },
  sources: [
    {
      engine: 'vllm',
      path: 'vllm/model_executor/layers/quantization/__init__.py',
      symbol: 'get_quantization_config',
    },
    {
      engine: 'sglang',
      path: 'python/sglang/srt/layers/quantization/__init__.py',
      symbol: 'get_quantization_config',
    },
    { engine: 'llamacpp', path: 'ggml/src/ggml-cuda/ggml-cuda.cu', symbol: 'ggml_cuda_mul_mat' },
  ],
};

const voice: Lesson = {
  name: 'lesson-voice',
  kind: 'voice',
  urls: 1,
  template: (t, urls) => `${head(t, 'lesson-voice', 'voice')}
targets:
${target('engine', ['model: llama-3.1-8b', 'sentence_words: 12', 'record_steps: false'], urls[0])}

voice:
  vary: tts_chunk                          # ${t('lesson.tpl.voice_vary')}
  values: [sentence, whole]
  base: {tts_chunk: sentence, endpoint_ms: 500, asr_gpu: colocated, concurrency: 2}
  turns: 6
  speech_seconds: uniform:1-2
  output_len: uniform:60-100
  playback_buffer_ms: 150
warmup: 0
`,
  outcome(results, _e, t) {
    const r = results as VoiceResult;
    const parts: string[] = [];
    let holds: boolean | null = null;
    for (const c of r.targets[0]?.conditions ?? []) {
      const s: VoiceSummary = c.summary;
      const tfa = s.time_to_first_audio_ms.p50;
      const ttft = s.llm_ttft_ms.p50;
      if (tfa === null || ttft === null) continue;
      const seg = (k: keyof VoiceSummary['segments']) => fmt(s.segments[k].mean ?? 0, 0);
      holds = (holds ?? true) && tfa > ttft;
      parts.push(
        t('lesson.lesson-voice.effect', {
          value: String(c.value),
          tfa: fmt(tfa, 0),
          ttft: fmt(ttft, 0),
          gap: signed(tfa - ttft, 0),
          endpoint: seg('endpoint'),
          asr: seg('asr'),
          wait: seg('first_chunk_wait'),
          tts: seg('tts_first_byte'),
          buffer: seg('buffer'),
        }),
      );
    }
    return { effect: parts.join(' ') || t('lesson.no_data'), holds };
  },
  sources: [
    {
      engine: 'vllm',
      path: 'vllm/entrypoints/openai/speech_to_text/protocol.py',
      symbol: 'TranscriptionStreamResponse',
    },
    {
      engine: 'sglang',
      path: 'python/sglang/srt/entrypoints/openai/serving_chat.py',
      symbol: 'OpenAIServingChat._generate_stream_content',
    },
    { engine: 'llamacpp', path: 'tools/server/server-context.cpp', symbol: 'process_token' },
  ],
};

/**
 * The GPU of the two-engine lesson: one on which the two engines' own defaults differ, as users
 * meet them. vLLM's API server runs 2,048 tokens per step on a GPU under 70 GiB or an A100
 * (`vllm-project/vllm:vllm/engine/arg_utils.py` `EngineArgs.get_batch_defaults`, here
 * `sim/engine/config` `vllmBatchDefaults`), prefill chunks sharing each step with the running
 * decodes; SGLang's `--chunked-prefill-size` is 8,192 on a 35–160 GB GPU
 * (`sgl-project/sglang:python/sglang/srt/server_args.py`, here `sim/engine/profiles`
 * `sglangChunkedPrefillSize`), and its prefill batches run alone (`enable_mixed_chunk` off).
 * On an H100 both budgets are 8,192, which hides half of the difference.
 */
const TWO_ENGINES_GPU = 'gpu: a100-80gb';

const twoEngines: Lesson = {
  name: 'lesson-two-engines',
  kind: 'concurrency-sweep',
  urls: 2,
  template: (t, urls) => `${head(t, 'lesson-two-engines', 'concurrency-sweep')}
${urls[0] ? '' : `# ${t('lesson.tpl.two_gpu')}\n`}targets:
${target('vllm-like', [TWO_ENGINES_GPU, 'engine: vllm-v1'], urls[0])}
${target('sglang-like', [TWO_ENGINES_GPU, 'engine: sglang'], urls[1])}

sweep:
  stop: {error_rate: 0.5, ttft_p99_factor: 1000, e2e_p99_factor: 1000}
workload:
  input_len: 'uniform:1280-6144'
  output_len: 64
  shared_prefix: {tokens: 1024, groups: 2}  # ${t('lesson.tpl.shared_prefix')}
generation: {ignore_eos: true}
load:
  concurrency: [1, 4, 16]                  # ${t('lesson.tpl.two_levels')}
  requests: 24
cache: {policy: as-is}
warmup: 0
`,
  outcome(results, _e, t) {
    const r = results as SweepResult;
    const differences = attributeDifferences(r);
    if (r.targets.length < 2) return { effect: t('lesson.no_data'), holds: null, differences };
    const explained = differences.every((d) => d.mechanism !== null);
    // No difference leaves nothing to attribute: the lesson has no answer to judge, not a pass.
    if (!differences.length)
      return {
        effect: t('lesson.lesson-two-engines.same', { a: r.targets[0].target, b: r.targets[1].target }),
        holds: null,
        differences,
      };
    return {
      effect: t('lesson.lesson-two-engines.effect', {
        n: differences.length,
        a: r.targets[0].target,
        b: r.targets[1].target,
        list: differences
          .map((d) =>
            t('lesson.two.diff', {
              metric: d.metric,
              c: d.level,
              a: fmt(d.a, 2),
              b: fmt(d.b, 2),
              mechanism: d.mechanism
                ? t(`lesson.mechanism.${d.mechanism}` as never)
                : t('lesson.mechanism.none'),
            }),
          )
          .join('; '),
      }),
      holds: explained,
      differences,
    };
  },
  sources: [
    { engine: 'vllm', path: 'vllm/v1/core/sched/scheduler.py', symbol: 'Scheduler.schedule' },
    {
      engine: 'vllm',
      path: 'vllm/v1/core/kv_cache_manager.py',
      symbol: 'KVCacheManager.get_computed_blocks',
    },
    {
      engine: 'sglang',
      path: 'python/sglang/srt/managers/scheduler.py',
      symbol: 'Scheduler.event_loop_normal',
    },
    { engine: 'sglang', path: 'python/sglang/srt/managers/schedule_policy.py', symbol: 'PrefillAdder' },
    {
      engine: 'sglang',
      path: 'python/sglang/srt/mem_cache/radix_cache.py',
      symbol: 'RadixCache.match_prefix',
    },
    { engine: 'llamacpp', path: 'tools/server/server-context.cpp', symbol: 'update_slots' },
  ],
};

/** Every lesson, by name, in the course's order. */
export const LESSONS: Record<LessonName, Lesson> = {
  'lesson-long-context': longContext,
  'lesson-paging-vs-prefix': pagingVsPrefix,
  'lesson-batch-vs-tail': batchVsTail,
  'lesson-int4': int4,
  'lesson-speculation': speculation,
  'lesson-voice': voice,
  'lesson-two-engines': twoEngines,
};

/**
 * The paging lesson's evidence from its runs' steps: per run, the median KV blocks a request
 * holds when its prompt is in (its last prefill chunk's `blocks`), whether its prefix was a hit.
 */
export function blocksHeld(
  runs: readonly { label: string; steps: readonly RunStepRecord[] | null }[],
): LessonEvidence {
  const out: Record<string, number | null> = {};
  for (const r of runs) {
    if (!r.steps?.length) {
      out[r.label] = null;
      continue;
    }
    const last = new Map<string, number>();
    for (const s of r.steps) for (const c of s.prefill) if (c.done === c.of) last.set(c.id, c.blocks);
    out[r.label] = last.size ? (median([...last.values()]) ?? null) : null;
  }
  return { blocks_held: out };
}
