/**
 * What several check groups share: a chat body with one user message, a per-target memo so that
 * checks reading the same answer send it once per gate pass, and the target's `/v1/models` entry.
 */
import { Ajv } from 'ajv';
import { call, type Exchange } from '../http.js';
import type { CheckContext, GateTarget } from '../types.js';
import { parseJson, readChat } from '../wire.js';

const memo = new WeakMap<GateTarget, Map<string, Promise<unknown>>>();

/**
 * `fn()` once per target object and key. The gate makes fresh target objects for every pass
 * (each `--probe` round), so a memo never outlives one pass.
 */
export function once<R>(target: GateTarget, key: string, fn: () => Promise<R>): Promise<R> {
  let m = memo.get(target);
  if (!m) {
    m = new Map();
    memo.set(target, m);
  }
  let p = m.get(key) as Promise<R> | undefined;
  if (!p) {
    p = fn();
    m.set(key, p);
  }
  return p;
}

/** A chat body: one user message plus `extra` fields. */
export function userChat(content: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { messages: [{ role: 'user', content }], ...extra };
}

/** The served model's `/v1/models` entry (null when the list or the model is missing). */
export function modelEntry(target: GateTarget, ctx: CheckContext): Promise<Record<string, unknown> | null> {
  return once(target, 'models', async () => {
    const r = await call(target, ctx, 'GET', '/models');
    const data = (r.json as { data?: unknown } | null)?.data;
    if (!Array.isArray(data)) return null;
    const entry = data.find((m) => (m as { id?: unknown }).id === target.model) ?? null;
    return entry as Record<string, unknown> | null;
  });
}

/** The schema the constraint checks ask for: an answer no free text happens to satisfy. */
export const CONSTRAINT_SCHEMA = {
  type: 'object',
  properties: { answer: { type: 'string' }, score: { type: 'integer', minimum: 0, maximum: 10 } },
  required: ['answer', 'score'],
  additionalProperties: false,
} as const;

/** A prompt whose free answer is prose, not JSON: the control arm. */
export const CONTROL_PROMPT = 'Write one sentence about the sea, then rate it from 0 to 10.';

const ajv = new Ajv({ strict: false, allErrors: false });

/** A validator for `schema` (ajv). */
export function makeValidator(schema: object): (v: unknown) => boolean {
  const validate = ajv.compile(schema);
  return (v) => validate(v) === true;
}

/** The content of the first choice parses and validates. */
export function conforms(x: Exchange, validate: (v: unknown) => boolean): boolean {
  const text = readChat(x).choices[0]?.content ?? '';
  const v = parseJson(text);
  return v !== undefined && validate(v);
}
