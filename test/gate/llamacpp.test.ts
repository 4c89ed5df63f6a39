/**
 * The gate between two identical real llama.cpp servers (`../shared/llamacpp`, see
 * test/helpers/llama-server), `--checks context,errors`, as a user types it: the context checks
 * read L from `/v1/models` `meta.n_ctx` (the per-slot context, 2048 for `-c 8192 -np 4`) and run,
 * none is skipped; vLLM's own constraint keys are not held against llama.cpp; failures both
 * servers share are no regression, so the gate exits 0. Skipped, with the reason, where the
 * shared build is absent; under CI=true it fails.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { type LlamaServer, llamaServerMissing, startLlamaServer } from '../helpers/llama-server.js';
import { gate, rowsOf } from './helpers.js';

const missing = llamaServerMissing();
const servers: LlamaServer[] = [];
after(async () => {
  for (const s of servers) await s.close();
});

describe('gate between two identical llama.cpp servers', { skip: missing ?? false }, () => {
  it('--checks context,errors: no context check skipped, L from meta.n_ctx, exit 0', async () => {
    servers.push(await startLlamaServer(), await startLlamaServer());
    const [a, b] = servers;
    // --timeout bounds the requests llama.cpp never ends early (max_tokens -1 generates to the
    // slot's end); both servers fail those alike
    const r = await gate([
      '--old',
      `${a.root}/v1`,
      '--new',
      `${b.root}/v1`,
      '--checks',
      'context,errors',
      '--timeout',
      '20',
      '--json',
    ]);
    const rows = rowsOf(r.out);
    assert.equal(r.code, 0, `${r.err}\n${a.log().slice(-2000)}`);
    const context = rows.filter((x) => x.id.startsWith('context.'));
    assert.equal(context.length, 6);
    for (const row of context) assert.notEqual(row.status, 'skipped', `${row.id}: ${row.reason}`);
    for (const id of ['context.max-model-len', 'context.below-limit', 'context.over-limit'])
      assert.equal(rows.find((x) => x.id === id)?.status, 'pass', id);
    const len = rows.find((x) => x.id === 'context.max-model-len');
    assert.ok(len);
    assert.equal((len.new as { observed?: unknown }).observed, 2048);
    assert.match(len.new.evidence[0]?.note ?? '', /L = 2048 tokens, from \/v1\/models meta\.n_ctx/);
    const constraint = rows.find((x) => x.id === 'errors.ignored-constraint');
    assert.ok(constraint);
    assert.notEqual(constraint.status, 'fail', constraint.reason);
    assert.deepEqual((constraint.new as { observed?: Record<string, string> }).observed, {
      response_format: 'honoured',
      guided_json: 'not claimed',
      structured_outputs: 'not claimed',
    });
    // every failure is one the old server has too
    for (const row of rows.filter((x) => x.status === 'fail'))
      assert.equal(row.old?.status, 'fail', `${row.id}: ${row.reason}`);
    assert.match(r.err, /result: (no regression|every check)/);
  });
});
