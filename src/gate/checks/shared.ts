/**
 * What several check groups share: a chat body with one user message, a per-target memo so that
 * checks reading the same answer send it once per gate pass, and the target's `/v1/models` entry.
 */
import { Ajv } from 'ajv';
import type { MessageKey } from '../../i18n/index.js';
import { parseJson, readChat } from '../chat-view.js';
import { call, type Exchange, listModelsCall } from '../http.js';
import {
  CHECK_GROUPS,
  type CheckContext,
  type CheckGroup,
  type EachCheck,
  type GateTarget,
} from '../types.js';

/**
 * An {@link EachCheck} from its number, id and probe flag and its `run` (and `judge`); the title
 * is the catalogue's `gate.check.<id>`, the group the id's first part (one of {@link CHECK_GROUPS}).
 */
export function each<I extends TitledId>(
  number: string,
  id: I,
  probe: boolean,
  impl: Pick<EachCheck, 'run'> & Partial<Pick<EachCheck, 'judge'>>,
): EachCheck {
  const group = id.split('.')[0] as CheckGroup;
  if (!CHECK_GROUPS.includes(group)) throw new Error(`check ${id}: unknown group ${group}`);
  return { kind: 'each', id, number, group, title: `gate.check.${id}` as MessageKey, probe, ...impl };
}

/** The check ids whose title is in the catalogue as `gate.check.<id>` (checked by the compiler). */
type TitledId = MessageKey extends infer K ? (K extends `gate.check.${infer I}` ? I : never) : never;

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
    const r = await listModelsCall(target, ctx);
    const data = (r.json as { data?: unknown } | null)?.data;
    if (!Array.isArray(data)) return null;
    const entry = data.find((m) => (m as { id?: unknown }).id === target.model) ?? null;
    return entry as Record<string, unknown> | null;
  });
}

/** llama.cpp's `GET /props` answer (at the server root), parsed; null when it gives none. */
export function propsOf(target: GateTarget, ctx: CheckContext): Promise<unknown> {
  return once(target, 'props', async () => {
    const r = await call(target, ctx, 'GET', '/props', { root: true });
    return r.status === 200 ? r.json : null;
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
