/**
 * `--max-tokens N` without `--output-len` asks for N output tokens: the synthetic prompts' default
 * output length (128, vLLM's random dataset's) yields to it, on the command line and in an
 * experiment file (`generation.max_tokens`). Found by running `run --max-tokens 200` against
 * llama.cpp: every request recorded output_len 128 and stopped there.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import '../helpers/node-warnings.js';

const dir = mkdtempSync(join(tmpdir(), 'servelab-max-tokens-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const records = (out: string) =>
  readFileSync(join(dir, out, 'requests.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { output_len?: number | null; usage?: { completion_tokens?: number } });

describe('--max-tokens without --output-len', () => {
  it('asks every request for max_tokens, not the synthetic default', async () => {
    const io = memoryIo({}, dir);
    const args = ['plan', '--requests', '4', '--seed', '3', '--no-db', '--ignore-eos'];
    assert.equal(await main([...args, '--max-tokens', '200', '--out', 'a'], io), 0, io.err());
    for (const r of records('a')) {
      assert.notEqual(r.output_len, 128, 'the synthetic default does not override --max-tokens');
      assert.equal(r.usage?.completion_tokens, 200);
    }
    // Without --max-tokens the synthetic default stands.
    assert.equal(await main([...args, '--out', 'b'], io), 0, io.err());
    for (const r of records('b')) assert.equal(r.usage?.completion_tokens, 128);
  });
});
