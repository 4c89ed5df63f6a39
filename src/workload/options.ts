/**
 * @module workload/options
 * The prompt-source options as the flags give them, and their check without reading a file or
 * counting a token: exactly one source, the request count and seed, the length distributions,
 * shared prefixes and their groups, the trace flags and the sessions' flags, every problem at
 * once with a hint. `workloadProblems` is what `run` and `plan` check flags with before
 * anything starts; `buildWorkload` (`workload/build`) starts from the same check.
 */
import type { Problem } from '../core/errors.js';
import { type T, translator } from '../i18n/index.js';
import { distMean, type LengthDist, parseLengthDist } from './lengths.js';
import { type CheckedSessions, checkSessions, type SessionOptions } from './sessions.js';
import { isTraceFormat, TRACE_FORMATS, type TraceWindow } from './traces/index.js';
import { VOCAB } from './vocab.js';

/** Dataset kinds `--dataset KIND FILE` accepts. */
export const DATASET_KINDS = ['sharegpt'] as const;

/** Prompt-source options, as the CLI flags give them. Exactly one source must be set. */
export interface WorkloadOptions {
  /** Seed for every random choice (lengths, words, prefix groups, ShareGPT order). */
  seed: number;
  /** Requests to produce; file sources are cycled when shorter. Required except for `trace` (default: every line). */
  count?: number;
  /** Model name; picks the shipped tokenizer for its family (Qwen3). */
  model?: string;
  /** `--prompt TEXT`: every request sends this text. */
  prompt?: string;
  /** `--prompts FILE.jsonl`. */
  promptsFile?: string;
  /** `--dataset KIND FILE`. */
  dataset?: { kind: string; path: string };
  /** `--trace FILE`. */
  trace?: string;
  /** `--trace-format`: azure, burstgpt, mooncake or servelab; undefined: detected from the file. */
  traceFormat?: string;
  /** `--trace-window START:END` (seconds from the trace's first timestamp). */
  traceWindow?: TraceWindow;
  /** `--trace-block-size N`: tokens per Mooncake hash block (default 512). */
  traceBlockSize?: number;
  /** `--input-len`: the synthetic source (tokens, `512` | `uniform:A-B` | `normal:MEAN,STD`). */
  inputLen?: string | number | LengthDist;
  /** `--output-len`: max_tokens per request; overrides lengths from files (tokens). */
  outputLen?: string | number | LengthDist;
  /** `--shared-prefix-len N`: tokens of the shared prefix at the start of each synthetic prompt. */
  sharedPrefixLen?: number;
  /** Take a dataset's prompts in the file's order, not shuffled with the seed (vLLM's `--disable-shuffle`). */
  disableShuffle?: boolean;
  /** `--num-prefix-groups G` (default 1 with a shared prefix). */
  numPrefixGroups?: number;
  /**
   * `--prompts-per-group M`: each group has M fixed questions, and request n sends prompt
   * n mod G·M of the shuffled G·M (inference-perf's `shared_prefix`, `workload/shared-prefix`).
   */
  promptsPerGroup?: number;
  /** The tokenizer's name when it is not the model's (vLLM's `--tokenizer`); default `model`. */
  tokenizer?: string;
  /**
   * Multi-turn sessions (`--users`, `--turns`, `--think-time`, documents): questions are the
   * synthetic `--input-len` prompts, and `count` is not used (the sessions' turns are the requests).
   */
  sessions?: SessionOptions;
}

export type WorkloadSource = 'prompt' | 'prompts' | 'sharegpt' | 'trace' | 'synthetic';

const EN = translator('en');
const SOURCES_HINT =
  'give one of --prompt TEXT, --prompts FILE.jsonl, --dataset sharegpt FILE, --trace FILE.jsonl or --input-len N';

/** The options after their check: the one source, the parsed lengths, the prefix plan. */
export interface Checked {
  sessions?: CheckedSessions;
  source?: WorkloadSource;
  inputLen?: LengthDist;
  outputLen?: LengthDist;
  prefixLen: number;
  groups: number;
  /** `--prompts-per-group` (0: every request its own question). */
  promptsPerGroup: number;
}

function isPosInt(n: unknown): n is number {
  return typeof n === 'number' && Number.isInteger(n) && n >= 1;
}

function asDist(v: string | number | LengthDist, path: string, problems: Problem[]): LengthDist | undefined {
  if (typeof v === 'object') return v;
  const r = parseLengthDist(v, path);
  if (r.ok) return r.dist;
  problems.push(r.problem);
  return undefined;
}

/** Check the options alone (no files read). */
export function checkOptions(opts: WorkloadOptions, problems: Problem[], t: T = EN): Checked {
  const given: [WorkloadSource, string][] = [];
  if (opts.prompt !== undefined) given.push(['prompt', '--prompt']);
  if (opts.promptsFile !== undefined) given.push(['prompts', '--prompts']);
  if (opts.dataset !== undefined) given.push(['sharegpt', '--dataset']);
  if (opts.trace !== undefined) given.push(['trace', '--trace']);
  if (opts.inputLen !== undefined) given.push(['synthetic', '--input-len']);
  if (given.length === 0) problems.push({ message: 'no prompt source', hint: SOURCES_HINT });
  if (given.length > 1)
    problems.push({
      message: `choose one prompt source (got ${given.map((g) => g[1]).join(', ')})`,
      hint: SOURCES_HINT,
    });
  const source = given.length === 1 ? given[0][0] : undefined;

  if (!Number.isInteger(opts.seed))
    problems.push({
      path: '--seed',
      message: `seed must be an integer (got ${opts.seed})`,
      hint: 'e.g. --seed 42',
    });
  if (opts.count !== undefined && !isPosInt(opts.count))
    problems.push({
      path: '--requests',
      message: `must be an integer ≥ 1 (got ${opts.count})`,
      hint: 'e.g. --requests 100',
    });
  let sessions: CheckedSessions | undefined;
  if (opts.sessions) {
    sessions = checkSessions(opts.sessions, problems);
    if (source !== undefined && source !== 'synthetic')
      problems.push({
        path: '--users',
        message: EN('sessions.source.synthetic'),
        hint: EN('sessions.source.synthetic_hint'),
      });
    if (opts.sharedPrefixLen !== undefined)
      problems.push({
        path: '--shared-prefix-len',
        message: EN('sessions.source.prefix'),
        hint: EN('sessions.source.prefix_hint'),
      });
  }
  if (opts.count === undefined && source !== undefined && source !== 'trace' && !opts.sessions)
    problems.push({
      path: '--requests',
      message: 'the number of requests is missing',
      hint: 'e.g. --requests 100',
    });
  if (opts.prompt === '')
    problems.push({
      path: '--prompt',
      message: 'the prompt is empty',
      hint: 'give the text to send, e.g. --prompt "Hello"',
    });
  if (opts.dataset && !(DATASET_KINDS as readonly string[]).includes(opts.dataset.kind))
    problems.push({
      path: '--dataset',
      message: `unknown dataset kind '${opts.dataset.kind}'`,
      hint: `known kinds: ${DATASET_KINDS.join(', ')}, e.g. --dataset sharegpt ShareGPT_V3_unfiltered_cleaned_split.json`,
    });

  traceOptionProblems(opts, source, problems, t);

  const inputLen = opts.inputLen !== undefined ? asDist(opts.inputLen, '--input-len', problems) : undefined;
  const outputLen =
    opts.outputLen !== undefined ? asDist(opts.outputLen, '--output-len', problems) : undefined;

  let prefixLen = 0;
  let groups = 1;
  if (opts.sharedPrefixLen !== undefined) {
    if (!isPosInt(opts.sharedPrefixLen))
      problems.push({
        path: '--shared-prefix-len',
        message: `must be an integer ≥ 1 (got ${opts.sharedPrefixLen})`,
        hint: 'the shared prefix length in tokens, e.g. --shared-prefix-len 512',
      });
    else prefixLen = opts.sharedPrefixLen;
    if (opts.inputLen === undefined)
      problems.push({
        path: '--shared-prefix-len',
        message: 'shared prefixes apply only to synthetic prompts',
        hint: 'add --input-len (the whole prompt, prefix included), e.g. --input-len 1024 --shared-prefix-len 512',
      });
  }
  if (opts.numPrefixGroups !== undefined) {
    if (!isPosInt(opts.numPrefixGroups))
      problems.push({
        path: '--num-prefix-groups',
        message: `must be an integer ≥ 1 (got ${opts.numPrefixGroups})`,
        hint: 'e.g. --num-prefix-groups 8',
      });
    else groups = opts.numPrefixGroups;
    if (opts.sharedPrefixLen === undefined)
      problems.push({
        path: '--num-prefix-groups',
        message: 'prefix groups need a prefix length',
        hint: 'add --shared-prefix-len N',
      });
  }
  if (prefixLen > 0 && inputLen) {
    // Normal lengths can dip to the prefix length; their samples are raised to prefix + 1 instead.
    const exact = inputLen.spec.kind === 'fixed' || inputLen.spec.kind === 'uniform';
    const floor = exact ? inputLen.min : distMean(inputLen.spec);
    if (floor <= prefixLen)
      problems.push({
        path: '--shared-prefix-len',
        message: `the prefix (${prefixLen} tokens) must be shorter than every input length (--input-len ${inputLen}, which includes the prefix)`,
        hint: `use --input-len above ${prefixLen}, e.g. --input-len ${prefixLen * 2}`,
      });
  }
  if (prefixLen === 1 && groups > VOCAB.length)
    problems.push({
      path: '--num-prefix-groups',
      message: `${groups} groups cannot have distinct one-token prefixes`,
      hint: `use --shared-prefix-len ≥ 2 or at most ${VOCAB.length} groups`,
    });
  if (groups > VOCAB.length * VOCAB.length)
    problems.push({
      path: '--num-prefix-groups',
      message: `too many groups (${groups})`,
      hint: `use at most ${VOCAB.length ** 2}`,
    });
  let promptsPerGroup = 0;
  if (opts.promptsPerGroup !== undefined) {
    if (!isPosInt(opts.promptsPerGroup))
      problems.push({
        path: '--prompts-per-group',
        message: `must be an integer ≥ 1 (got ${opts.promptsPerGroup})`,
        hint: 'e.g. --shared-prefix-len 1000 --num-prefix-groups 10 --prompts-per-group 10',
      });
    else promptsPerGroup = opts.promptsPerGroup;
    if (opts.sharedPrefixLen === undefined)
      problems.push({
        path: '--prompts-per-group',
        message: t('cli.prefix_groups.needs'),
        hint: t('cli.prefix_groups.hint'),
      });
  }
  return { sessions, source, inputLen, outputLen, prefixLen, groups, promptsPerGroup };
}

/**
 * Check the options without reading files or counting tokens.
 * @returns every problem found (empty when the options are usable).
 */
export function workloadProblems(opts: WorkloadOptions, t: T = EN): Problem[] {
  const problems: Problem[] = [];
  checkOptions(opts, problems, t);
  return problems;
}

/** The trace flags: a known format, a window with END > START ≥ 0, a block size only for Mooncake. */
function traceOptionProblems(
  opts: WorkloadOptions,
  source: WorkloadSource | undefined,
  problems: Problem[],
  t: T,
): void {
  const flags: [string, unknown][] = [
    ['--trace-format', opts.traceFormat],
    ['--trace-window', opts.traceWindow],
    ['--trace-block-size', opts.traceBlockSize],
  ];
  if (source !== 'trace') {
    for (const [flag, v] of flags)
      if (v !== undefined)
        problems.push({
          path: flag,
          message: t('trace.flag.needs_trace', { flag }),
          hint: t('trace.flag.needs_trace_hint'),
        });
    return;
  }
  if (opts.traceFormat !== undefined && !isTraceFormat(opts.traceFormat))
    problems.push({
      path: '--trace-format',
      message: t('trace.format.unknown', { got: opts.traceFormat }),
      hint: t('trace.format.unknown_hint', { formats: TRACE_FORMATS.join(', ') }),
    });
  const w = opts.traceWindow;
  if (w && !(w.startS >= 0 && Number.isFinite(w.startS) && (w.endS === null || w.endS > w.startS)))
    problems.push({
      path: '--trace-window',
      message: t('trace.window.bad', { got: `${w.startS}:${w.endS ?? ''}` }),
      hint: t('trace.window.hint'),
    });
  if (opts.traceBlockSize !== undefined) {
    if (!isPosInt(opts.traceBlockSize))
      problems.push({
        path: '--trace-block-size',
        message: t('trace.block_size.bad', { got: opts.traceBlockSize }),
        hint: t('trace.block_size.hint'),
      });
    else if (opts.traceFormat !== undefined && opts.traceFormat !== 'mooncake')
      problems.push({
        path: '--trace-block-size',
        message: t('trace.block_size.only_mooncake', { format: opts.traceFormat }),
        hint: t('trace.block_size.hint'),
      });
  }
}

/**
 * True when a workload's prompts are servelab's synthetic words, not text of the user's: the
 * synthetic source (`--input-len`, shared prefixes and sessions included), or a trace of lengths
 * only (Azure, BurstGPT, Mooncake; a trace with any text is text). Random words stand for
 * content that is not known, so nothing content-dependent (ngram speculation's lookup) can be
 * measured on them.
 */
export function syntheticPrompts(
  source: WorkloadSource,
  specs: readonly { input_len: number | null }[] | { length: number },
): boolean {
  if (source === 'synthetic') return true;
  if (source !== 'trace' || !Array.isArray(specs) || specs.length === 0) return false;
  return (specs as readonly { input_len: number | null }[]).every((s) => s.input_len !== null);
}
