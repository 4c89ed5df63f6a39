/**
 * @module sim/server/chunk-template
 * Pre-serialised SSE text for the one chunk a stream sends on almost every step: a token with no
 * finish reason, no usage and (with `--expose-timings`) the `servelab` stamp. At 2,000 streams the
 * server writes ~30k such chunks a second, and building the chunk object and `JSON.stringify`-ing
 * it was most of the time between a step's first and last write (docs/bench.md, sim-real).
 *
 * The template is made once per response by serialising the chunk that `wire.ts` builds, with
 * sentinel strings where the token text and the stamp's numbers go, and cutting the JSON at the
 * sentinels. So the field names and their order stay `wire.ts`'s alone: a change there changes
 * every template with it, and the bytes are identical to serialising the object (checked by
 * test/sim-server/chunk-template.test.ts).
 */
import type { ChunkBody, ChunkHead } from './wire.js';

/** A `wire.ts` chunk builder (`chatChunk`, `completionChunk`, `sglangChatChunk`, …). */
export type ChunkBuilder = (head: ChunkHead, body: ChunkBody) => Record<string, unknown>;

/** Placeholders no token text contains; {@link cut} looks for their JSON-quoted form. */
const TEXT = '\u0001servelab:text\u0001';
const STEP = '\u0001servelab:step\u0001';
const PLANNED = '\u0001servelab:planned\u0001';
const EMIT = '\u0001servelab:emit\u0001';

/** The SSE text of a plain token chunk, cut where the variable parts go. */
export interface ChunkTemplate {
  /** `data: {…` up to the token text (a JSON string is spliced in next). */
  readonly beforeText: string;
  /** Without stamps: the rest (`…}\n\n`); with stamps: up to the step number. */
  readonly afterText: string;
  /** With stamps only: between step and planned_ms, between planned_ms and emit_ms, and the end. */
  readonly stamped?: readonly [string, string, string];
}

/**
 * The template of a token chunk of one response.
 * @param build the builder the server uses for this response's chunks (endpoint and engine profile)
 * @param reasoningField chat only: put the text in this field instead of `content`
 * @param stamped whether chunks carry `servelab: {step, planned_ms, emit_ms}`
 */
export function chunkTemplate(
  build: ChunkBuilder,
  head: ChunkHead,
  reasoningField: string | undefined,
  stamped: boolean,
): ChunkTemplate {
  const body: ChunkBody = { text: TEXT };
  if (reasoningField) body.reasoningField = reasoningField;
  if (stamped) body.servelab = { step: STEP, planned_ms: PLANNED, emit_ms: EMIT };
  const json = `data: ${JSON.stringify(build(head, body))}\n\n`;
  const [beforeText, rest] = cut(json, TEXT);
  if (!stamped) return { beforeText, afterText: rest };
  const [afterText, r1] = cut(rest, STEP);
  const [a, r2] = cut(r1, PLANNED);
  const [b, c] = cut(r2, EMIT);
  return { beforeText, afterText, stamped: [a, b, c] };
}

/** `json` split around the quoted placeholder, which must occur exactly once. */
function cut(json: string, placeholder: string): [string, string] {
  const q = JSON.stringify(placeholder);
  const at = json.indexOf(q);
  if (at < 0 || json.indexOf(q, at + q.length) >= 0)
    throw new Error(`chunk template: placeholder ${q} not found exactly once`);
  return [json.slice(0, at), json.slice(at + q.length)];
}

/**
 * The SSE text of one token chunk: byte for byte what `sseData(chatChunk(…))` gives for the same
 * text and stamp.
 */
export function fillChunk(
  t: ChunkTemplate,
  text: string,
  stamp?: { step: number; planned_ms: number; emit_ms: number },
): string {
  const s = t.stamped;
  if (!s || !stamp) return t.beforeText + JSON.stringify(text) + t.afterText;
  // String(n) is JSON's number form for finite numbers (all a clock and a step counter give).
  return `${t.beforeText}${JSON.stringify(text)}${t.afterText}${stamp.step}${s[0]}${stamp.planned_ms}${s[1]}${stamp.emit_ms}${s[2]}`;
}
