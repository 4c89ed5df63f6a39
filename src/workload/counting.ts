/**
 * @module workload/counting
 * Which counter makes prompt lengths exact (`workload/build`): the named offline tokenizer when
 * the server agrees with it, else the server's `/tokenize`, else the approximation, and why; and,
 * for a streamed workload, a remote counter that falls back to the approximation mid-run.
 */
import { tokenizerFor as shippedTokenizerFor, type Tokenizer } from '../tokenizer/index.js';
import {
  approximateCounter,
  RemoteTokenizeFailed,
  remoteCounter,
  type TokenCounter,
  tokenizerCounter,
  tryTokenize,
} from './exact.js';

/** What choosing a counter needs: the shipped tokenizer and the server's count, injected. */
export interface CounterDeps {
  /** The shipped tokenizer for a model; default `tokenizerFor` from `src/tokenizer`. */
  tokenizerFor?: (model: string) => Promise<Tokenizer>;
  /**
   * Token count of a text from the server (vLLM `POST /tokenize {model, prompt}` → `count`),
   * without special tokens; null when the server has no such endpoint.
   */
  tokenizeRemote?: (text: string) => Promise<number | null>;
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

/** The counter to make prompts exact with, and why it fell back to the approximation (null: it did not). */
export async function chooseCounter(
  opts: { tokenizer?: string; model?: string },
  deps: CounterDeps,
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
  deps: CounterDeps,
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

export function fallingBack(counter: TokenCounter, note: (line: string) => void): TokenCounter {
  if (counter.method !== 'server_tokenize') return counter;
  let failed = false;
  return {
    method: counter.method,
    async count(text: string) {
      if (!failed)
        try {
          return await counter.count(text);
        } catch (e) {
          if (!(e instanceof RemoteTokenizeFailed)) throw e;
          failed = true;
          const line =
            'the server /tokenize stopped answering part-way; the prompts after it were counted by the approximation';
          note(line);
        }
      return approximateCounter.count(text);
    },
  };
}
