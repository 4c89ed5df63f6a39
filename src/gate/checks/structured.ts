/**
 * Gate checks, group 5 "structured" (docs/gate.md): `response_format: json_schema` output
 * validates against its schema (ajv) in every mode while a control arm without the constraint
 * does not; an invalid schema is a 400; a reasoning model keeps its reasoning out of the JSON;
 * and 64 concurrent schema requests sharing a prefix give no 5xx and hit the prefix cache.
 */
import { normalize } from '../../monitor/maps.js';
import { parsePrometheusText } from '../../monitor/prom-parse.js';
import { readChat, reasoningFieldOf } from '../chat-view.js';
import { call, type Exchange, evidenceOf, exchange } from '../http.js';
import { fail, pass, skipped } from '../result.js';
import type { Check, CheckContext, Evidence, GateTarget } from '../types.js';
import { CONSTRAINT_SCHEMA, CONTROL_PROMPT, conforms, each, makeValidator, userChat } from './shared.js';

function rf(schema: object, strict = true): Record<string, unknown> {
  return { response_format: { type: 'json_schema', json_schema: { name: 'rated', schema, strict } } };
}

/** 5.1: valid in all four modes (T=0 and sampled, stream and not); the control arm is not. */
const valid = each('5.1', 'structured.json-schema-valid', true, {
  async run(target, ctx) {
    const validate = makeValidator(CONSTRAINT_SCHEMA);
    const modes: { name: string; body: Record<string, unknown> }[] = [];
    for (const stream of [false, true])
      for (const temperature of [0, 1])
        modes.push({
          name: `${stream ? 'stream' : 'body'}/T=${temperature}`,
          body: { max_tokens: 64, temperature, seed: ctx.seed, stream },
        });
    const control = await exchange(target, ctx, userChat(CONTROL_PROMPT, modes[0].body));
    if (control.status === 200 && conforms(control, validate))
      return skipped(ctx.t('gate.constraint.control-conforms'), [
        evidenceOf(control, ctx.t('gate.evidence.control')),
      ]);
    const bad: string[] = [];
    const evidence: Evidence[] = [];
    let ok = 0;
    for (const m of modes) {
      const x = await exchange(
        target,
        ctx,
        userChat(CONTROL_PROMPT, { ...m.body, ...rf(CONSTRAINT_SCHEMA) }),
      );
      if (x.status !== null && x.status >= 400 && x.status < 500 && m === modes[0])
        return skipped(ctx.t('gate.structured.unsupported', { status: x.status }), [
          evidenceOf(x, ctx.t('gate.evidence.response')),
        ]);
      if (x.status === 200 && conforms(x, validate)) ok++;
      else {
        bad.push(m.name);
        evidence.push(evidenceOf(x, m.name));
      }
    }
    if (bad.length > 0) {
      evidence.push(evidenceOf(control, ctx.t('gate.evidence.control')));
      return fail(
        ctx.t('gate.structured.invalid', { modes: bad.join(', '), ok, total: modes.length }),
        evidence,
        {
          valid: ok,
          total: modes.length,
        },
      );
    }
    return pass({ valid: ok, total: modes.length });
  },
});

/** 5.2: a schema that is not a JSON Schema gets a 4xx, not a 5xx or an unconstrained 200. */
const invalidSchema = each('5.2', 'structured.invalid-schema', true, {
  async run(target, ctx) {
    const x = await exchange(
      target,
      ctx,
      userChat('Hi', {
        max_tokens: 8,
        ...rf({ type: 'object', properties: { a: { type: 'no-such-type' } } }),
      }),
    );
    if (x.status !== null && x.status >= 400 && x.status < 500) return pass(x.status);
    return fail(
      ctx.t('gate.structured.invalid-schema.fail', { status: x.status ?? x.result.record.error ?? '-' }),
      [evidenceOf(x, ctx.t('gate.evidence.response'))],
    );
  },
});

/** 5.3: with thinking on, the JSON is in `content` and the reasoning in its own field. */
const reasoningSeparate = each('5.3', 'structured.reasoning-separate', true, {
  async run(target, ctx) {
    const validate = makeValidator(CONSTRAINT_SCHEMA);
    const x = await exchange(
      target,
      ctx,
      userChat(CONTROL_PROMPT, {
        max_tokens: 1024,
        temperature: 0,
        stream: true,
        chat_template_kwargs: { enable_thinking: true },
        ...rf(CONSTRAINT_SCHEMA),
      }),
    );
    const v = readChat(x);
    const field = reasoningFieldOf(v);
    if (x.status !== 200 || field === null)
      return skipped(ctx.t('gate.reasoning.none'), [evidenceOf(x, ctx.t('gate.evidence.stream'))]);
    const content = v.choices[0]?.content ?? '';
    if (!conforms(x, validate) || /<think>|<\/think>/.test(content))
      return fail(ctx.t('gate.structured.reasoning-mixed', { field, content: content.slice(0, 80) }), [
        evidenceOf(x, ctx.t('gate.evidence.stream')),
      ]);
    return pass(field);
  },
});

async function scrape(target: GateTarget, ctx: CheckContext) {
  const r = await call(target, ctx, 'GET', '/metrics', { root: true });
  if (r.status !== 200) return null;
  const { samples } = parsePrometheusText(r.text);
  const byName = new Map<string, number>();
  for (const s of samples)
    if (Number.isFinite(s.value)) byName.set(s.name, (byName.get(s.name) ?? 0) + s.value);
  return { norm: normalize(samples), byName };
}

/** 5.4: 64 concurrent schema requests with a shared prefix: no 5xx, prefix-cache hits (and draft tokens) > 0. */
const concurrent = each('5.4', 'structured.concurrent-prefix', false, {
  async run(target, ctx) {
    const before = await scrape(target, ctx);
    const prefix = `You rate sentences. ${'Rules: answer in JSON with an answer and a score. '.repeat(40)}`;
    const xs: Exchange[] = await Promise.all(
      Array.from({ length: 64 }, (_, i) =>
        exchange(target, ctx, {
          messages: [
            { role: 'system', content: prefix },
            { role: 'user', content: `Sentence ${i}: the sea is wide.` },
          ],
          max_tokens: 32,
          temperature: 0,
          ...rf(CONSTRAINT_SCHEMA),
        }),
      ),
    );
    const after = await scrape(target, ctx);
    const errors5xx = xs.filter((x) => x.status === null || x.status >= 500);
    const observed: Record<string, unknown> = { requests: 64, errors_5xx: errors5xx.length };
    const evidence: Evidence[] = errors5xx
      .slice(0, 3)
      .map((x) => evidenceOf(x, ctx.t('gate.evidence.response')));
    if (errors5xx.length > 0)
      return fail(ctx.t('gate.structured.concurrent-5xx', { count: errors5xx.length }), evidence, observed);
    if (before === null || after === null) return skipped(ctx.t('gate.metrics.none'), [], observed);
    const hitsBefore = before.norm.prefix_hits_total;
    const hitsAfter = after.norm.prefix_hits_total;
    if (hitsBefore === undefined || hitsAfter === undefined)
      return skipped(ctx.t('gate.structured.no-prefix-metric'), [], observed);
    observed.prefix_hits = hitsAfter - hitsBefore;
    if (!(hitsAfter - hitsBefore > 0)) return fail(ctx.t('gate.structured.no-prefix-hits'), [], observed);
    // Speculative decoding's draft-token counter, read through the metric map (monitor/maps:
    // vLLM's `vllm:spec_decode_num_draft_tokens_total`, llama.cpp's `llamacpp:spec_decode_*`).
    const draftsAfter = after.norm.spec_draft_tokens_total;
    if (draftsAfter !== undefined) {
      const drafts = draftsAfter - (before.norm.spec_draft_tokens_total ?? 0);
      observed.draft_tokens = drafts;
      if (!(drafts > 0)) return fail(ctx.t('gate.structured.no-drafts'), [], observed);
    }
    return pass(observed);
  },
});

export const checks: Check[] = [valid, invalidSchema, reasoningSeparate, concurrent];
