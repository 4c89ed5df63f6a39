/**
 * @module sim/server/prompt-tokens
 * The simulator's prompt tokenisation, done once per text. `plan` counts every prompt while it
 * fits the workload (`workload/exact`, through the simulator's own tokenizer) and then sends it;
 * without a memo the server encoded each prompt a second time to serve it. Here a text's ids are
 * kept (bounded by a total of ids) and a chat prompt is the ids of its template pieces and of each
 * message's content, so the content counted for the workload is the content served.
 *
 * Chat prompts as pieces: `<|im_start|>{role}\n`, the content, `<|im_end|>\n` per message, then
 * `<|im_start|>assistant\n` (the template of {@link applyChatTemplate}), each encoded on its own
 * and concatenated. Real chat templates put special tokens at those joins, which never merge
 * with the content's first or last token, so counting the pieces apart is the closer model.
 */
import type { Tokenizer } from '../../tokenizer/index.js';
import { promptTokenIds } from '../frontend.js';
import { type ChatMessageLike, chatTemplatePieces } from './requests.js';

/** Ids kept in all, across texts (~32 MB of numbers); the oldest texts go first beyond it. */
export const PROMPT_CACHE_MAX_IDS = 4_000_000;

/** Words in the warm-up text of {@link PromptTokens.warm}. */
const WARM_WORDS = 4000;
const WARM_PIECES = ['the ', 'Über', 'naïve ', '数据', ', ', '\n', 'Token', '(x) ', '42.'];

/**
 * A varied warm-up text of `n` words (letters, accents, CJK, digits, punctuation, newlines): every
 * tokenizer branch. {@link PromptTokens.warm} encodes one; `sim/server/warm` sends one.
 */
export function warmText(n: number): string {
  const words: string[] = [];
  for (let i = 0; i < n; i++) words.push(`${WARM_PIECES[i % WARM_PIECES.length]}${(i * 7919) % 1009}`);
  return words.join(' ');
}

/** Tokenizers {@link PromptTokens.warm} has compiled in this process (V8's code is per process). */
const warmedTokenizers = new WeakSet<Tokenizer>();

/** A tokenizer with a memo of the texts it has encoded. */
export class PromptTokens {
  private readonly cache = new Map<string, readonly number[]>();
  private cachedIds = 0;

  constructor(
    readonly tokenizer: Tokenizer,
    private readonly maxIds = PROMPT_CACHE_MAX_IDS,
  ) {}

  /** The ids of `text` (shared: do not modify). */
  ids(text: string): readonly number[] {
    const hit = this.cache.get(text);
    if (hit) return hit;
    const ids = promptTokenIds(this.tokenizer, text);
    if (ids.length <= this.maxIds) {
      while (this.cachedIds + ids.length > this.maxIds) {
        const [oldest, old] = this.cache.entries().next().value as [string, readonly number[]];
        this.cache.delete(oldest);
        this.cachedIds -= old.length;
      }
      this.cache.set(text, ids);
      this.cachedIds += ids.length;
    }
    return ids;
  }

  /** Forget every text encoded so far. */
  clear(): void {
    this.cache.clear();
    this.cachedIds = 0;
  }

  /**
   * Encode a varied text of ~{@link WARM_WORDS} words once, outside the memo, so that V8 has
   * compiled the tokenizer before the first request: a cold first encode is several times
   * slower than a later one, and on a wall clock that work would show in the first request's
   * latency (`RealTimeDriver.add` hides the simulator's own work only up to the modelled
   * latency it stands in for). Once per tokenizer and process: a second server finds it compiled.
   */
  warm(): void {
    if (warmedTokenizers.has(this.tokenizer)) return;
    warmedTokenizers.add(this.tokenizer);
    promptTokenIds(this.tokenizer, warmText(WARM_WORDS));
  }

  /** A chat prompt's ids (a fresh array): its template pieces and contents, each encoded once. */
  chatIds(messages: readonly ChatMessageLike[]): number[] {
    return chatPromptIds((t) => this.ids(t), messages);
  }
}

/**
 * A chat prompt's ids: the pieces of {@link chatTemplatePieces}, each encoded by `encode`, in
 * order. `sim/batch-driver` and the server both count chat prompts with it.
 */
export function chatPromptIds(
  encode: (text: string) => readonly number[],
  messages: readonly ChatMessageLike[],
): number[] {
  const parts = chatTemplatePieces(messages).map((p) => (p.length ? encode(p) : []));
  let n = 0;
  for (const ids of parts) n += ids.length;
  const out = new Array<number>(n);
  let k = 0;
  for (const ids of parts) for (let i = 0; i < ids.length; i++) out[k++] = ids[i];
  return out;
}
