/**
 * @module sim/server/text
 * The simulator's output text: deterministic pseudo-text where one output token is exactly one
 * word piece, so the streamed text, the token count and `usage.completion_tokens` always agree.
 * Also the documented rules for the reasoning phase's length and for the `garble` fault.
 *
 * Nothing here reads a clock or `Math.random`: every choice is a pure function of integer seeds.
 */
import { hashString } from '../../runtime/rng.js';

/**
 * The fixed output vocabulary: short English words, each with a leading space, so that
 * concatenated tokens read as (nonsense) prose and each token is visibly one word.
 */
export const VOCABULARY: readonly string[] = (
  'the a an of to in on at by for with from as is was are be been it its this that these those ' +
  'we you they he she i me us them my our your their his her and or but so if then than when while ' +
  'where which who what how why not no yes all any some many much more most few less each every both ' +
  'one two three four five six ten new old good bad big small long short high low first last next ' +
  'same other own just also very still even only well here there now today soon again often never ' +
  'time day year way work part case point fact place world life hand eye head home water room word ' +
  'book line name side kind end idea page story study model data test plan step task note list view ' +
  'can will may must should could would might do does did make made take took give gave get got ' +
  'see saw know knew think thought come came go went run ran use used find found tell told ask asked ' +
  'keep kept let put set show try call need feel seem turn move live hold bring write read learn ' +
  'open close start stop play help change lead grow build send meet pay sit stand lose add walk talk ' +
  'clear sure true real full free early late easy hard simple quick slow right left best great light'
)
  .split(' ')
  .map((w) => ` ${w}`);

/** 32-bit integer mix (splitmix/murmur finaliser): a stable, well-spread hash of (seed, i). */
export function mix32(seed: number, i: number): number {
  let z = (seed ^ Math.imul(i + 1, 0x9e3779b9)) >>> 0;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
  return (z ^ (z >>> 16)) >>> 0;
}

/**
 * Text of output token `index` (0-based) for a request whose text seed is `textSeed`.
 * One token is one vocabulary entry; the same (seed, index) always gives the same word.
 */
export function tokenText(textSeed: number, index: number): string {
  return VOCABULARY[mix32(textSeed, index) % VOCABULARY.length];
}

/**
 * Text of content token `index` when sentences are on (`--sentence-words N` > 0): the word of
 * {@link tokenText}, ending a sentence with "." on a seeded draw of one word in N (sentences of
 * N words on average). Still one word piece per token, so counts do not change; a voice client's
 * sentence chunking (`servelab voice --tts-chunk sentence`) needs boundaries to find.
 */
export function sentenceText(textSeed: number, index: number, every: number): string {
  const w = tokenText(textSeed, index);
  return every > 0 && mix32(textSeed ^ 0x5e47e9c3, index) % every === 0 && index > 0 ? `${w}.` : w;
}

/**
 * Seed of a request's output text. With `temperature` 0 (greedy) the text depends only on the
 * prompt, as a greedy decode would; otherwise it also depends on the request's `seed`
 * (or on the server seed when the request gives none).
 */
export function textSeedFor(
  promptKey: string,
  serverSeed: number,
  reqSeed: number | undefined,
  greedy: boolean,
): number {
  const salt = greedy ? 'greedy' : `${reqSeed ?? `server:${serverSeed}`}`;
  return hashString(`${salt}\u0000${promptKey}`);
}

/**
 * Number of leading output tokens that form the reasoning phase (Qwen3 thinking).
 *
 * Rule (documented, deterministic): a share `f` of the output is reasoning, with
 * `f = 0.3 + 0.4·u` and `u = hash(prompt key) / 2³²` (so `f` ∈ [0.3, 0.7) and depends only on
 * the prompt); the reasoning length is `⌊f · outputTokens⌋`, where `outputTokens` is what the
 * request will produce (`min(eosLen, maxTokens)`). A request cut short by `max_tokens` therefore
 * keeps the same split as a free one, and a one-token answer has no reasoning.
 */
export function reasoningLength(promptKey: string, outputTokens: number): number {
  const u = hashString(`reasoning\u0000${promptKey}`) / 4294967296;
  return Math.floor((0.3 + 0.4 * u) * outputTokens);
}

const GARBLE_LETTERS = 'bcdfghjklmnpqrstvwxz';

/**
 * The `garble` fault's corruption of one token: every letter is replaced by a consonant chosen
 * from (seed, index), keeping the length and the leading space, so token counts still agree but
 * the words are no longer words (something a quality gate can catch).
 */
export function garbleText(text: string, seed: number, index: number): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    out += c === ' ' ? c : GARBLE_LETTERS[mix32(seed ^ index, i) % GARBLE_LETTERS.length];
  }
  return out;
}
