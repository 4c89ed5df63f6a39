/**
 * Gate checks, group 7 "reasoning" (docs/gate.md): with thinking enabled, the field that carries
 * the reasoning (`reasoning_content` or `reasoning`), streamed and not, must be the old version's.
 * A rename or a removal is reported as breaking: clients read one name.
 */

import { readChat, reasoningFieldOf } from '../chat-view.js';
import { evidenceOf, exchange } from '../http.js';
import { fail, pass, skipped } from '../result.js';
import type { Check } from '../types.js';
import { each, userChat } from './shared.js';

const fieldName = each('7.1', 'reasoning.field-name', true, {
  async run(target, ctx) {
    const observed: Record<string, string | null> = {};
    const evidence = [];
    for (const stream of [true, false]) {
      const x = await exchange(
        target,
        ctx,
        userChat('What is 17 * 23? Answer with the number.', {
          max_tokens: 256,
          temperature: 0,
          stream,
          chat_template_kwargs: { enable_thinking: true },
        }),
      );
      if (x.status !== 200)
        return fail(
          ctx.t('gate.request.failed', { status: x.status ?? '-', error: x.result.record.error ?? '' }),
          [evidenceOf(x, ctx.t('gate.evidence.response'))],
        );
      observed[stream ? 'stream' : 'body'] = reasoningFieldOf(readChat(x));
      evidence.push(evidenceOf(x, ctx.t(stream ? 'gate.evidence.stream' : 'gate.evidence.body')));
    }
    if (observed.stream === null && observed.body === null)
      return skipped(ctx.t('gate.reasoning.none'), [], observed);
    if (observed.stream !== observed.body)
      return fail(
        ctx.t('gate.reasoning.inconsistent', {
          stream: String(observed.stream),
          body: String(observed.body),
        }),
        evidence,
        observed,
      );
    return pass(observed.stream, evidence.slice(0, 1));
  },
  judge(old, next, ctx) {
    // the old version reasoned: the new one must, in the same field (a removal is a rename to nothing)
    if (old.status !== 'pass') return next;
    const was = String(old.observed);
    if (next.status === 'skipped' || (next.status === 'pass' && next.observed !== old.observed)) {
      const now = next.status === 'pass' ? String(next.observed) : 'none';
      return {
        status: 'fail',
        reason: ctx.t('gate.reasoning.breaking', { old: was, new: now }),
        observed: next.observed ?? null,
        evidence: [...old.evidence, ...next.evidence],
      };
    }
    return next;
  },
});

export const checks: Check[] = [fieldName];
