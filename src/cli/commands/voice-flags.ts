/**
 * @module cli/commands/voice-flags
 * The flags of `servelab voice`, declared here so that `cli/main` stays a list of commands (and
 * names no experiment kind: the `voice` command shares its name with the `voice` kind).
 */
import type { Command } from '@commander-js/extra-typings';
import type { T } from '../../i18n/index.js';
import { collect } from '../raw-flags.js';

/** The command's name, and the `servelab demo` argument of the voice demo. */
export const VOICE = 'voice';

/** Declare `servelab voice` and its own flags on `program` (generation and --lang are added by the caller). */
export function declareVoiceCommand(program: Command, t: T) {
  return program
    .command(VOICE)
    .description(t('cli.cmd.voice'))
    .option('--llm-url <base>', 'the LLM: OpenAI base URL, e.g. http://127.0.0.1:8000/v1')
    .option(
      '--asr-url <base>',
      'the speech recognition server (POST /audio/transcriptions; default: --llm-url)',
    )
    .option('--tts-url <base>', 'the text-to-speech server (POST /audio/speech; default: --llm-url)')
    .option('--asr-model <name>', 'the transcription model to ask for', 'whisper-1')
    .option('--no-asr-stream', 'ask for the transcript in one response instead of a stream')
    .option('--tts-model <name>', 'the speech model to ask for', 'tts-1')
    .option('--tts-voice <name>', 'the voice to ask for', 'alloy')
    .option('--tts-format <fmt>', 'pcm (24 kHz 16-bit mono) or wav', 'pcm')
    .option('--audio <dir>', 'what users say: a directory of .wav files, cycled through')
    .option(
      '--speech-seconds <dist>',
      'or generated audio of these durations, seconds: N, uniform:A-B, normal:MEAN,STD, exp:MEAN, lognormal:MEDIAN,SIGMA (default uniform:1-3)',
    )
    .option(
      '--endpoint-ms <ms>',
      'silence after speech before the turn counts as over (0: the ASR server endpoints)',
      '500',
    )
    .option(
      '--tts-chunk <policy>',
      'when text goes to TTS: sentence (。！？.!?), chars:N or whole',
      'sentence',
    )
    .option('--playback-buffer-ms <ms>', 'jitter buffer: audio ms received before playback starts', '150')
    .option('--concurrency <n>', 'simulated users, each speaking its turns one after another (default 1)')
    .option('--requests <m>', 'planned turns in all (default 10)')
    .option('--seed <n>', 'seed for generated audio and output lengths (default: drawn fresh, printed)')
    .option('--output-len <dist>', 'LLM max_tokens per turn: N, uniform:A-B or normal:MEAN,STD')
    .option('--timeout <s>', 'limit of each exchange (ASR, LLM, each TTS chunk), seconds (default: none)')
    .option('--timeout-first <s>', 'limit to the first text (ASR, LLM) or first audio byte (TTS), seconds')
    .option('--header <k:v>', 'extra request header (repeatable)', collect)
    .option('--api-key-env <name>', 'environment variable holding the API key', 'INFERENCE_API_KEY')
    .option(
      '--out <dir>',
      'write voice.jsonl, requests.jsonl (the LLM legs), voice.json and waterfall.svg here',
    )
    .option('--json [file]', 'write the summary as JSON to file, or stdout');
}
