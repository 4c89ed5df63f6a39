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
import { type CounterDeps, chooseCounter, fallingBack, type TokenizerCheck } from './counting.js';
import { approximateCounter, fitText, RemoteTokenizeFailed, type TokenCounter, WordStream } from './exact.js';
import {
  type PromptEntry,
  parsePromptsJsonl,
  parseShareGpt,
  type ReadText,
  readCheckedText,
} from './files.js';
import type { LengthDist } from './lengths.js';
import { type Checked, checkOptions, type WorkloadOptions, type WorkloadSource } from './options.js';
import { buildSessions, type SessionWorkload } from './sessions.js';
import { cyclingMaker } from './shared-prefix.js';
import { makeAll, type SpecMaker, streamSpecs } from './spec-stream.js';
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
import type { RequestSpec, SpecStream, TokenizationMethod } from './types.js';
import { VOCAB } from './vocab.js';

/** I/O the workload needs, injected. */
export interface WorkloadDeps extends CounterDeps {
  /** Reads a file; default `node:fs/promises`. */
  readText?: ReadText;
  /**
   * A warning for the user, in `t`'s language (a prompt file that is not UTF-8, naming its first
   * bad byte); default: none. Only the default file reader checks.
   */
  warn?: (line: string) => void;
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

const EN = translator('en');
/** vLLM's `is_valid_sequence` minimum: prompt and reply must each be at least this many tokens. */
const SHAREGPT_MIN_TOKENS = 4;

function shuffle<A extends { length: number; [i: number]: number }>(items: A, rng: Rng): A;
function shuffle<T>(items: T[], rng: Rng): T[];
function shuffle<T>(items: T[], rng: Rng): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [items[i], items[j]] = [items[j], items[i]];
  }
  return items;
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
  // Made whole: every source's specs come back as an array.
  return (await assemble(opts, deps, (m) => makeAll(m, COUNT_CONCURRENCY), false)) as Workload;
}

/** A workload whose specs may be streamed (see {@link streamWorkload}). */
export type StreamedWorkload = Omit<Workload, 'specs'> & { specs: RequestSpec[] | SpecStream };

/**
 * {@link buildWorkload}'s workload with its specs generated as the runner reads them (`workload/
 * spec-stream`): the same spec at every index, in memory that does not grow with `count`. For a
 * `--duration` open loop. A trace and sessions are still built whole. Options as
 * {@link buildWorkload}'s; `from` starts the stream at that index (the warm-up's prompts follow
 * the measured ones), `pause` is awaited between slices of long synchronous work, and an aborted
 * `signal` ends that work early (the stream is then empty).
 * With a server's `/tokenize` that stops answering part-way, the rest are counted by the
 * approximation (a note says so): the specs already sent cannot be rebuilt.
 * @throws UsageError listing every problem, each with a hint.
 */
export async function streamWorkload(
  opts: WorkloadOptions,
  deps: WorkloadDeps & { from?: number; pause: () => Promise<void>; signal?: AbortSignal },
): Promise<StreamedWorkload> {
  const { from, pause, signal } = deps;
  return assemble(opts, deps, (m) => streamSpecs(m, { from, ahead: COUNT_CONCURRENCY, pause, signal }), true);
}

/**
 * The one assembly of a workload: check the options and files, pick the counter, then make the
 * specs with `make` (whole, or streamed when `streamed`: a remote count's failure then falls back
 * per spec, not by a rebuild).
 */
async function assemble(
  opts: WorkloadOptions,
  deps: WorkloadDeps,
  make: Make,
  streamed: boolean,
): Promise<StreamedWorkload> {
  const problems: Problem[] = [];
  const t = deps.t ?? EN;
  const checked = checkOptions(opts, problems, t);
  const readText =
    deps.readText ??
    readCheckedText((file, offset) => deps.warn?.(t('run.prompts.bad_utf8', { file, offset })));
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
    return withTrace(loaded, {
      ...(await uncounted(opts, checked, loaded, make)),
      method: 'none',
      inexact: 0,
      skipped: 0,
    });

  const chosen = await chooseCounter(opts, deps);
  const { fallback, note, check } = chosen;
  // A fallback during a streamed run is noted in the workload's notes, once they exist.
  let notes: string[] = [];
  const counter = streamed ? fallingBack(chosen.counter, (line) => notes.push(line)) : chosen.counter;
  try {
    const w = await counted(opts, checked, loaded, counter, make);
    w.notes.unshift(...notes);
    if (fallback) w.notes.unshift(`prompt lengths are approximate: ${fallback}`);
    if (note) w.notes.unshift(note);
    if (check) w.tokenizer_check = check;
    notes = w.notes;
    return withTrace(loaded, w);
  } catch (e) {
    if (!(e instanceof RemoteTokenizeFailed)) throw e;
    const w = await counted(opts, checked, loaded, approximateCounter, make);
    w.notes.unshift(
      'the server /tokenize stopped answering part-way; every prompt was rebuilt with the approximation',
    );
    return withTrace(loaded, w);
  }
}

/** How specs are made from a source's {@link SpecMaker}: whole or streamed. */
type Make = <D>(m: SpecMaker<D>) => Promise<RequestSpec[] | SpecStream>;

/**
 * Request i's output length, drawn in index order: `--output-len` when given (its own stream),
 * else what the file line said.
 */
function outputLenDraw(
  opts: WorkloadOptions,
  checked: Checked,
  fromFile: (i: number) => number | null,
): (i: number) => number | null {
  const rng = streamRng(opts.seed, 'output_len');
  return (i) => (checked.outputLen ? checked.outputLen.sample(rng) : fromFile(i));
}

/** Output lengths for `count` requests (see {@link outputLenDraw}). */
function outputLens(
  opts: WorkloadOptions,
  checked: Checked,
  count: number,
  fromFile: (i: number) => number | null,
) {
  const draw = outputLenDraw(opts, checked, fromFile);
  return Array.from({ length: count }, (_, i) => draw(i));
}

async function uncounted(
  opts: WorkloadOptions,
  checked: Checked,
  loaded: Loaded,
  make: Make,
): Promise<{ specs: RequestSpec[] | SpecStream; source: WorkloadSource; notes: string[] }> {
  const notes: string[] = [];
  const count = opts.count!;
  if (loaded.source === 'prompt') {
    const out = outputLenDraw(opts, checked, () => null);
    const specs = await make({
      count,
      draw: out,
      build: async (index, output_len) => ({ index, prompt: opts.prompt!, input_len: null, output_len }),
    });
    return { specs, source: 'prompt', notes };
  }
  if (loaded.source === 'prompts') {
    const n = loaded.entries.length;
    if (count > n) notes.push(`the prompts file has ${n} prompts; cycled through them for ${count} requests`);
    const out = outputLenDraw(opts, checked, (i) => loaded.entries[i % n].output_len);
    const specs = await make({
      count,
      draw: out,
      build: async (index, output_len) => ({
        index,
        ...textOf(loaded.entries[index % n]),
        input_len: null,
        output_len,
      }),
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
  make: Make,
): Promise<StreamedWorkload> {
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
    const { maker, inexact } = await syntheticMaker(opts, checked, counter);
    const specs = await make(maker);
    return { specs, source: 'synthetic', method: counter.method, inexact: inexact(), skipped: 0, notes };
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
  if (loaded.source === 'sharegpt') return sharegptSpecs(opts, checked, loaded, counter, make);
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
  make: Make,
): Promise<StreamedWorkload> {
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
  const specs = await make({
    count,
    draw: outputLenDraw(opts, checked, (i) => kept[i % kept.length].reply_len),
    build: async (index, output_len) => {
      const k = kept[index % kept.length];
      return { index, prompt: k.prompt, input_len: k.input_len, output_len };
    },
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
async function syntheticMaker(
  opts: WorkloadOptions,
  checked: Checked,
  counter: TokenCounter,
): Promise<{
  maker: SpecMaker<{ input_len: number; output_len: number | null }>;
  inexact: () => number;
}> {
  const count = opts.count!;
  const { prefixLen, groups } = checked;
  const inRng = streamRng(opts.seed, 'input_len');
  const outLen = outputLenDraw(opts, checked, () => null);
  let inexact = 0;

  let prefixes: { text: string; tokens: number }[] = [];
  let groupOf = new Uint32Array(0);
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
    // Four bytes a request, even streamed: the deal is a shuffle of every request's group.
    groupOf = shuffle(
      Uint32Array.from({ length: count }, (_, i) => i % groups),
      streamRng(opts.seed, 'groups'),
    );
  }

  if (prefixLen > 0 && checked.promptsPerGroup > 0) {
    const cyc = await cyclingMaker(
      { ...opts, ...checked, inputLen: checked.inputLen!, count },
      counter,
      prefixes,
      outLen,
    );
    return { maker: cyc.maker, inexact: () => inexact + cyc.inexact };
  }

  const maker: SpecMaker<{ input_len: number; output_len: number | null }> = {
    count,
    draw: (i) => ({
      input_len: Math.max(prefixLen + 1, checked.inputLen!.sample(inRng)),
      output_len: outLen(i),
    }),
    build: async (index, { input_len, output_len }) => {
      const words = new WordStream(streamRng(opts.seed, 'request', index));
      const g = prefixLen > 0 ? groupOf[index] : undefined;
      const head = g !== undefined ? prefixes[g] : undefined;
      const fit = await fitText(counter, words, input_len, head?.text ?? '', head?.tokens);
      if (fit.tokens !== input_len) inexact++;
      const spec: RequestSpec = { index, prompt: fit.text, input_len, output_len };
      if (g !== undefined) spec.prefix_group = g;
      return spec;
    },
  };
  return { maker, inexact: () => inexact };
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
function withTrace<W extends StreamedWorkload>(loaded: Loaded, w: W): W {
  if (loaded.source !== 'trace') return w;
  return { ...w, notes: [...w.notes, ...loaded.notes], trace: loaded.info };
}
