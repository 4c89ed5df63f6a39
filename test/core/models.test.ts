/**
 * @module test/core/models
 * One reading of `/v1/models` for run, check and exp: the fields servelab uses, entries
 * without an id skipped, and the engine an `owned_by` names.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { engineFromOwnedBy, parseModelList } from '../../src/core/models.js';

describe('core/models', () => {
  it('parseModelList reads id, owned_by, max_model_len, root and parent; skips entries without an id', () => {
    const body = {
      object: 'list',
      data: [
        { object: 'model', owned_by: 'vllm' },
        { id: 7 },
        null,
        { id: 'Qwen/Qwen3-8B', owned_by: 'vllm', max_model_len: 40960, root: 'Qwen/Qwen3-8B', parent: null },
        { id: 'lora', parent: 'Qwen/Qwen3-8B' },
      ],
    };
    assert.deepEqual(parseModelList(body), [
      { id: 'Qwen/Qwen3-8B', owned_by: 'vllm', max_model_len: 40960, root: 'Qwen/Qwen3-8B', parent: null },
      { id: 'lora', owned_by: null, max_model_len: null, root: null, parent: 'Qwen/Qwen3-8B' },
    ]);
    for (const odd of [null, 'x', [], { data: {} }, { data: 'x' }]) assert.deepEqual(parseModelList(odd), []);
  });

  it('engineFromOwnedBy names the engines servelab knows, case-insensitively', () => {
    assert.equal(engineFromOwnedBy('vllm'), 'vllm');
    assert.equal(engineFromOwnedBy('SGLang'), 'sglang');
    assert.equal(engineFromOwnedBy('llamacpp'), 'llama.cpp');
    assert.equal(engineFromOwnedBy('llama.cpp'), 'llama.cpp');
    assert.equal(engineFromOwnedBy('servelab-sim'), 'servelab-sim');
    assert.equal(engineFromOwnedBy('servelab'), 'servelab-sim');
    for (const none of ['openai', 'constructor', 'toString', '', null, undefined])
      assert.equal(engineFromOwnedBy(none), null, String(none));
  });
});
