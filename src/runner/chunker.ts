/**
 * @module runner/chunker
 * How a voice client cuts the LLM's streamed reply into text chunks for TTS
 * (`--tts-chunk sentence|chars:N|whole`). Pure: text goes in delta by delta, chunks come out.
 *
 * - `sentence`: a chunk ends after a sentence boundary: Chinese 。！？ (and ；… never: they do not
 *   end a spoken sentence) at once, `.!?` when followed by whitespace or when they end the text
 *   received so far (a streamed token ends there; `3.5` inside one delta is not cut).
 * - `chars:N`: a chunk ends once N characters have gathered, at the last whitespace within them
 *   when there is one (words are not cut), else after N.
 * - `whole`: one chunk, the whole reply, when the stream ends.
 *
 * Later chunks follow the same rule; whatever is left when the stream ends is the last chunk.
 */
import type { Problem } from '../core/errors.js';
import { type T, translator } from '../i18n/index.js';

export type ChunkPolicy = { kind: 'sentence' } | { kind: 'chars'; n: number } | { kind: 'whole' };

/** The text form of a policy (what `--tts-chunk` takes, and records carry). */
export function chunkPolicyText(p: ChunkPolicy): string {
  return p.kind === 'chars' ? `chars:${p.n}` : p.kind;
}

/** Parse `--tts-chunk`; a bad value adds a problem and gives `sentence`. */
export function parseChunkPolicy(text: string, problems: Problem[], t: T = translator('en')): ChunkPolicy {
  const s = text.trim().toLowerCase();
  if (s === 'sentence' || s === 'whole') return { kind: s };
  const m = /^chars:(\d+)$/.exec(s);
  if (m && Number(m[1]) >= 1) return { kind: 'chars', n: Number(m[1]) };
  problems.push({
    path: '--tts-chunk',
    message: t('voice.chunk.bad', { value: text }),
    hint: t('voice.chunk.hint'),
  });
  return { kind: 'sentence' };
}

const CJK_END = new Set(['。', '！', '？']);
const END = new Set(['.', '!', '?']);

/** Index just past the first sentence end in `s` (null: none yet). */
export function sentenceEnd(s: string): number | null {
  for (let i = 0; i < s.length; i++) {
    const c = s[i] as string;
    if (CJK_END.has(c)) return i + 1;
    if (END.has(c)) {
      // a run of ?!. ends together ("Really?!")
      let j = i + 1;
      while (j < s.length && END.has(s[j] as string)) j++;
      if (j === s.length || /\s/.test(s[j] as string)) return j;
      i = j - 1;
    }
  }
  return null;
}

/** Cuts a reply into chunks as its text streams in. */
export class TextChunker {
  private buf = '';

  constructor(private readonly policy: ChunkPolicy) {}

  /** Add a delta; returns the chunks it completed, in order (usually none or one). */
  push(delta: string): string[] {
    this.buf += delta;
    const out: string[] = [];
    for (;;) {
      const cut = this.cutAt();
      if (cut === null) break;
      const chunk = this.buf.slice(0, cut).trim();
      this.buf = this.buf.slice(cut);
      if (chunk) out.push(chunk);
    }
    return out;
  }

  /** The stream ended: the rest, when it has any text. */
  flush(): string[] {
    const rest = this.buf.trim();
    this.buf = '';
    return rest ? [rest] : [];
  }

  private cutAt(): number | null {
    const p = this.policy;
    if (p.kind === 'whole') return null;
    if (p.kind === 'sentence') return sentenceEnd(this.buf);
    const chars = [...this.buf];
    if (chars.length < p.n) return null;
    const head = chars.slice(0, p.n).join('');
    const ws = head.search(/\s\S*$/);
    return ws > 0 ? ws + 1 : head.length;
  }
}
