/**
 * @module runner/voice-turns
 * The voice load loop: `users` simulated users, each speaking its turns one after another (a
 * closed loop per user), every turn running the first-audio chain
 *
 *   speech → endpointing (`endpointMs` of silence) → ASR (`client/audio` transcribe) → LLM (the
 *   `run` client, `client/http`, recorded exactly as `run` records it) → text chunking
 *   (`runner/chunker`) → TTS per chunk (`client/audio` synthesize, sent as each chunk completes)
 *   → playback once the first chunk's jitter buffer holds `bufferMs` of audio.
 *
 * A user speaks in real time: the turn starts, the utterance's duration passes (the user is
 * talking), then speech ends. The next turn starts when every TTS stream of this one has ended.
 * Every planned turn ends as exactly one {@link VoiceRecord}, also when a stage fails (the
 * chain stops there; what was already sent to TTS is awaited) or the run is interrupted.
 */
import { type AudioTarget, synthesize, transcribe } from '../client/audio.js';
import type { SendArgs, Target } from '../client/types.js';
import type { Outcome, RequestRecord } from '../record/types.js';
import { SUCCESS_OUTCOMES } from '../record/types.js';
import type { TtsRecord, VoiceRecord, VoiceStage } from '../record/voice-turn.js';
import type { Clock } from '../runtime/clock.js';
import type { Utterance } from '../workload/audio.js';
import type { RequestSpec } from '../workload/types.js';
import { type ChunkPolicy, chunkPolicyText, TextChunker } from './chunker.js';

export interface VoiceRunConfig {
  users: number;
  /** Planned turns in all; user u takes turns u, u + users, u + 2·users, … */
  turns: number;
  /** Cycled through by turn index. */
  utterances: readonly Utterance[];
  /** Silence window after speech before the turn is taken as over (ms); 0 = the ASR server's own endpointing. */
  endpointMs: number;
  chunk: ChunkPolicy;
  /** Jitter buffer: audio ms that must have arrived before playback starts. */
  bufferMs: number;
  /** Whether the user's speaking time passes in real time before speech ends (default true). */
  speakRealTime?: boolean;
  asr: AudioTarget & { stream: boolean; language?: string };
  tts: AudioTarget & { voice: string; format: 'pcm' | 'wav' };
  /** The LLM client (`createHttpTarget`), shared with `run`. */
  llm: Target;
  /** The output length (max_tokens) of turn `index`, or null for none. */
  outputLen: (index: number) => number | null;
}

export interface VoiceRunDeps {
  clock: Clock;
  signal: AbortSignal;
  /** Each turn's record as it ends. */
  onRecord?: (rec: VoiceRecord) => void;
  /** Each LLM leg's record as it ends (what `run` writes to requests.jsonl). */
  onLlmRecord?: (rec: RequestRecord) => void;
}

const ok = (o: Outcome) => SUCCESS_OUTCOMES.includes(o);

function emptyTurn(cfg: VoiceRunConfig, user: number, turn: number, index: number): VoiceRecord {
  const u = cfg.utterances[index % cfg.utterances.length] as Utterance;
  return {
    id: `u${user}t${turn}`,
    user,
    turn,
    phase: 'measure',
    audio: u.name,
    speech_seconds: u.seconds,
    tts_chunk: chunkPolicyText(cfg.chunk),
    endpoint_ms: cfg.endpointMs,
    playback_buffer_ms: cfg.bufferMs,
    speech_start_at_ms: null,
    speech_end_at_ms: null,
    endpoint_at_ms: null,
    asr: null,
    llm: null,
    first_chunk_at_ms: null,
    tts: [],
    playback_start_at_ms: null,
    end_at_ms: null,
    outcome: 'cancelled',
    failed_stage: null,
    error: 'cancelled before the turn started',
  };
}

/** Mark the turn failed at `stage` with that stage's outcome and error. */
function fail(rec: VoiceRecord, stage: VoiceStage, outcome: Outcome, error: string | null): void {
  if (rec.failed_stage !== null) return;
  rec.failed_stage = stage;
  rec.outcome = outcome;
  rec.error = error;
}

/** One turn of one user. */
async function runTurn(
  cfg: VoiceRunConfig,
  deps: VoiceRunDeps,
  rec: VoiceRecord,
  index: number,
): Promise<void> {
  const { clock, signal } = deps;
  const u = cfg.utterances[index % cfg.utterances.length] as Utterance;
  rec.error = null;
  rec.outcome = 'ok';
  rec.speech_start_at_ms = clock.now();
  if (cfg.speakRealTime !== false)
    await clock.sleepUntil(clock.now() + u.seconds * 1000, signal).catch(() => {});
  if (signal.aborted) return fail(rec, 'asr', 'cancelled', 'cancelled while the user spoke');
  rec.speech_end_at_ms = clock.now();
  if (cfg.endpointMs > 0) await clock.sleepUntil(clock.now() + cfg.endpointMs, signal).catch(() => {});
  if (signal.aborted) return fail(rec, 'asr', 'cancelled', 'cancelled during endpointing');
  rec.endpoint_at_ms = clock.now();

  const asr = await transcribe(cfg.asr, u.wav, {
    stream: cfg.asr.stream,
    signal,
    language: cfg.asr.language,
  });
  rec.asr = asr;
  if (!ok(asr.outcome)) {
    rec.end_at_ms = asr.end_at_ms;
    return fail(rec, 'asr', asr.outcome, asr.error);
  }

  const chunker = new TextChunker(cfg.chunk);
  const pending: Promise<TtsRecord>[] = [];
  const speak = (text: string, atMs: number) => {
    rec.first_chunk_at_ms ??= atMs;
    pending.push(
      synthesize(cfg.tts, text, {
        voice: cfg.tts.voice,
        format: cfg.tts.format,
        bufferMs: cfg.bufferMs,
        chunk: pending.length,
        textReadyAtMs: atMs,
        signal,
      }),
    );
  };
  const spec: RequestSpec = {
    index,
    messages: [{ role: 'user', content: asr.text ?? '' }],
    input_len: null,
    output_len: cfg.outputLen(index),
  };
  const args: SendArgs = {
    id: rec.id,
    planned_id: rec.id,
    attempt: 1,
    phase: 'measure',
    spec,
    planned_at_ms: clock.now(),
    signal,
    // The reply's text as it streams, into the chunker (the sessions loop's answer sink).
    answer: {
      parts: [],
      onText: (delta, at) => {
        for (const c of chunker.push(delta)) speak(c, at);
      },
    },
  };
  const llm = await cfg.llm.send(args);
  rec.llm = llm;
  deps.onLlmRecord?.(llm);
  // The rest of a reply is spoken only when the reply ended well; chunks already complete
  // went to TTS as they came, as a voice client does.
  if (ok(llm.outcome)) for (const c of chunker.flush()) speak(c, llm.end_at_ms ?? clock.now());
  if (!ok(llm.outcome)) fail(rec, 'llm', llm.outcome, llm.error);
  else if (pending.length === 0) fail(rec, 'llm', 'no_content', 'the reply had no text to speak');

  rec.tts = await Promise.all(pending);
  const bad = rec.tts.find((r) => r.outcome !== 'ok');
  if (bad) fail(rec, 'tts', bad.outcome, `chunk ${bad.chunk}: ${bad.error ?? bad.outcome}`);
  const first = rec.tts[0];
  if (first && first.outcome === 'ok') rec.playback_start_at_ms = first.buffered_at_ms;
  rec.end_at_ms = Math.max(llm.end_at_ms ?? 0, ...rec.tts.map((r) => r.end_at_ms ?? 0)) || clock.now();
}

/**
 * Run every planned turn and resolve with their records, in turn order (user-major within each
 * round). Never rejects for a failed stage: a failure is a record.
 */
export async function runVoice(cfg: VoiceRunConfig, deps: VoiceRunDeps): Promise<VoiceRecord[]> {
  const records: VoiceRecord[] = [];
  const users = Math.max(1, Math.min(cfg.users, cfg.turns));
  await Promise.all(
    Array.from({ length: users }, async (_, user) => {
      for (let turn = 0, index = user; index < cfg.turns; turn++, index += users) {
        const rec = emptyTurn(cfg, user, turn, index);
        records[index] = rec;
        if (!deps.signal.aborted) {
          try {
            await runTurn(cfg, deps, rec, index);
          } catch (err) {
            // a bug, not a stage failure: still one record for the turn
            fail(rec, 'llm', 'stream_error', `internal error: ${(err as Error).message}`);
          }
        }
        deps.onRecord?.(rec);
      }
    }),
  );
  return records;
}
