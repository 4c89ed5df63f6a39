/**
 * @module workload/exact
 * Token-exact synthetic text. A prompt is a fixed head (a shared prefix, or nothing) followed by
 * words drawn from {@link VOCAB} with a seeded {@link Rng}; the number of words is searched for
 * by counting the whole text until the count is exact, then one-token fillers close any gap
 * left where the next word would overshoot.
 *
 * The search returns the longest word run whose count is ≤ the target (then fillers), which does
 * not depend on where the search started, so the text for a given seed is the same however the
 * counter is called (serially or in parallel). It needs only a count, so the same code serves a
 * local tokenizer, a server's `/tokenize` and the approximation.
 */
import type { Rng } from '../runtime/rng.js';
import { approximatePieces, type Tokenizer } from '../tokenizer/index.js';
import type { TokenizationMethod } from './types.js';
import { FILLERS, VOCAB } from './vocab.js';

/** Counts the tokens of a text by one of the three methods. */
export interface TokenCounter {
  readonly method: Exclude<TokenizationMethod, 'none'>;
  count(text: string): Promise<number>;
}

/**
 * Thrown by the `/tokenize` counter when the server stops answering after it first did: the
 * workload is then rebuilt with the approximation, so one run never mixes two methods.
 */
export class RemoteTokenizeFailed extends Error {
  constructor() {
    super('the server /tokenize endpoint stopped answering');
    this.name = 'RemoteTokenizeFailed';
  }
}

/** A counter over a local tokenizer (special tokens are not added, as for vLLM's random prompts). */
export function tokenizerCounter(tok: Tokenizer): TokenCounter {
  return { method: tok.method, count: async (text) => tok.encode(text).length };
}

/** The approximation from `src/tokenizer` (pieces only; nothing is cached). */
export const approximateCounter: TokenCounter = {
  method: 'approximate',
  count: async (text) => approximatePieces(text).length,
};

/**
 * A counter over a server's tokenize endpoint (the function comes from the caller: the HTTP
 * request is `client/engine-api` `tokenizeRemote`, which the workload may not import).
 * @param tokenizeRemote returns the token count of a text without special tokens, or null when
 *   the server cannot tokenize; a null after the first answer throws {@link RemoteTokenizeFailed}.
 */
export function remoteCounter(tokenizeRemote: (text: string) => Promise<number | null>): TokenCounter {
  return {
    method: 'server_tokenize',
    count: async (text) => {
      const n = await tokenizeRemote(text).catch(() => null);
      if (n === null || !Number.isFinite(n)) throw new RemoteTokenizeFailed();
      return n;
    },
  };
}

/** What a `/tokenize` said of a known text and of its triple, and whether that is counting. */
export interface TokenizeTrial {
  /** The two counts agree with counting: positive, and the triple gives more. */
  counts: boolean;
  /** Tokens of the probe text, and of the text three times (null: no answer). */
  probe: number | null;
  longer: number | null;
}

/**
 * Try a token counter on a known text and its triple. Trust it only if it counts: a stub that
 * answers a constant (llama.cpp's `{"tokens": []}` to a body without `content`, say) would
 * otherwise make every prompt search grow without end. `run` and `check` both judge by this.
 */
export async function tryTokenize(count: (text: string) => Promise<number | null>): Promise<TokenizeTrial> {
  const text = 'servelab tokenize probe';
  const probe = await count(text).catch(() => null);
  const longer = await count(`${text} ${text} ${text}`).catch(() => null);
  const counts = probe !== null && longer !== null && Number.isFinite(probe) && probe > 0 && longer > probe;
  return { counts, probe, longer };
}

/** An endless, seeded sequence of vocabulary words, materialised as far as it is read. */
export class WordStream {
  private readonly words: string[] = [];

  /**
   * @param rng the stream's own generator (fork one per prompt, so prompts do not depend on each other)
   * @param lead words placed before the random ones (used to keep prefix groups apart)
   */
  constructor(
    private readonly rng: Rng,
    lead: readonly string[] = [],
  ) {
    this.words.push(...lead);
  }

  /** The first `k` words joined by single spaces. */
  take(k: number): string {
    while (this.words.length < k) this.words.push(VOCAB[this.rng.int(0, VOCAB.length - 1)]);
    return this.words.slice(0, k).join(' ');
  }
}

/** The text fitted to a target count. `tokens` is the measured count; it differs from the target only when no filler fits. */
export interface FittedText {
  text: string;
  tokens: number;
}

/**
 * Build `head` + words whose token count is exactly `target`.
 * @param counter the counting method
 * @param words where the words come from
 * @param target wanted token count of the whole text (≥ the head's count)
 * @param head text that must begin the result (a shared prefix), '' for none
 * @param headTokens the head's count when already known (saves one count)
 */
export async function fitText(
  counter: TokenCounter,
  words: WordStream,
  target: number,
  head = '',
  headTokens?: number,
): Promise<FittedText> {
  const textOf = (k: number) => (k === 0 ? head : head ? `${head} ${words.take(k)}` : words.take(k));
  let loK = 0;
  let loC = headTokens ?? (head ? await counter.count(head) : 0);
  let hiK = Number.POSITIVE_INFINITY;
  // Tokens per word: the vocabulary is one token a word, so the first guess usually lands exactly.
  let perWord = 1;
  // Every vocabulary word is at least one token for any real tokenizer, so more words than
  // this can never be needed; the cap keeps a broken counter from growing the text forever.
  const maxWords = target * 4 + 16;
  while (loC < target && hiK - loK > 1) {
    let k = loK + Math.max(1, Math.round((target - loC) / perWord));
    if (k >= hiK) k = Math.floor((loK + hiK) / 2);
    if (k > maxWords) break;
    const c = await counter.count(textOf(k));
    if (c <= target) {
      if (c > loC) perWord = (c - loC) / (k - loK);
      loK = k;
      loC = c;
    } else {
      perWord = Math.max(perWord, (c - loC) / (k - loK));
      hiK = k;
    }
  }
  let text = textOf(loK);
  let tokens = loC;
  // The next word would overshoot (it is several tokens at this boundary): close the gap with
  // fillers, each checked to add exactly one token.
  while (tokens < target) {
    let added = false;
    for (const f of FILLERS) {
      const c = await counter.count(text + f);
      if (c === tokens + 1) {
        text += f;
        tokens = c;
        added = true;
        break;
      }
    }
    if (!added) break;
  }
  return { text, tokens };
}
