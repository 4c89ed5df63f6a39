/**
 * `--model-config FILE`: a model given only by its Hugging Face config.json, through the CLI in
 * process (`plan`), an experiment file's `sim:` section, and the catalogue loader it shares with
 * `--catalogue`; a broken config.json is a usage error that lists every problem with a hint.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { UsageError } from '../../src/core/errors.js';
import { loadModelConfig, modelNameFromPath } from '../../src/sim/catalogue/index.js';
import { resolveEngineConfig } from '../../src/sim/engine/config.js';
import { simSettingsSchema, toSimServerOptions, withSimDefaults } from '../../src/sim/settings.js';
import '../helpers/node-warnings.js';

const FIXTURES = resolve(import.meta.dirname, '..', 'fixtures', 'hf');
const QWEN_MOE = join(FIXTURES, 'qwen3-30b-a3b', 'config.json');
const BROKEN = join(FIXTURES, 'broken', 'config.json');
const dir = mkdtempSync(join(tmpdir(), 'servelab-model-config-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const plan = (args: string[]) => ['plan', ...args, '--requests', '8', '--no-db'];

describe('--model-config', () => {
  it('plans a model given only by its config.json, named after its directory', async () => {
    const io = memoryIo({}, dir);
    const code = await main(plan(['--model-config', QWEN_MOE, '--gpu', 'h100']), io);
    assert.equal(code, 0, io.err());
    assert.match(io.out(), /qwen3-30b-a3b/);
  });

  it('takes the name --model gives it', async () => {
    const io = memoryIo({}, dir);
    const code = await main(
      plan(['--model-config', QWEN_MOE, '--model', 'my-moe', '--gpu', 'h200', '--json']),
      io,
    );
    assert.equal(code, 0, io.err());
    assert.equal(JSON.parse(io.out()).config.engine.model, 'my-moe');
  });

  it('reads the same model as the built-in entry, MoE fields included', () => {
    const { catalogue, model } = loadModelConfig(QWEN_MOE);
    const { name: _a, hf_id: _b, ...fromFile } = catalogue.models[model];
    const { name: _c, hf_id: _d, ...builtin } = catalogue.models['qwen3-30b-a3b'];
    assert.equal(model, 'qwen3-30b-a3b');
    assert.deepEqual(fromFile, { ...builtin, torch_dtype: 'bfloat16' });
  });

  it('is a setting of an experiment file too', () => {
    const parsed = simSettingsSchema('file').safeParse({ model_config: QWEN_MOE, gpu: 'b200' });
    assert.ok(parsed.success, JSON.stringify(parsed.error?.issues));
    const opts = toSimServerOptions(withSimDefaults(parsed.data));
    assert.equal(opts.model, 'qwen3-30b-a3b');
    assert.equal(resolveEngineConfig(opts).model.num_experts, 128);
    // A file must still name what it simulates.
    const none = simSettingsSchema('file').safeParse({ gpu: 'h100' });
    assert.ok(!none.success);
    assert.match(JSON.stringify(none.error.issues), /model_config/);
  });

  it('rejects a broken config.json with exit 1, every problem and a hint, no stack', async () => {
    const io = memoryIo({}, dir);
    const code = await main(plan(['--model-config', BROKEN, '--gpu', 'h100']), io);
    assert.equal(code, 1);
    const err = io.err();
    for (const field of ['model_type', 'torch_dtype', 'intermediate_size', 'vocab_size'])
      assert.match(err, new RegExp(`config\\.json: ${field}`), `${field} in:\n${err}`);
    assert.match(err, /hint: supported model_type: llama/);
    assert.doesNotMatch(err, /\n\s+at /, 'no stack trace');
  });

  it('names a Hugging Face cache snapshot after its repository', () => {
    const snap = join(dir, 'models--Qwen--Qwen3-8B', 'snapshots', 'a'.repeat(40));
    mkdirSync(snap, { recursive: true });
    assert.equal(modelNameFromPath(join(snap, 'config.json')), 'qwen3-8b');
    assert.equal(
      modelNameFromPath(join(dir, 'cfg.json'), 'meta-llama/Llama-3.3-70B-Instruct'),
      'llama-3.3-70b-instruct',
    );
  });

  it('refuses a file of several models', () => {
    const path = join(dir, 'two.yaml');
    writeFileSync(
      path,
      JSON.stringify({
        models: Object.fromEntries(
          ['a', 'b'].map((n) => [
            n,
            {
              num_hidden_layers: 2,
              hidden_size: 64,
              num_attention_heads: 4,
              intermediate_size: 128,
              vocab_size: 100,
              max_position_embeddings: 512,
            },
          ]),
        ),
      }),
    );
    assert.throws(
      () => loadModelConfig(path),
      (e: unknown) => e instanceof UsageError && /2 models/.test(e.message),
    );
  });
});
