/**
 * @module workload/build
 * `buildWorkload`: turns the prompt-source options (`--prompt`, `--prompts`, `--dataset sharegpt`,
 * `--trace`, synthetic `--input-len`/`--output-len` with optional shared prefixes) into
 * {@link RequestSpec}s, reproducibly from a seed, after checking the options (`workload/options`)
 * and every file line and reporting all problems at once.
 *
 * Token counting (synthetic prompts, ShareGPT lengths, trace `input_len` lines) uses, in order:
 * the model family's shipped tokenizer, the server's `/tokenize` (through the injected
 * `tokenizeRemote`), or the approximation; the result says which. If `/tokenize` stops answering
 * part-way, the whole workload is rebuilt with the approximation so one run never mixes methods.
 *
 * Random streams are separate per purpose (lengths, group order, each prefix, each request's
 * words), so changing the count or one length leaves the other requests' text unchanged.
 */
import { type Problem, UsageError } from '../core/errors.js';
import { type T, translator } from '../i18n/index.js';
import type { Rng } from '../runtime/rng.js';
import { tokenizerFor as shippedTokenizerFor, type Tokenizer } from '../tokenizer/index.js';
import {
  approximateCounter,
  fitText,
  RemoteTokenizeFailed,
  remoteCounter,
  type TokenCounter,
  tokenizerCounter,
  tryTokenize,
  WordStream,
} from './exact.js';
import { type PromptEntry, parsePromptsJsonl, parseShareGpt, type ReadText, readTextFile } from './files.js';
import type { LengthDist } from './lengths.js';
import { type Checked, checkOptions, type WorkloadOptions, type WorkloadSource } from './options.js';
import { buildSessions, type SessionWorkload } from './sessions.js';
import { cyclingSpecs } from './shared-prefix.js';
import { COUNT_CONCURRENCY, mapLimit, streamRng } from './streams.js';
import {
  blockTexts,
  MOONCAKE_BLOCK_SIZE,
  parseTrace,
  skipNotes,
  type TraceEntry,
  type TraceFormat,
  type TraceSkip,
  type TraceWindow,
  windowTrace,
} from './traces/index.js';
import type { RequestSpec, TokenizationMethod } from './types.js';
import { VOCAB } from './vocab.js';

/** I/O the workload needs, injected. */
export interface WorkloadDeps {
  /** Reads a file; default `node:fs/promises`. */
  readText?: ReadText;
  /** The shipped tokenizer for a model; default `tokenizerFor` from `src/tokenizer`. */
  tokenizerFor?: (model: string) => Promise<Tokenizer>;
  /**
   * Token count of a text from the server (vLLM `POST /tokenize {model, prompt}` → `count`),
   * without special tokens; null when the server has no such endpoint.
   */
  tokenizeRemote?: (text: string) => Promise<number | null>;
  /** Language of the problems (default English); notes stay English, as they are stored. */
  t?: T;
}

/** What a trace replay read: its format, the rows it skipped and where its replay starts. */
export interface TraceInfo {
  format: TraceFormat;
  /** True when the format was detected from the file rather than given. */
  detected: boolean;
  /** Requests in the file, and those kept (after the window and `--requests`). */
  requests_in_file: number;
  requests_kept: number;
  skipped: TraceSkip[];
  window: TraceWindow | null;
  /** The time replay offsets count from, on the trace's clock (ms): the window's start, else the first request. */
  origin_ms: number;
  /** Mooncake: tokens per hash block, and the distinct blocks generated; null for other formats. */
  block_size: number | null;
  blocks: number | null;
}

/** The built workload. */
export interface Workload {
  specs: RequestSpec[];
  source: WorkloadSource;
  /** How prompt lengths were counted; 'none' when nothing needed counting. */
  method: TokenizationMethod;
  /** Synthetic prompts whose count still missed the target (no one-token filler fitted); normally 0. */
  inexact: number;
  /** ShareGPT entries left out: malformed, or too short as vLLM filters them. */
  skipped: number;
  /** Things the report should say (fallbacks, cycling, skipped trace rows). */
  notes: string[];
  /** Trace replay only. */
  trace?: TraceInfo;
  /** The sessions, in the sessions load mode (`specs` are then their turns, questions only). */
  sessions?: SessionWorkload;
  /** Whether the tokenizer named by `--tokenizer`/`--model` is the server's own; absent when none was. */
  tokenizer_check?: TokenizerCheck;
}

/**
 * An offline tokenizer put beside the server's `/tokenize` on {@link TOKENIZER_PROBE}: `agrees`
 * (its counts are exact), `differs` (the server serves another vocabulary: its `/tokenize` counted
 * the prompts instead), or `unchecked` (no `/tokenize` answered, so nothing says the server serves
 * this tokenizer: lengths are approximate).
 */
export interface TokenizerCheck {
  /** The tokenizer named (`--tokenizer`, else `--model`). */
  name: string;
  verdict: 'agrees' | 'differs' | 'unchecked';
  /** The probe's tokens by the named tokenizer and by the server (null: no answer). */
  local: number;
  server: number | null;
}

/**
 * A probe text on which tokenizers of different vocabularies disagree: mixed case, digits,
 * punctuation, accented and CJK text (Qwen2's BPE vocabulary, Qwen3's, counts it 46 tokens; Llama-3's 37).
 */
export const TOKENIZER_PROBE =
  'Tokenizer probe: Zürich, 2024-11-05; naïve café “quotes” — 東京の天気は晴れ. x=3.14159!';

const EN = translator('en');
/** vLLM's `is_valid_sequence` minimum: prompt and reply must each be at least this many tokens. */
const SHAREGPT_MIN_TOKENS = 4;

function shuffle<T>(items: T[], rng: Rng): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [items[i], items[j]] = [items[j], items[i]];
  }
  return items;
}

/** The counter to make prompts exact with, and why it fell back to the approximation (null: it did not). */
async function chooseCounter(
  opts: WorkloadOptions,
  deps: WorkloadDeps,
): Promise<{ counter: TokenCounter; fallback: string | null; note?: string; check?: TokenizerCheck }> {
  const name = opts.tokenizer ?? opts.model;
  if (name) {
    const tok = await (deps.tokenizerFor ?? shippedTokenizerFor)(name);
    if (tok.method === 'tokenizer') return checkedTokenizer(name, tokenizerCounter(tok), deps);
  }
  const noLocal = `no offline tokenizer for ${opts.tokenizer ? `tokenizer ${name}` : opts.model ? `model ${name}` : 'an unnamed model'}`;
  if (!deps.tokenizeRemote)
    return { counter: approximateCounter, fallback: `${noLocal}, and no server /tokenize to ask` };
  const { counts, probe, longer } = await tryTokenize(deps.tokenizeRemote);
  if (counts)
    return {
      counter: remoteCounter(deps.tokenizeRemote),
      fallback: null,
      // The server counts with the served model's tokenizer, which may not be the one asked for.
      ...(opts.tokenizer
        ? { note: `${noLocal}: counted by the server's /tokenize (the served model's tokenizer)` }
        : {}),
    };
  return {
    counter: approximateCounter,
    fallback:
      probe === null || longer === null
        ? `${noLocal}, and the server's /tokenize did not answer`
        : `${noLocal}, and the server's /tokenize did not count (${probe} then ${longer} tokens for a text and its triple)`,
  };
}

/**
 * The named offline tokenizer is exact only when it is the server's own: the server's `/tokenize`
 * must count {@link TOKENIZER_PROBE} as it does. When the server counts differently (a server that
 * ignores the model name and serves another vocabulary, as llama.cpp does), the prompts are
 * counted by the server's `/tokenize` instead; when no `/tokenize` answers, the tokenizer is used
 * and its lengths are approximate (the check says so).
 */
async function checkedTokenizer(
  name: string,
  local: TokenCounter,
  deps: WorkloadDeps,
): Promise<{ counter: TokenCounter; fallback: string | null; check: TokenizerCheck }> {
  const mine = await local.count(TOKENIZER_PROBE);
  const theirs = deps.tokenizeRemote ? await deps.tokenizeRemote(TOKENIZER_PROBE).catch(() => null) : null;
  const check = { name, local: mine, server: theirs };
  if (theirs === mine) return { counter: local, fallback: null, check: { ...check, verdict: 'agrees' } };
  if (theirs !== null && deps.tokenizeRemote && (await tryTokenize(deps.tokenizeRemote)).counts)
    return {
      counter: remoteCounter(deps.tokenizeRemote),
      fallback: null,
      check: { ...check, verdict: 'differs' },
    };
  return { counter: local, fallback: null, check: { ...check, server: null, verdict: 'unchecked' } };
}

/** Read a source file; a missing or unreadable file is a problem (with a hint), not a throw. */
export async function readSource(
  path: string,
  readText: ReadText,
  problems: Problem[],
): Promise<string | undefined> {
  try {
    return await readText(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    problems.push({
      path,
      message: code === 'ENOENT' ? 'no such file' : `cannot read the file (${code ?? (e as Error).message})`,
      hint: 'check the path (relative paths start from the current directory)',
    });
    return undefined;
  }
}

/** What the files gave, before any counting. */
type Loaded =
  | { source: 'prompt' | 'synthetic' }
  | { source: 'prompts'; entries: PromptEntry[] }
  | { source: 'sharegpt'; pairs: { prompt: string; reply: string }[]; malformed: number }
  | { source: 'trace'; entries: TraceEntry[]; info: TraceInfo; notes: string[] };

/**
 * Build the workload from the options: validate everything (options and every file line), then
 * produce `count` specs (every trace line for a trace), reproducibly from `opts.seed`.
 * @throws UsageError listing every problem, each with a hint.
 * @example
 *   const { specs, method } = await buildWorkload({ seed: 1, count: 100, inputLen: 'uniform:128-512', outputLen: 128, model: 'qwen3-8b' });
 */
export async function buildWorkload(opts: WorkloadOptions, deps: WorkloadDeps = {}): Promise<Workload> {
  const problems: Problem[] = [];
  const t = deps.t ?? EN;
  const checked = checkOptions(opts, problems, t);
  const readText = deps.readText ?? readTextFile;
  let loaded: Loaded | undefined;
  switch (checked.source) {
    case 'prompt':
    case 'synthetic':
      loaded = { source: checked.source };
      break;
    case 'prompts': {
      const text = await readSource(opts.promptsFile!, readText, problems);
      if (text !== undefined) {
        const r = parsePromptsJsonl(text, opts.promptsFile!);
        problems.push(...r.problems);
        loaded = { source: 'prompts', entries: r.entries };
      }
      break;
    }
    case 'sharegpt': {
      const text = await readSource(opts.dataset!.path, readText, problems);
      if (text !== undefined) {
        const r = parseShareGpt(text, opts.dataset!.path);
        problems.push(...r.problems);
        loaded = { source: 'sharegpt', pairs: r.pairs, malformed: r.malformed };
      }
      break;
    }
    case 'trace': {
      const text = await readSource(opts.trace!, readText, problems);
      if (text !== undefined) loaded = loadTrace(text, opts, problems, t);
      break;
    }
  }
  if (problems.length > 0 || !loaded) throw new UsageError(problems);

  const needsCounter =
    loaded.source === 'synthetic' ||
    loaded.source === 'sharegpt' ||
    (loaded.source === 'trace' && loaded.entries.some((e) => e.input_len !== undefined));
  if (!needsCounter)
    return withTrace(loaded, { ...uncounted(opts, checked, loaded), method: 'none', inexact: 0, skipped: 0 });

  const { counter, fallback, note, check } = await chooseCounter(opts, deps);
  try {
    const w: Workload = await counted(opts, checked, loaded, counter);
    if (fallback) w.notes.unshift(`prompt lengths are approximate: ${fallback}`);
    if (note) w.notes.unshift(note);
    if (check) w.tokenizer_check = check;
    return withTrace(loaded, w);
  } catch (e) {
    if (!(e instanceof RemoteTokenizeFailed)) throw e;
    const w = await counted(opts, checked, loaded, approximateCounter);
    w.notes.unshift(
      'the server /tokenize stopped answering part-way; every prompt was rebuilt with the approximation',
    );
    return withTrace(loaded, w);
  }
}

/** Output lengths for `count` requests: `--output-len` when given, else what each file line said. */
function outputLens(
  opts: WorkloadOptions,
  checked: Checked,
  count: number,
  fromFile: (i: number) => number | null,
) {
  const rng = streamRng(opts.seed, 'output_len');
  return Array.from({ length: count }, (_, i) =>
    checked.outputLen ? checked.outputLen.sample(rng) : fromFile(i),
  );
}

function uncounted(
  opts: WorkloadOptions,
  checked: Checked,
  loaded: Loaded,
): { specs: RequestSpec[]; source: WorkloadSource; notes: string[] } {
  const notes: string[] = [];
  if (loaded.source === 'prompt') {
    const count = opts.count!;
    const out = outputLens(opts, checked, count, () => null);
    const specs = out.map((output_len, index) => ({
      index,
      prompt: opts.prompt!,
      input_len: null,
      output_len,
    }));
    return { specs, source: 'prompt', notes };
  }
  if (loaded.source === 'prompts') {
    const n = loaded.entries.length;
    const count = opts.count!;
    if (count > n) notes.push(`the prompts file has ${n} prompts; cycled through them for ${count} requests`);
    const out = outputLens(opts, checked, count, (i) => loaded.entries[i % n].output_len);
    const specs = out.map((output_len, index) => {
      const e = loaded.entries[index % n];
      return { index, ...textOf(e), input_len: null, output_len };
    });
    return { specs, source: 'prompts', notes };
  }
  if (loaded.source === 'trace')
    return { specs: traceSpecs(opts, checked, loaded.entries, []), source: 'trace', notes };
  throw new Error(`source ${loaded.source} needs a token counter`);
}

function textOf(e: PromptEntry): Pick<RequestSpec, 'prompt' | 'messages'> {
  return e.messages !== undefined ? { messages: e.messages } : { prompt: e.prompt };
}

function traceSpecs(
  opts: WorkloadOptions,
  checked: Checked,
  entries: TraceEntry[],
  synthetic: string[],
): RequestSpec[] {
  const count = opts.count ?? entries.length;
  const out = outputLens(opts, checked, count, (i) => entries[i].output_len);
  return out.map((output_len, index) => {
    const e = entries[index];
    const text = e.input_len !== undefined ? { prompt: synthetic[index] } : textOf(e);
    return { index, ...text, input_len: e.input_len ?? null, output_len, timestamp_ms: e.timestamp_ms };
  });
}

async function counted(
  opts: WorkloadOptions,
  checked: Checked,
  loaded: Loaded,
  counter: TokenCounter,
): Promise<Workload> {
  const notes: string[] = [];
  if (loaded.source === 'synthetic' && checked.sessions && opts.sessions) {
    const o = opts.sessions;
    const { workload: sessions, inexact } = await buildSessions(
      opts.seed,
      checked.sessions,
      { input: checked.inputLen as LengthDist, output: checked.outputLen },
      counter,
      {
        options: {
          users: o.users,
          turns: String(checked.sessions.turns),
          think_time: String(checked.sessions.think),
          documents: checked.sessions.documents,
          doc_len: checked.sessions.docLen ? String(checked.sessions.docLen) : null,
          doc_popularity: checked.sessions.documents > 0 ? `zipf:${checked.sessions.zipfS}` : null,
        },
      },
    );
    const specs = sessions.sessions.flatMap((s) => s.turns.map((t) => t.spec));
    return { specs, source: 'synthetic', method: counter.method, inexact, skipped: 0, notes, sessions };
  }
  if (loaded.source === 'synthetic') {
    const { specs, inexact } = await syntheticSpecs(opts, checked, counter);
    return { specs, source: 'synthetic', method: counter.method, inexact, skipped: 0, notes };
  }
  if (loaded.source === 'trace') {
    const count = opts.count ?? loaded.entries.length;
    const entries = loaded.entries.slice(0, count);
    // Mooncake: one text per hash block, built once and shared by every request that has it.
    const blocks = loaded.info.block_size
      ? await blockTexts(entries, loaded.info.block_size, counter, opts.seed)
      : undefined;
    if (blocks) loaded.info.blocks = blocks.blocks;
    let inexact = blocks?.inexact ?? 0;
    const texts = await mapLimit(entries, COUNT_CONCURRENCY, async (e, i) => {
      if (e.input_len === undefined) return '';
      if (blocks && e.hash_ids?.length) return blocks.texts[i];
      const fit = await fitText(counter, new WordStream(streamRng(opts.seed, 'trace', i)), e.input_len);
      if (fit.tokens !== e.input_len) inexact++;
      return fit.text;
    });
    const specs = traceSpecs(opts, checked, loaded.entries, texts);
    return { specs, source: 'trace', method: counter.method, inexact, skipped: 0, notes };
  }
  if (loaded.source === 'sharegpt') return sharegptSpecs(opts, checked, loaded, counter);
  throw new Error(`source ${loaded.source} needs no token counter`);
}

/**
 * ShareGPT as vLLM samples it: shuffle with the seed (or not: `disableShuffle`), walk the entries counting prompt and reply
 * tokens, skip a pair whose prompt (or, without `--output-len`, reply) is under 4 tokens, and stop
 * once `count` pairs are kept; fewer usable pairs are cycled. vLLM's upper limits (prompt > 1024,
 * prompt + reply > 2048 tokens) are not applied: servelab leaves long prompts in.
 */
async function sharegptSpecs(
  opts: WorkloadOptions,
  checked: Checked,
  loaded: Extract<Loaded, { source: 'sharegpt' }>,
  counter: TokenCounter,
): Promise<Workload> {
  const count = opts.count!;
  const notes: string[] = [];
  const indices = loaded.pairs.map((_, i) => i);
  const order = opts.disableShuffle ? indices : shuffle(indices, streamRng(opts.seed, 'sharegpt'));
  const kept: { prompt: string; input_len: number; reply_len: number }[] = [];
  let tooShort = 0;
  // Count in batches so the remote path runs in parallel but never counts far past what is needed.
  for (let at = 0; at < order.length && kept.length < count; ) {
    const batch = order.slice(at, at + Math.max(COUNT_CONCURRENCY, count - kept.length));
    at += batch.length;
    const lens = await mapLimit(batch, COUNT_CONCURRENCY, async (i) => {
      const p = loaded.pairs[i];
      const input_len = await counter.count(p.prompt);
      const reply_len = checked.outputLen ? 0 : await counter.count(p.reply);
      return { prompt: p.prompt, input_len, reply_len };
    });
    for (const l of lens) {
      if (kept.length >= count) break;
      if (l.input_len < SHAREGPT_MIN_TOKENS || (!checked.outputLen && l.reply_len < SHAREGPT_MIN_TOKENS))
        tooShort++;
      else kept.push(l);
    }
  }
  if (kept.length === 0)
    throw new UsageError([
      {
        path: opts.dataset!.path,
        message: `every conversation is too short (prompt or reply under ${SHAREGPT_MIN_TOKENS} tokens)`,
        hint: 'use a fuller ShareGPT file, or set --output-len to keep entries with short replies',
      },
    ]);
  if (kept.length < count)
    notes.push(
      `only ${kept.length} ShareGPT conversations are usable; cycled through them for ${count} requests`,
    );
  const out = outputLens(opts, checked, count, (i) => kept[i % kept.length].reply_len);
  const specs = out.map((output_len, index) => {
    const k = kept[index % kept.length];
    return { index, prompt: k.prompt, input_len: k.input_len, output_len };
  });
  return {
    specs,
    source: 'sharegpt',
    method: counter.method,
    inexact: 0,
    skipped: loaded.malformed + tooShort,
    notes,
  };
}

/**
 * Synthetic prompts, token-exact. With shared prefixes, group g's prefix is fitted to exactly
 * `prefixLen` tokens from its own stream and starts with lead word(s) no other group has, so two
 * groups never share a leading block by chance; groups are dealt evenly (i mod G) and the order
 * shuffled, as SGLang's generated-shared-prefix does.
 */
async function syntheticSpecs(
  opts: WorkloadOptions,
  checked: Checked,
  counter: TokenCounter,
): Promise<{ specs: RequestSpec[]; inexact: number }> {
  const count = opts.count!;
  const { prefixLen, groups } = checked;
  const inRng = streamRng(opts.seed, 'input_len');
  const inputLens = Array.from({ length: count }, () =>
    Math.max(prefixLen + 1, checked.inputLen!.sample(inRng)),
  );
  const outLens = outputLens(opts, checked, count, () => null);
  let inexact = 0;

  let prefixes: { text: string; tokens: number }[] = [];
  let groupOf: number[] = [];
  if (prefixLen > 0) {
    const lead = shuffle(
      VOCAB.map((_, i) => i),
      streamRng(opts.seed, 'prefix-lead'),
    );
    const V = VOCAB.length;
    prefixes = await mapLimit(
      Array.from({ length: groups }, (_, g) => g),
      COUNT_CONCURRENCY,
      async (g) => {
        const words =
          groups > V ? [VOCAB[lead[g % V]], VOCAB[lead[Math.floor(g / V) % V]]] : [VOCAB[lead[g]]];
        const fit = await fitText(
          counter,
          new WordStream(streamRng(opts.seed, 'prefix', g), words),
          prefixLen,
        );
        if (fit.tokens !== prefixLen) inexact++;
        return fit;
      },
    );
    groupOf = shuffle(
      Array.from({ length: count }, (_, i) => i % groups),
      streamRng(opts.seed, 'groups'),
    );
  }

  if (prefixLen > 0 && checked.promptsPerGroup > 0)
    return cyclingSpecs(
      { ...opts, ...checked, inputLen: checked.inputLen! },
      counter,
      prefixes,
      outLens,
      inexact,
    );

  const specs = await mapLimit(inputLens, COUNT_CONCURRENCY, async (input_len, index) => {
    const words = new WordStream(streamRng(opts.seed, 'request', index));
    const g = prefixLen > 0 ? groupOf[index] : undefined;
    const head = g !== undefined ? prefixes[g] : undefined;
    const fit = await fitText(counter, words, input_len, head?.text ?? '', head?.tokens);
    if (fit.tokens !== input_len) inexact++;
    const spec: RequestSpec = { index, prompt: fit.text, input_len, output_len: outLens[index] };
    if (g !== undefined) spec.prefix_group = g;
    return spec;
  });
  return { specs, inexact };
}

/** Parse, window and cut a trace file's text (every problem into `problems`). */
function loadTrace(
  text: string,
  opts: WorkloadOptions,
  problems: Problem[],
  t: T,
): Extract<Loaded, { source: 'trace' }> | undefined {
  const path = opts.trace!;
  const r = parseTrace(text, path, { format: opts.traceFormat, blockSize: opts.traceBlockSize, t });
  problems.push(...r.problems);
  if (r.format === undefined || r.problems.length) return undefined;
  if (opts.traceBlockSize !== undefined && r.format !== 'mooncake')
    problems.push({
      path: '--trace-block-size',
      message: t('trace.block_size.only_mooncake', { format: r.format }),
      hint: t('trace.block_size.hint'),
    });
  const w = windowTrace(r.entries, opts.traceWindow);
  if (w.entries.length === 0 && opts.traceWindow) {
    const span = (r.entries[r.entries.length - 1].timestamp_ms - r.entries[0].timestamp_ms) / 1000;
    problems.push({
      path: '--trace-window',
      message: t('trace.window.empty', {
        start: opts.traceWindow.startS,
        end: opts.traceWindow.endS ?? '∞',
        span: Number(span.toPrecision(6)),
      }),
      hint: t('trace.window.hint'),
    });
  }
  if (opts.count !== undefined && w.entries.length > 0 && opts.count > w.entries.length)
    problems.push({
      path: '--requests',
      message: t('trace.requests.too_many', { n: w.entries.length, asked: opts.count }),
      hint: t('trace.requests.too_many_hint'),
    });
  const mooncake = r.format === 'mooncake' && w.entries.some((e) => e.hash_ids !== undefined);
  const info: TraceInfo = {
    format: r.format,
    detected: r.detected,
    requests_in_file: r.entries.length,
    requests_kept: Math.min(opts.count ?? w.entries.length, w.entries.length),
    skipped: r.skipped,
    window: opts.traceWindow ?? null,
    origin_ms: w.originMs,
    block_size: mooncake ? (opts.traceBlockSize ?? MOONCAKE_BLOCK_SIZE) : null,
    blocks: null,
  };
  return { source: 'trace', entries: w.entries, info, notes: skipNotes(r.skipped) };
}

/** A trace workload carries what the trace read and names its skipped rows in its notes. */
function withTrace(loaded: Loaded, w: Workload): Workload {
  if (loaded.source !== 'trace') return w;
  return { ...w, notes: [...w.notes, ...loaded.notes], trace: loaded.info };
}
