/**
 * `servelab plan --endpoint completions` (issue 26): the simulated server is sent streaming
 * completions, as inference-perf's public runs were.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import '../helpers/node-warnings.js';

const PLAN = ['plan', '--model', 'qwen3-0.6b', '--gpu', 'h100', '--no-db', '--seed', '1'];

describe('servelab plan --endpoint completions', () => {
  it('plans streaming completions with max_tokens = output_len and ignore_eos', async () => {
    const io = memoryIo({}, process.cwd());
    const args = [...PLAN, '--endpoint', 'completions', '--input-len', '200', '--output-len', '32'];
    const code = await main(
      [...args, '--ignore-eos', '--concurrency', '4', '--requests', '20', '--json'],
      io,
    );
    assert.equal(code, 0, io.err());
    const report = JSON.parse(io.out());
    assert.equal(report.config.target.endpoint, 'completions');
    assert.equal(report.config.target.stream, true);
    assert.equal(report.summary.requests.succeeded, 20);
    assert.equal(report.summary.output_tokens.mean, 32);
    // The completions prompt is the text itself (no chat template around it).
    assert.equal(report.summary.input_tokens.mean, 200);
  });

  it('refuses an unknown endpoint with a hint, not a stack trace', async () => {
    const io = memoryIo({}, process.cwd());
    const code = await main([...PLAN, '--endpoint', 'embeddings', '--requests', '5'], io);
    assert.notEqual(code, 0);
    assert.match(io.err(), /--endpoint/);
    assert.doesNotMatch(io.err(), /\n\s+at /);
  });
});
