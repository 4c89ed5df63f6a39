/**
 * @module workload/files
 * Parsers for the file prompt sources: prompts JSONL and ShareGPT JSON (traces are in
 * `workload/traces`, which shares the JSONL reading here). They take
 * the file's text (reading is the caller's job) and return the entries plus every problem found,
 * each with its line number, so a user fixes a file in one pass.
 */
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import type { Problem } from '../core/errors.js';
import type { ChatMessage } from './types.js';

/** Reads a whole text file (UTF-8). Injected so tests can pass strings. */
export type ReadText = (path: string) => Promise<string>;

/** The default {@link ReadText}: `node:fs/promises`. */
export const readTextFile: ReadText = (path) => readFile(path, 'utf8');

/**
 * A file's bytes as UTF-8 text, as `readFile(path, 'utf8')` decodes them (each undecodable byte
 * becomes U+FFFD), and the offset of the first byte that is not valid UTF-8 (null: none). A
 * Latin-1 or cut file is altered by decoding; the caller warns with the offset.
 */
export function decodeUtf8(bytes: Uint8Array): { text: string; badAt: number | null } {
  const text = new TextDecoder('utf-8', { fatal: false }).decode(bytes);
  if (!text.includes('\uFFFD')) return { text, badAt: null };
  // The text may hold U+FFFD itself (EF BF BD): find the first byte the strict decoder refuses.
  const strict = new TextDecoder('utf-8', { fatal: true });
  let lo = 0;
  let hi = bytes.length;
  try {
    strict.decode(bytes);
    return { text, badAt: null };
  } catch {
    // Below: the longest valid prefix, by bisection (a prefix cut inside a character is tested
    // with the stream flag, so an incomplete last character is not an error).
  }
  while (hi - lo > 1) {
    const mid = (lo + hi) >>> 1;
    try {
      new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(0, mid), { stream: true });
      lo = mid;
    } catch {
      hi = mid;
    }
  }
  // The first bad byte is the start of the sequence the prefix ends inside, if it ends in one.
  let start = lo;
  for (let k = lo - 1; k >= Math.max(0, lo - 3); k--) {
    if ((bytes[k] & 0xc0) === 0x80) continue;
    if ((bytes[k] & 0xc0) === 0xc0) start = k;
    break;
  }
  return { text, badAt: start };
}

/** {@link readTextFile}, calling `onBad` with the path and the first bad byte's offset of a file that is not UTF-8. */
export function readCheckedText(onBad: (path: string, offset: number) => void): ReadText {
  return async (path) => {
    const { text, badAt } = decodeUtf8(await readFile(path));
    if (badAt !== null) onBad(path, badAt);
    return text;
  };
}

/** One line of a prompts file. */
export interface PromptEntry {
  prompt?: string;
  messages?: ChatMessage[];
  /** Tokens; null = the run's default. */
  output_len: number | null;
}

/** One usable ShareGPT conversation: the first human turn and the reply that follows it. */
export interface ShareGptPair {
  prompt: string;
  reply: string;
}

const messageSchema = z.object({ role: z.string().min(1), content: z.string() });
const outputLenSchema = z.number().int().min(1).nullable().optional();
export const promptLineSchema = z.object({
  prompt: z.string().min(1).optional(),
  messages: z.array(messageSchema).min(1).optional(),
  output_len: outputLenSchema,
});

const PROMPTS_HINT =
  'each line is {"prompt": "..."} or {"messages": [{"role": "user", "content": "..."}]}, with an optional "output_len"';

/** Parse JSONL into objects, one problem per line that is not a JSON object. Blank lines are skipped. */
export function jsonLines(
  text: string,
  path: string,
  hint: string,
): { rows: { line: number; value: unknown }[]; problems: Problem[] } {
  const rows: { line: number; value: unknown }[] = [];
  const problems: Problem[] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i].trim();
    if (raw === '') continue;
    try {
      const value: unknown = JSON.parse(raw);
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        problems.push({ path: `${path}:${i + 1}`, message: 'not a JSON object', hint });
      } else rows.push({ line: i + 1, value });
    } catch (e) {
      problems.push({ path: `${path}:${i + 1}`, message: `invalid JSON (${(e as Error).message})`, hint });
    }
  }
  return { rows, problems };
}

/** One problem per zod issue, at `where`. */
export function zodProblems(where: string, issues: readonly z.core.$ZodIssue[], hint: string): Problem[] {
  return issues.map((iss) => ({
    path: where,
    message: iss.path.length ? `${iss.path.join('.')}: ${iss.message}` : iss.message,
    hint,
  }));
}

/** The text part of a line: exactly one of prompt/messages (or, for a trace, input_len). */
export function pickText(
  v: { prompt?: string; messages?: ChatMessage[]; input_len?: number },
  where: string,
  hint: string,
  allowInputLen: boolean,
): Problem | undefined {
  const given = [
    v.prompt !== undefined,
    v.messages !== undefined,
    allowInputLen && v.input_len !== undefined,
  ].filter(Boolean).length;
  const names = allowInputLen ? '"input_len", "prompt" or "messages"' : '"prompt" or "messages"';
  if (given === 0) return { path: where, message: `needs ${names}`, hint };
  if (given > 1) return { path: where, message: `give only one of ${names}`, hint };
  return undefined;
}

/**
 * Parse a prompts file: one `{"prompt"}` or `{"messages"}` object per line, optional `output_len`.
 * @param path the file name, used in problems as `path:LINE`.
 */
export function parsePromptsJsonl(
  text: string,
  path: string,
): { entries: PromptEntry[]; problems: Problem[] } {
  const { rows, problems } = jsonLines(text, path, PROMPTS_HINT);
  const entries: PromptEntry[] = [];
  for (const { line, value } of rows) {
    const where = `${path}:${line}`;
    const r = promptLineSchema.safeParse(value);
    if (!r.success) {
      problems.push(...zodProblems(where, r.error.issues, PROMPTS_HINT));
      continue;
    }
    const p = pickText(r.data, where, PROMPTS_HINT, false);
    if (p) {
      problems.push(p);
      continue;
    }
    entries.push({ prompt: r.data.prompt, messages: r.data.messages, output_len: r.data.output_len ?? null });
  }
  if (entries.length === 0 && problems.length === 0)
    problems.push({ path, message: 'the file has no prompts', hint: PROMPTS_HINT });
  problems.sort(byLine);
  return { entries, problems };
}

const HUMAN = new Set(['human', 'user']);
const ASSISTANT = new Set(['gpt', 'assistant', 'chatgpt', 'bing', 'bard', 'model']);
const SHAREGPT_HINT =
  'expected the ShareGPT JSON used by vLLM/SGLang benchmarks: [{"conversations": [{"from": "human", "value": "..."}, {"from": "gpt", "value": "..."}]}, ...]';

/**
 * Parse a ShareGPT file. Each entry gives its first human turn and the assistant reply right after
 * it; entries without such a pair are skipped and counted, as vLLM skips entries with fewer than
 * two turns.
 */
export function parseShareGpt(
  text: string,
  path: string,
): { pairs: ShareGptPair[]; malformed: number; problems: Problem[] } {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    return {
      pairs: [],
      malformed: 0,
      problems: [{ path, message: `invalid JSON (${(e as Error).message})`, hint: SHAREGPT_HINT }],
    };
  }
  if (!Array.isArray(data))
    return {
      pairs: [],
      malformed: 0,
      problems: [{ path, message: 'the top level is not an array', hint: SHAREGPT_HINT }],
    };
  const pairs: ShareGptPair[] = [];
  let malformed = 0;
  for (const entry of data) {
    const pair = sharegptPair(entry);
    if (pair) pairs.push(pair);
    else malformed++;
  }
  const problems: Problem[] =
    pairs.length === 0
      ? [
          {
            path,
            message: `no entry has a human turn followed by an assistant reply (${data.length} entries)`,
            hint: SHAREGPT_HINT,
          },
        ]
      : [];
  return { pairs, malformed, problems };
}

function sharegptPair(entry: unknown): ShareGptPair | undefined {
  const conv = (entry as { conversations?: unknown } | null)?.conversations;
  if (!Array.isArray(conv)) return undefined;
  const i = conv.findIndex((t) => HUMAN.has(String(t?.from)) && typeof t?.value === 'string');
  if (i < 0 || i + 1 >= conv.length) return undefined;
  const reply = conv[i + 1];
  if (!ASSISTANT.has(String(reply?.from)) || typeof reply?.value !== 'string') return undefined;
  return { prompt: conv[i].value, reply: reply.value };
}

/** Orders problems by the line number at the end of their path. */
export function byLine(a: Problem, b: Problem): number {
  return lineOf(a) - lineOf(b);
}

function lineOf(p: Problem): number {
  const m = /:(\d+)$/.exec(p.path ?? '');
  return m ? Number(m[1]) : 0;
}
