/**
 * @module gate/chat-view
 * One view of a chat answer, streamed or not: per choice its content, its reasoning (by field
 * name), its tool calls (stream deltas joined by index, as OpenAI's client joins them), its
 * finish reasons and its logprobs; plus the ids and the usage. The bytes were parsed by the
 * client (`client/stream`); this only reads the parsed events.
 */
import type { Exchange } from './http.js';

export interface ToolCallView {
  id: string | null;
  name: string;
  /** The arguments' text, as sent (joined from the deltas). */
  arguments: string;
}

export interface ChoiceView {
  index: number;
  content: string;
  /** Reasoning text per field that carried it (`reasoning_content`, `reasoning`). */
  reasoning: Record<string, string>;
  toolCalls: ToolCallView[];
  /** Every non-null finish_reason the choice carried (one, when the server is right). */
  finishReasons: string[];
  /** Logprob entries of the content tokens (`{token, logprob, top_logprobs}`). */
  logprobs: Record<string, unknown>[];
  /** The role of the choice's first delta or message (null: none given). */
  firstRole: string | null;
  /** A stream: the choice's first delta carried the role. */
  roleFirst: boolean;
}

export interface ChatView {
  choices: ChoiceView[];
  /** Distinct response ids seen. */
  ids: string[];
  usage: Record<string, unknown> | null;
  /** `[DONE]` came last (a stream), or the body was complete (non-stream). */
  done: boolean;
  /** Data events after `[DONE]`. */
  afterDone: number;
}

function choice(map: Map<number, ChoiceView>, index: number): ChoiceView {
  let c = map.get(index);
  if (!c) {
    c = {
      index,
      content: '',
      reasoning: {},
      toolCalls: [],
      finishReasons: [],
      logprobs: [],
      firstRole: null,
      roleFirst: false,
    };
    map.set(index, c);
  }
  return c;
}

const REASONING_FIELDS = ['reasoning_content', 'reasoning'] as const;

function addLogprobs(c: ChoiceView, lp: unknown): void {
  const content = (lp as { content?: unknown } | null)?.content;
  if (Array.isArray(content)) for (const e of content) if (e && typeof e === 'object') c.logprobs.push(e);
}

/** The view of an exchange's answer (stream events, or the JSON body). */
export function readChat(x: Exchange): ChatView {
  const map = new Map<number, ChoiceView>();
  const ids = new Set<string>();
  let usage: Record<string, unknown> | null = null;
  let done = false;
  let afterDone = 0;
  const seen = new Set<number>();
  if (x.events.length > 0) {
    for (const ev of x.events) {
      if (ev === '[DONE]') {
        done = true;
        continue;
      }
      if (done) afterDone++;
      if (ev === null || typeof ev !== 'object') continue;
      const o = ev as Record<string, unknown>;
      if (typeof o.id === 'string') ids.add(o.id);
      if (o.usage && typeof o.usage === 'object') usage = o.usage as Record<string, unknown>;
      for (const raw of Array.isArray(o.choices) ? o.choices : []) {
        const ch = raw as Record<string, unknown>;
        const index = typeof ch.index === 'number' ? ch.index : 0;
        const c = choice(map, index);
        const d = (ch.delta ?? {}) as Record<string, unknown>;
        if (!seen.has(index)) {
          seen.add(index);
          c.firstRole = typeof d.role === 'string' ? d.role : null;
          c.roleFirst = c.firstRole !== null;
        }
        if (typeof d.content === 'string') c.content += d.content;
        for (const f of REASONING_FIELDS)
          if (typeof d[f] === 'string' && d[f]) c.reasoning[f] = (c.reasoning[f] ?? '') + d[f];
        for (const tc of Array.isArray(d.tool_calls) ? d.tool_calls : []) {
          const t = tc as { index?: number; id?: string; function?: { name?: string; arguments?: string } };
          const i = typeof t.index === 'number' ? t.index : c.toolCalls.length;
          c.toolCalls[i] ??= { id: null, name: '', arguments: '' };
          const call = c.toolCalls[i];
          if (typeof t.id === 'string' && t.id) call.id = t.id;
          if (typeof t.function?.name === 'string') call.name += t.function.name;
          if (typeof t.function?.arguments === 'string') call.arguments += t.function.arguments;
        }
        if (typeof ch.finish_reason === 'string' && ch.finish_reason) c.finishReasons.push(ch.finish_reason);
        addLogprobs(c, ch.logprobs);
      }
    }
  } else if (x.json) {
    const o = x.json;
    if (typeof o.id === 'string') ids.add(o.id);
    if (o.usage && typeof o.usage === 'object') usage = o.usage as Record<string, unknown>;
    done = Array.isArray(o.choices);
    for (const raw of Array.isArray(o.choices) ? o.choices : []) {
      const ch = raw as Record<string, unknown>;
      const c = choice(map, typeof ch.index === 'number' ? ch.index : 0);
      const m = (ch.message ?? {}) as Record<string, unknown>;
      c.firstRole = typeof m.role === 'string' ? m.role : null;
      c.roleFirst = c.firstRole !== null;
      if (typeof m.content === 'string') c.content = m.content;
      if (typeof ch.text === 'string') c.content = ch.text;
      for (const f of REASONING_FIELDS) if (typeof m[f] === 'string' && m[f]) c.reasoning[f] = m[f] as string;
      for (const tc of Array.isArray(m.tool_calls) ? m.tool_calls : []) {
        const t = tc as { id?: string; function?: { name?: string; arguments?: string } };
        c.toolCalls.push({
          id: typeof t.id === 'string' ? t.id : null,
          name: t.function?.name ?? '',
          arguments: t.function?.arguments ?? '',
        });
      }
      if (typeof ch.finish_reason === 'string' && ch.finish_reason) c.finishReasons.push(ch.finish_reason);
      addLogprobs(c, ch.logprobs);
    }
  }
  const choices = [...map.values()].sort((a, b) => a.index - b.index);
  for (const c of choices) c.toolCalls = c.toolCalls.filter(Boolean);
  return { choices, ids: [...ids], usage, done, afterDone };
}

/** The reasoning field a view used (the first that carried text), or null. */
export function reasoningFieldOf(v: ChatView): string | null {
  for (const c of v.choices) for (const f of REASONING_FIELDS) if (c.reasoning[f]) return f;
  return null;
}

/** Parse a JSON text; undefined when it is not JSON. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** OpenAI's error shape (`{"error": {"message": …}}`), or vLLM's flat one (`{"object": "error", "message": …}`). */
export function isErrorShape(json: unknown): boolean {
  if (json === null || typeof json !== 'object') return false;
  const o = json as Record<string, unknown>;
  const e = o.error as Record<string, unknown> | undefined;
  if (e && typeof e === 'object' && typeof e.message === 'string') return true;
  return o.object === 'error' && typeof o.message === 'string';
}
