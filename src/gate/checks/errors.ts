/**
 * Gate checks, group 2 "errors" (docs/gate.md): bad requests get a 4xx in OpenAI's error shape
 * (vLLM's older flat `{"object": "error"}` is read as one too), never a 5xx or a 200; and a
 * structured-output key that is accepted must constrain the output, proved against a control
 * request without it.
 */

import { engineFromOwnedBy, type ServerEngine } from '../../core/models.js';
import { isErrorShape } from '../chat-view.js';
import { type CallResult, call, evidenceOf, exchange } from '../http.js';
import { fail, pass, skipped } from '../result.js';
import type { Check, CheckContext, Evidence, GateTarget } from '../types.js';
import {
  CONSTRAINT_SCHEMA,
  CONTROL_PROMPT,
  conforms,
  each,
  makeValidator,
  modelEntry,
  userChat,
} from './shared.js';

/** A 4xx with an error body; what it was otherwise. */
function errorVerdict(r: CallResult): 'ok' | 'status' | 'shape' {
  if (r.status === null || r.status < 400 || r.status >= 500) return 'status';
  return isErrorShape(r.json) ? 'ok' : 'shape';
}

async function expect4xx(
  target: GateTarget,
  ctx: CheckContext,
  cases: { name: string; body: string | Record<string, unknown> }[],
) {
  const observed: Record<string, number | null> = {};
  const evidence: Evidence[] = [];
  const bad: string[] = [];
  for (const c of cases) {
    const r = await call(target, ctx, 'POST', '/chat/completions', { body: c.body });
    observed[c.name] = r.status;
    const v = errorVerdict(r);
    if (v !== 'ok') {
      bad.push(
        ctx.t(v === 'status' ? 'gate.errors.status' : 'gate.errors.shape', {
          case: c.name,
          status: r.status ?? r.error ?? '-',
        }),
      );
      evidence.push(evidenceOf(r, c.name, c.body));
    }
  }
  return bad.length ? fail(bad.join('; '), evidence, observed) : pass(observed);
}

const malformed = each('2.1', 'errors.malformed-body', true, {
  run: (target, ctx) => {
    const ok = { model: target.model, messages: [{ role: 'user', content: 'Hi' }] };
    return expect4xx(target, ctx, [
      { name: 'truncated-json', body: `{"model": ${JSON.stringify(target.model)}, "messages": [` },
      { name: 'json-array', body: '[]' },
      { name: 'no-messages', body: { model: target.model } },
      { name: 'max_tokens-string', body: { ...ok, max_tokens: 'ten' } },
      { name: 'max_tokens-negative', body: { ...ok, max_tokens: -1 } },
      { name: 'messages-not-list', body: { ...ok, messages: 'Hi' } },
    ]);
  },
});

const unknownModel = each('2.2', 'errors.unknown-model', true, {
  run: (target, ctx) =>
    expect4xx(target, ctx, [
      {
        name: 'unknown-model',
        body: {
          model: 'servelab-gate-no-such-model',
          messages: [{ role: 'user', content: 'Hi' }],
          max_tokens: 4,
        },
      },
    ]),
});

const schemaLess = each('2.3', 'errors.schema-less-json-schema', true, {
  run: (target, ctx) =>
    expect4xx(target, ctx, [
      {
        name: 'json_schema-without-schema',
        body: {
          model: target.model,
          messages: [{ role: 'user', content: 'Hi' }],
          max_tokens: 4,
          response_format: { type: 'json_schema', json_schema: { name: 'answer' } },
        },
      },
    ]),
});

/**
 * The constraint keys engines have accepted for JSON output: OpenAI's `response_format`, vLLM's
 * `guided_json` (before 0.11) and `structured_outputs` (0.10.2 on).
 */
const CONSTRAINT_KEYS: Record<string, (schema: object) => Record<string, unknown>> = {
  response_format: (schema) => ({
    response_format: { type: 'json_schema', json_schema: { name: 'rated', schema, strict: true } },
  }),
  guided_json: (schema) => ({ guided_json: schema }),
  structured_outputs: (schema) => ({ structured_outputs: { json: schema } }),
};

/**
 * The engines that claim each key beyond OpenAI's: vLLM's own keys are held against vLLM (and
 * servelab's simulator, which answers as vLLM), never against llama.cpp or SGLang, which never
 * documented them (llama.cpp takes `response_format` and its own `json_schema`,
 * `ggml-org/llama.cpp:tools/server/README.md`; SGLang `response_format`, `json_schema`, `regex`,
 * `ebnf`, `sgl-project/sglang:docs/advanced_features/structured_outputs.ipynb`). A server whose
 * `owned_by` names no engine is held to all of them.
 */
const CLAIMED_BY: Record<string, readonly ServerEngine[]> = {
  guided_json: ['vllm', 'servelab-sim'],
  structured_outputs: ['vllm', 'servelab-sim'],
};

/** Whether `engine` (null: not told) claims constraint `key`. */
function claims(key: string, engine: ServerEngine | null): boolean {
  const by = CLAIMED_BY[key];
  return by === undefined || engine === null || by.includes(engine);
}

const ignoredConstraint = each('2.4', 'errors.ignored-constraint', true, {
  async run(target, ctx) {
    const validate = makeValidator(CONSTRAINT_SCHEMA);
    const base = { max_tokens: 64, temperature: 0 };
    const control = await exchange(target, ctx, userChat(CONTROL_PROMPT, base));
    if (control.status !== 200)
      return fail(
        ctx.t('gate.request.failed', {
          status: control.status ?? '-',
          error: control.result.record.error ?? '',
        }),
        [evidenceOf(control, ctx.t('gate.evidence.control'))],
      );
    if (conforms(control, validate))
      return skipped(ctx.t('gate.constraint.control-conforms'), [
        evidenceOf(control, ctx.t('gate.evidence.control')),
      ]);
    const observed: Record<string, string> = {};
    const evidence: Evidence[] = [];
    const engine = engineFromOwnedBy((await modelEntry(target, ctx))?.owned_by as string | undefined);
    for (const [key, body] of Object.entries(CONSTRAINT_KEYS)) {
      if (!claims(key, engine)) {
        observed[key] = 'not claimed';
        evidence.push({ note: ctx.t('gate.constraint.not-claimed', { key, engine: engine ?? '-' }) });
        continue;
      }
      const x = await exchange(
        target,
        ctx,
        userChat(CONTROL_PROMPT, { ...base, ...body(CONSTRAINT_SCHEMA) }),
      );
      if (x.status !== null && x.status >= 400 && x.status < 500) observed[key] = 'rejected';
      else if (x.status === 200) observed[key] = conforms(x, validate) ? 'honoured' : 'ignored';
      else observed[key] = `HTTP ${x.status ?? '-'}`;
      if (observed[key] !== 'honoured' && observed[key] !== 'rejected')
        evidence.push(evidenceOf(x, ctx.t('gate.constraint.key', { key, verdict: observed[key] })));
    }
    const ignored = Object.keys(observed).filter(
      (k) => observed[k] !== 'honoured' && observed[k] !== 'rejected' && observed[k] !== 'not claimed',
    );
    if (ignored.length > 0) {
      evidence.push(evidenceOf(control, ctx.t('gate.evidence.control')));
      return fail(ctx.t('gate.constraint.ignored', { keys: ignored.join(', ') }), evidence, observed);
    }
    if (observed.response_format !== 'honoured')
      return skipped(ctx.t('gate.constraint.none'), evidence, observed);
    return pass(observed);
  },
});

export const checks: Check[] = [malformed, unknownModel, schemaLess, ignoredConstraint];
