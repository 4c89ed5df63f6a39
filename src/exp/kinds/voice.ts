/**
 * @module exp/kinds/voice
 * `voice`: the first-audio critical path of voice users (`pipeline/measure-voice`, what
 * `servelab voice` measures) under one switch at a time: the TTS chunk policy, the endpointing
 * window, ASR on the LLM's GPU or a GPU of its own, or the number of users. Every other setting stays at `base`.
 * Each condition is one voice measurement; the result is each condition's breakdown of
 * time_to_first_audio_ms beside the LLM's own TTFT, drawn as a waterfall
 * (`report/voice-waterfall`), written with the records under `out` when it is set.
 *
 * A sim target gets a fresh simulator per condition (its settings, with `asr_gpu` switched when
 * that is what varies, and sentences in its text unless `sentence_words` is set), so no condition
 * inherits another's caches or queues: over HTTP in real time, or with `clock: virtual` in this
 * process in virtual time (speaking, endpointing, ASR, LLM and TTS all on its clock). A URL target is measured as it is: `asr_gpu` cannot be
 * switched on it, and its ASR and TTS servers are `asr_url` / `tts_url` (default: its URL).
 */
import { join } from 'node:path';
import { z } from 'zod';
import { summarize } from '../../analysis/summary.js';
import type { VoiceSummary } from '../../analysis/voice-metrics.js';
import { lengthDist } from '../../config/run-settings.js';
import { UsageError } from '../../core/errors.js';
import { listOf, nonNegNum, oneOf, posInt, str } from '../../core/fields.js';
import { type EngineEndpoint, simEndpoint } from '../../pipeline/endpoint.js';
import { measureVoice, type VoiceSettings, writeVoiceWaterfall } from '../../pipeline/measure-voice.js';
import { formatVoiceWaterfall, voiceComparison } from '../../report/voice-waterfall.js';
import { type ChunkPolicy, parseChunkPolicy } from '../../runner/chunker.js';
import { ASR_GPU_MODES } from '../../sim/config/vocab.js';
import { startSimServer } from '../../sim/server/index.js';
import { refuseLoadLevels } from '../fields.js';
import type { KindContext, LiveTarget } from './context.js';
import { defineKind, type OwnFile } from './kind.js';

/** What a voice experiment may switch, one at a time. */
export const VOICE_SWITCHES = ['tts_chunk', 'endpoint_ms', 'asr_gpu', 'concurrency'] as const;
export type VoiceSwitch = (typeof VOICE_SWITCHES)[number];

export interface VoiceConditionResult {
  /** The switched setting's value, as written. */
  value: string | number;
  summary: VoiceSummary;
  /** Where its records went (empty without `out`). */
  files: string[];
}

export interface VoiceTargetResult {
  target: string;
  conditions: VoiceConditionResult[];
}

export interface VoiceResult {
  kind: 'voice';
  vary: VoiceSwitch;
  base: { tts_chunk: string; endpoint_ms: number; asr_gpu: string; concurrency: number };
  targets: VoiceTargetResult[];
  /** The waterfall SVG, when written under `out`. */
  waterfall: string | null;
}

const baseSchema = z.strictObject({
  tts_chunk: str().default('sentence'),
  endpoint_ms: nonNegNum().default(500),
  asr_gpu: oneOf(ASR_GPU_MODES).default('colocated'),
  concurrency: posInt().default(4),
});

export const voiceSchema = z.strictObject({
  /** The one setting that changes between conditions. */
  vary: oneOf(VOICE_SWITCHES).default('tts_chunk'),
  /** Its values, one condition each. */
  values: listOf(z.union([str(), z.number()])).default(['sentence', 'whole']),
  /** Every setting that does not vary. */
  base: baseSchema.default({ tts_chunk: 'sentence', endpoint_ms: 500, asr_gpu: 'colocated', concurrency: 4 }),
  /** Planned turns per condition. */
  turns: posInt().default(12),
  speech_seconds: lengthDist('real').default('uniform:1-2'),
  output_len: lengthDist().default('uniform:60-100'),
  playback_buffer_ms: nonNegNum().default(150),
  asr_url: str().optional(),
  tts_url: str().optional(),
  asr_model: str().default('whisper-1'),
  tts_model: str().default('tts-1'),
  tts_voice: str().default('alloy'),
  /** Where to write each condition's records and the waterfall (default: nowhere). */
  out: str().optional(),
});
type VoiceSection = z.output<typeof voiceSchema>;

/** The problem of a value the switched setting cannot take, or null. */
function valueProblem(vary: VoiceSwitch, v: unknown): string | null {
  if (vary === 'tts_chunk') {
    const problems: { message: string }[] = [];
    if (typeof v !== 'string') return 'expected sentence, chars:N or whole';
    parseChunkPolicy(v, problems);
    return problems.length ? 'expected sentence, chars:N or whole' : null;
  }
  if (vary === 'asr_gpu')
    return (ASR_GPU_MODES as readonly unknown[]).includes(v)
      ? null
      : `expected ${ASR_GPU_MODES.join(' or ')}`;
  if (typeof v !== 'number' || !(v >= 0)) return 'expected a number ≥ 0';
  if (vary === 'concurrency' && (!Number.isInteger(v) || v < 1)) return 'expected a positive integer';
  return null;
}

function conditionSettings(
  v: VoiceSection,
  value: string | number,
  url: { llm: string; asr: string; tts: string },
  t: LiveTarget,
  seed: number,
  out: string | null,
): VoiceSettings {
  const pick = <K extends keyof VoiceSection['base']>(k: K) =>
    (v.vary === k ? value : v.base[k]) as VoiceSection['base'][K];
  const chunk: ChunkPolicy = parseChunkPolicy(String(pick('tts_chunk')), []);
  return {
    asrUrl: url.asr,
    llmUrl: url.llm,
    ttsUrl: url.tts,
    asrModel: v.asr_model,
    asrStream: true,
    ttsModel: v.tts_model,
    ttsVoice: v.tts_voice,
    ttsFormat: 'pcm',
    model: t.mode === 'http' && !t.sim ? t.model : null,
    users: Number(pick('concurrency')),
    turns: v.turns,
    seed,
    audioDir: null,
    speechSeconds: v.speech_seconds,
    endpointMs: Number(pick('endpoint_ms')),
    chunk,
    bufferMs: v.playback_buffer_ms,
    outputLen: v.output_len,
    maxTokens: null,
    temperature: 0,
    ignoreEos: true,
    timeoutS: 120,
    timeoutFirstS: null,
    headers: t.headers,
    apiKeyEnv: t.spec.api_key_env ?? 'INFERENCE_API_KEY',
    out,
  };
}

/** Run every condition on every target. */
export async function runVoiceExperiment(
  ctx: KindContext<OwnFile<'voice', 'voice', typeof voiceSchema>>,
): Promise<VoiceResult> {
  const v = ctx.exp.voice;
  const t = ctx.deps.t;
  const signal = ctx.deps.signal ?? new AbortController().signal;
  const targets: VoiceTargetResult[] = [];
  for (const target of ctx.targets) {
    if (v.vary === 'asr_gpu' && !target.simOptions)
      throw new UsageError([
        {
          path: 'voice.vary',
          message: ctx.tr('exp.usage.voice_asr_gpu', { target: target.name }),
          hint: ctx.tr('exp.usage.voice_asr_gpu_hint'),
        },
      ]);
    const conditions: VoiceConditionResult[] = [];
    for (const value of v.values) {
      if (signal.aborted) break;
      const out = v.out ? join(v.out, target.name, `${v.vary}=${value}`) : null;
      let sim: Awaited<ReturnType<typeof startSimServer>> | null = null;
      // A virtual-clock target: the fresh simulator runs in this process, in virtual time.
      let inProcess: EngineEndpoint | null = null;
      let url = { llm: target.baseUrl, asr: v.asr_url ?? target.baseUrl, tts: v.tts_url ?? target.baseUrl };
      if (target.simOptions) {
        const opts = {
          ...target.simOptions,
          port: 0,
          sentenceWords: target.simOptions.sentenceWords || 12,
          asrGpu: (v.vary === 'asr_gpu' ? value : v.base.asr_gpu) as 'colocated' | 'separate',
        };
        if (target.mode === 'virtual')
          inProcess = await simEndpoint({ ...opts, timeScale: 1 }, { virtual: true });
        else sim = await startSimServer(opts);
        const base = inProcess ? inProcess.baseUrl : `${sim?.url}/v1`;
        url = { llm: base, asr: base, tts: base };
      }
      ctx.deps.log(`voice ${target.name} ${v.vary}=${value}`);
      try {
        const settings = conditionSettings(v, value, url, target, ctx.exp.seed, out);
        const deps = { env: ctx.deps.env, signal, t };
        const m = inProcess
          ? await inProcess.settle(
              measureVoice(settings, {
                ...deps,
                clock: inProcess.runClock(),
                dispatcher: inProcess.dispatcher ?? undefined,
              }),
            )
          : await measureVoice(settings, deps);
        conditions.push({ value, summary: m.summary, files: m.files });
        // The LLM legs as a run, summarised as `run` summarises its requests.
        ctx.addRun(
          {
            run_id: null,
            target: target.name,
            label: `${v.vary}=${value}`,
            level: { [v.vary]: value },
            summary: summarize(m.llmRecords),
            validity: [],
            cache: null,
            server_tokens_per_s: null,
          },
          {
            records: m.llmRecords,
            startedAtUnixMs: m.startedAtUnixMs,
            config: m.config as Record<string, unknown>,
          },
        );
      } finally {
        await sim?.close();
        await inProcess?.close();
      }
    }
    targets.push({ target: target.name, conditions });
  }
  const waterfall = v.out ? await writeVoiceWaterfall(v.out, conditionsOf(targets, v.vary), t) : null;
  return { kind: 'voice', vary: v.vary, base: v.base, targets, waterfall };
}

/** Every target's conditions as waterfall rows, labelled `value` (or `target: value`). */
function conditionsOf(targets: readonly VoiceTargetResult[], vary: VoiceSwitch) {
  return targets.flatMap((t) =>
    t.conditions.map((c) => ({
      label: targets.length > 1 ? `${t.target}: ${vary}=${c.value}` : `${vary}=${c.value}`,
      summary: c.summary,
    })),
  );
}

export const voiceKind = defineKind({
  kind: 'voice',
  section: 'voice',
  sectionSchema: voiceSchema,
  rules(f, report) {
    refuseLoadLevels(f, report, 'voice', 'voice.base.concurrency or voice.values');
    const v = f.voice;
    if (!v || typeof v !== 'object') return;
    const vary = (v as { vary?: unknown }).vary;
    const values = (v as { values?: unknown }).values;
    if (
      typeof vary !== 'string' ||
      !(VOICE_SWITCHES as readonly string[]).includes(vary) ||
      !Array.isArray(values)
    )
      return;
    if (values.length < 2)
      report(['voice', 'values'], 'a comparison needs at least two values', `e.g. values: [sentence, whole]`);
    values.forEach((x, i) => {
      const p = valueProblem(vary as VoiceSwitch, x);
      if (p)
        report(['voice', 'values', i], `${vary}: ${p}`, 'one value per condition of the switched setting');
    });
  },
  defaults: (f) => ({ ...f, voice: f.voice ?? voiceSchema.parse({}) }),
  template: (t) => `${t.head('voice', 'voice', t.tr('tpl.voice.about'))}
targets:
${t.simTarget({ name: 'sim', full: true, set: ['model: llama-3.1-8b', 'sentence_words: 12'] }).replace(/\n {6}model: qwen3-0\.6b[^\n]*/, '')}
${t.urlTargets}

voice:
  vary: tts_chunk                     # ${t.tr('tpl.voice.vary')}
  values: [sentence, whole]           # ${t.tr('tpl.voice.values')}
  base:                               # ${t.tr('tpl.voice.base')}
    tts_chunk: sentence
    endpoint_ms: 500                  # ${t.tr('tpl.voice.endpoint')}
    asr_gpu: colocated                # ${t.tr('tpl.voice.asr_gpu')}
    concurrency: 4                    # ${t.tr('tpl.voice.concurrency')}
  turns: 12                           # ${t.tr('tpl.voice.turns')}
  speech_seconds: uniform:1-2         # ${t.tr('tpl.voice.speech')}
  output_len: uniform:60-100          # ${t.tr('tpl.voice.output_len')}
  playback_buffer_ms: 150             # ${t.tr('tpl.voice.playback')}
  # asr_url: http://127.0.0.1:9000/v1 # ${t.tr('tpl.voice.asr_url')}
  # tts_url: http://127.0.0.1:9001/v1 # ${t.tr('tpl.voice.tts_url')}
  # asr_model: whisper-1
  # tts_model: tts-1
  # tts_voice: alloy
  # out: servelab-out/voice           # ${t.tr('tpl.voice.out')}

${t.common({ load: [`# ${t.tr('tpl.voice.load')}`], warmup: 0 })}
`,
  run: runVoiceExperiment,
  format: (res, tr) => {
    const lines = formatVoiceWaterfall(conditionsOf(res.targets, res.vary), tr);
    if (res.waterfall) lines.push('', tr('voice.wrote', { files: res.waterfall }));
    return lines;
  },
  conclusion: (res, tr) => voiceComparison(conditionsOf(res.targets, res.vary), tr),
});
