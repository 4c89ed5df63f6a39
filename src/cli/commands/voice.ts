/**
 * @module cli/commands/voice
 * `servelab voice`: flags → voice settings → pipeline/measure-voice → the first-audio breakdown
 * printed, files written, exit code. And `servelab demo voice`: the same against the simulator
 * started in this process, `--tts-chunk sentence` beside `whole`.
 */
import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { diagnoseVoice } from '../../analysis/diagnose/voice-slow.js';
import type { VoiceSummary } from '../../analysis/voice-metrics.js';
import { freshDefault } from '../../config/run-settings.js';
import { ExitCode, type Problem, UsageError, worstExitCode } from '../../core/errors.js';
import type { T } from '../../i18n/index.js';
import {
  measureVoice,
  type VoiceMeasurement,
  type VoiceSettings,
  writeVoiceWaterfall,
} from '../../pipeline/measure-voice.js';
import type { VoiceRecord } from '../../record/voice-turn.js';
import { renderDiagnosisText } from '../../report/diagnose/render.js';
import {
  formatVoiceSummary,
  formatVoiceWaterfall,
  type VoiceCondition,
} from '../../report/voice-waterfall.js';
import { parseChunkPolicy } from '../../runner/chunker.js';
import { startSimServer } from '../../sim/server/index.js';
import type { Io } from '../io.js';
import { langOf } from '../options.js';
import {
  checkOutputPaths,
  emitJson,
  humanStream,
  jsonOption,
  optNumber,
  parseBaseUrl,
  parseHeaders,
  throwIfProblems,
} from './common.js';
import { DEMO_SIM } from './demo.js';

export interface RawVoice {
  asrUrl?: string;
  llmUrl?: string;
  ttsUrl?: string;
  asrModel?: string;
  noAsrStream?: boolean;
  asrStream?: boolean;
  ttsModel?: string;
  ttsVoice?: string;
  ttsFormat?: string;
  model?: string;
  concurrency?: string;
  requests?: string;
  seed?: string;
  audio?: string;
  speechSeconds?: string;
  endpointMs?: string;
  ttsChunk?: string;
  playbackBufferMs?: string;
  outputLen?: string;
  maxTokens?: string;
  temperature?: string;
  topP?: string;
  stop?: string[];
  ignoreEos?: boolean;
  timeout?: string;
  timeoutFirst?: string;
  header?: string[];
  apiKeyEnv?: string;
  out?: string;
  json?: string | boolean;
  lang?: string;
}

/** Validate `voice` flags into settings (every problem at once). */
export function parseVoiceFlags(
  raw: RawVoice,
  io: Pick<Io, 'env' | 'cwd'>,
): { settings: VoiceSettings; notes: string[]; t: T } {
  const problems: Problem[] = [];
  const notes: string[] = [];
  const t = langOf(raw.lang, io.env, problems);
  const llmUrl = parseBaseUrl(raw.llmUrl, problems, '--llm-url', notes, t);
  // The audio servers default to the LLM's: one server may serve all three.
  const asrUrl = raw.asrUrl ? parseBaseUrl(raw.asrUrl, problems, '--asr-url', notes, t) : llmUrl;
  const ttsUrl = raw.ttsUrl ? parseBaseUrl(raw.ttsUrl, problems, '--tts-url', notes, t) : llmUrl;
  const users = optNumber(raw.concurrency, '--concurrency', problems, { int: true, min: 1 }, t) ?? 1;
  const turns = optNumber(raw.requests, '--requests', problems, { int: true, min: 1 }, t) ?? 10;
  // Drawn fresh unless given, as for `run` (config/run-settings `seed`); the header prints it.
  const seed = freshDefault(optNumber(raw.seed, '--seed', problems, { int: true, min: 0 }, t));
  const endpointMs = optNumber(raw.endpointMs, '--endpoint-ms', problems, { min: 0 }, t) ?? 500;
  const bufferMs = optNumber(raw.playbackBufferMs, '--playback-buffer-ms', problems, { min: 0 }, t) ?? 150;
  const maxTokens = optNumber(raw.maxTokens, '--max-tokens', problems, { int: true, min: 1 }, t);
  const temperature = optNumber(raw.temperature, '--temperature', problems, { min: 0 }, t) ?? 0;
  const topP = optNumber(raw.topP, '--top-p', problems, { min: 0 }, t);
  const timeoutS = optNumber(raw.timeout, '--timeout', problems, { min: 0 }, t);
  const timeoutFirstS = optNumber(raw.timeoutFirst, '--timeout-first', problems, { min: 0 }, t);
  const chunk = parseChunkPolicy(raw.ttsChunk ?? 'sentence', problems, t);
  const format = raw.ttsFormat ?? 'pcm';
  if (format !== 'pcm' && format !== 'wav')
    problems.push({
      path: '--tts-format',
      message: t('voice.format.bad', { value: format }),
      hint: t('voice.format.hint'),
    });
  if (raw.audio !== undefined && raw.speechSeconds !== undefined)
    problems.push({ path: '--audio', message: t('voice.audio.both'), hint: t('voice.audio.both_hint') });
  const headers = parseHeaders(raw.header, problems, t);
  throwIfProblems(problems);
  return {
    settings: {
      asrUrl,
      llmUrl,
      ttsUrl,
      asrModel: raw.asrModel ?? 'whisper-1',
      asrStream: raw.asrStream !== false,
      ttsModel: raw.ttsModel ?? 'tts-1',
      ttsVoice: raw.ttsVoice ?? 'alloy',
      ttsFormat: format as 'pcm' | 'wav',
      model: raw.model ?? null,
      users,
      turns,
      seed,
      audioDir: raw.audio !== undefined ? resolve(io.cwd, raw.audio) : null,
      speechSeconds: raw.speechSeconds ?? 'uniform:1-3',
      endpointMs,
      chunk,
      bufferMs,
      outputLen: raw.outputLen ?? null,
      maxTokens,
      temperature,
      topP,
      stop: raw.stop ?? null,
      ignoreEos: raw.ignoreEos === true,
      timeoutS,
      timeoutFirstS,
      headers,
      apiKeyEnv: raw.apiKeyEnv ?? 'INFERENCE_API_KEY',
      out: raw.out !== undefined ? resolve(io.cwd, raw.out) : null,
    },
    notes,
    t,
  };
}

/** Exit code of a voice measurement: 130 interrupted, 3 when no turn reached playback. */
function voiceExitCode(m: VoiceMeasurement, interrupted: boolean): number {
  const codes: number[] = [];
  if (interrupted) codes.push(ExitCode.interrupted);
  if (m.summary.turns > 0 && m.summary.measured === 0) codes.push(ExitCode.nothingSucceeded);
  return worstExitCode(codes);
}

export async function voiceCommand(raw: RawVoice, io: Io): Promise<number> {
  const { settings, notes, t } = parseVoiceFlags(raw, io);
  for (const line of notes) io.stderr.write(`${line}\n`);
  const json = jsonOption(raw.json);
  checkOutputPaths(io.cwd, [
    [settings.out, '--out', 'dir'],
    [json, '--json'],
  ]);
  const out = humanStream(json, io);
  const ctrl = new AbortController();
  const off = io.onInterrupt(() => ctrl.abort(new Error('interrupted')));
  try {
    const m = await measureVoice(settings, { env: io.env, signal: ctrl.signal, t });
    const result = { config: m.config, summary: m.summary };
    if (json !== true) await emitJson(json, result, io);
    const head = { model: m.model, chunk: m.config.tts_chunk as string, seed: settings.seed };
    out.write(`\n${t('voice.header', head)}\n`);
    out.write(formatVoiceSummary(m.summary, t));
    const diag = diagnoseVoice([{ id: 'voice', summary: m.summary, records: m.records }], t);
    out.write(`\n${renderDiagnosisText(diag, [], t)}`);
    if (m.files.length) out.write(`${t('voice.wrote', { files: m.files.join(', ') })}\n`);
    if (json === true) await emitJson(json, result, io);
    return voiceExitCode(m, ctrl.signal.aborted);
  } finally {
    off();
  }
}

export interface RawDemoVoice {
  out?: string;
  json?: string | boolean;
  lang?: string;
}

/**
 * `servelab demo voice`: the simulator (LLM, ASR and TTS on one port, sentences in its text)
 * in this process, and two short voice runs against it, `--tts-chunk sentence` then `whole`.
 */
export async function demoVoiceCommand(raw: RawDemoVoice, io: Io): Promise<number> {
  const problems: Problem[] = [];
  const t = langOf(raw.lang, io.env, problems);
  throwIfProblems(problems);
  const json = jsonOption(raw.json);
  const outDir = resolve(io.cwd, raw.out ?? 'servelab-out/demo-voice');
  checkOutputPaths(io.cwd, [
    [outDir, '--out', 'dir'],
    [json, '--json'],
  ]);
  const out = humanStream(json, io);
  const sim = await startSimServer({ ...DEMO_SIM, port: 0, sentenceWords: 12 });
  const url = `${sim.url}/v1`;
  out.write(`${t('voice.demo.simulator', { model: DEMO_SIM.model, gpu: DEMO_SIM.gpu, url })}\n`);
  const ctrl = new AbortController();
  const off = io.onInterrupt(() => ctrl.abort(new Error('interrupted')));
  const results: Record<string, unknown> = {};
  const codes: number[] = [];
  const means: Record<string, number | null> = {};
  const conditions: VoiceCondition[] = [];
  try {
    for (const policy of ['sentence', 'whole']) {
      if (ctrl.signal.aborted) break;
      const { settings } = parseVoiceFlags(
        {
          llmUrl: url,
          concurrency: '4',
          requests: '12',
          speechSeconds: 'uniform:1-2',
          ttsChunk: policy,
          outputLen: 'uniform:60-100',
          ignoreEos: true,
          timeout: '60',
          out: resolve(outDir, policy),
          lang: t.lang,
        },
        io,
      );
      out.write(`\n== ${t('voice.demo.condition', { chunk: policy })}\n`);
      const m = await measureVoice(settings, { env: io.env, signal: ctrl.signal, t });
      out.write(formatVoiceSummary(m.summary, t));
      means[policy] = m.summary.time_to_first_audio_ms.mean;
      conditions.push({ label: `--tts-chunk ${policy}`, summary: m.summary });
      results[policy] = { config: m.config, summary: m.summary, files: m.files };
      codes.push(voiceExitCode(m, ctrl.signal.aborted));
    }
  } finally {
    off();
    await sim.close();
  }
  const s = means.sentence;
  const w = means.whole;
  if (conditions.length > 1) {
    out.write(`\n${formatVoiceWaterfall(conditions, t).join('\n')}\n`);
    const svg = await writeVoiceWaterfall(outDir, conditions, t);
    if (svg) out.write(`${t('voice.wrote', { files: svg })}\n`);
  }
  if (s != null && w != null)
    out.write(
      `\n${t('voice.demo.compare', { sentence: s.toFixed(0), whole: w.toFixed(0), saved: (w - s).toFixed(0) })}\n`,
    );
  if (json !== null) await emitJson(json, results, io);
  if (ctrl.signal.aborted) return ExitCode.interrupted;
  return worstExitCode(codes);
}

/**
 * `servelab diagnose DIR/voice.json…`: the voice rule over saved voice measurements (their
 * turns from the voice.jsonl beside each, when it is there).
 */
export async function diagnoseVoiceFiles(
  refs: readonly string[],
  raw: { json?: string | boolean },
  io: Io,
  t: T,
): Promise<number> {
  const runs = [];
  for (const ref of refs) {
    const path = resolve(io.cwd, ref);
    let saved: { summary?: VoiceSummary };
    try {
      saved = JSON.parse(await readFile(path, 'utf8')) as { summary?: VoiceSummary };
    } catch (err) {
      throw new UsageError([
        {
          path: ref,
          message: t('voice.diag.unreadable', { error: (err as Error).message }),
          hint: t('voice.diag.unreadable_hint'),
        },
      ]);
    }
    if (!saved.summary?.time_to_first_audio_ms)
      throw new UsageError([
        { path: ref, message: t('voice.diag.not_voice'), hint: t('voice.diag.unreadable_hint') },
      ]);
    const lines = await readFile(join(dirname(path), 'voice.jsonl'), 'utf8').catch(() => '');
    const records = lines
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as VoiceRecord);
    runs.push({ id: ref, summary: saved.summary, records });
  }
  const diagnosis = diagnoseVoice(runs, t);
  const json = jsonOption(raw.json);
  if (json !== true) await emitJson(json, diagnosis, io);
  humanStream(json, io).write(renderDiagnosisText(diagnosis, [], t));
  if (json === true) await emitJson(json, diagnosis, io);
  return 0;
}
