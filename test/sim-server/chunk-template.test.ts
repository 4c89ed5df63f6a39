/**
 * Pre-serialised token chunks (`sim/server/chunk-template`) are byte for byte what serialising
 * `wire.ts`'s chunk object gives, for every shape the server templates.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { chunkTemplate, fillChunk } from '../../src/sim/server/chunk-template.js';
import {
  chatChunk,
  completionChunk,
  sglangChatChunk,
  sglangCompletionChunk,
  sseData,
} from '../../src/sim/server/wire.js';

const BUILDERS = {
  chat: chatChunk,
  completions: completionChunk,
  'sglang chat': sglangChatChunk,
  'sglang completions': sglangCompletionChunk,
};

const head = { id: 'chatcmpl-0123abcd', created: 1_700_000_000, model: 'llama "3.1" 8b' };
const texts = [' hello', '', 'quote " back \\ slash', 'new\nline', 'ünï 中文 \u0001', '\u2028'];

describe('chunk templates', () => {
  for (const [kind, build] of Object.entries(BUILDERS))
    for (const field of [undefined, 'reasoning_content'])
      for (const stamped of [false, true])
        it(`${kind}, field ${field ?? 'content'}, ${stamped ? 'stamped' : 'no stamp'}: same bytes as sseData`, () => {
          const tpl = chunkTemplate(build, head, field, stamped);
          for (const text of texts) {
            const stamp = stamped ? { step: 17, planned_ms: 1234.5678, emit_ms: 1234.987654321 } : undefined;
            const body = { text, reasoningField: field, servelab: stamp ? { ...stamp } : undefined };
            const obj = build(head, body);
            assert.equal(fillChunk(tpl, text, stamp), sseData(obj));
          }
        });
});
