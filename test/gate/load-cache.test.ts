/**
 * The gate's group 8 (cache parity), called directly: it passes on two identical simulators,
 * fails on a server whose warm answer differs from its cold one at a wide logprob margin, and
 * tolerates a divergence at a near tie.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { checks } from '../../src/gate/checks/cache.js';
import { metricsProbe } from '../../src/gate/load/target-io.js';
import type { EachCheck } from '../../src/gate/types.js';
import { startSimServer } from '../../src/sim/server/index.js';
import { type Script, startSseServer } from '../helpers/misbehaving.js';
import { ctxOf, targetAt } from './load-helpers.js';

const check = checks[0] as EachCheck;

test('8.1 passes on two identical simulators', async () => {
  for (const role of ['old', 'new'] as const) {
    const sim = await startSimServer({ model: 'llama-3.1-8b', gpu: 'h100', timeScale: 20 });
    after(() => sim.close());
    const r = await check.run(targetAt(`${sim.url}/v1`, 'llama-3.1-8b', role), ctxOf());
    assert.equal(r.status, 'pass', r.reason);
    assert.deepEqual(r.observed, { same: true });
    // The answers carried logprobs, so a divergence could have been judged.
    assert.match(r.evidence[1].received ?? '', /"top_logprobs"/);
    // The repeat met a warm prefix cache: its prompt's blocks were hits.
    const m = await metricsProbe(targetAt(`${sim.url}/v1`, 'llama-3.1-8b')).read();
    assert.ok((m?.values.prefix_hits_total ?? 0) > 0, JSON.stringify(m?.values));
  }
});

/** A server whose second answer (the warm one) differs at token 1, where the top two are `gap` apart. */
async function divergent(gap: number, withLogprobs = true) {
  let n = 0;
  const answer = (second: boolean): Script => {
    const tokens = second ? [' the', ' dog'] : [' the', ' cat'];
    const content = tokens.map((token, i) => ({
      token,
      logprob: -0.1,
      top_logprobs: [
        { token, logprob: -0.1 },
        { token: i === 1 ? (second ? ' cat' : ' dog') : ' a', logprob: -0.1 - (i === 1 ? gap : 3) },
      ],
    }));
    const body = {
      id: 'x',
      object: 'chat.completion',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: tokens.join('') },
          finish_reason: 'stop',
          logprobs: withLogprobs ? { content } : null,
        },
      ],
    };
    return { headers: { 'content-type': 'application/json' }, steps: [JSON.stringify(body)] };
  };
  const srv = await startSseServer(() => answer(n++ > 0));
  after(() => srv.close());
  return srv;
}

test('8.1 fails when the warm answer differs at a wide margin, with both answers as evidence', async () => {
  const srv = await divergent(1.5);
  const r = await check.run(targetAt(srv.baseUrl, 'm'), ctxOf());
  assert.equal(r.status, 'fail');
  assert.match(r.reason ?? '', /at token 1 \(" cat" vs " dog"\).*1\.5 apart/);
  assert.equal(r.evidence.length, 2);
  assert.match(r.evidence[1].received ?? '', /dog/);
  // Both requests were the same greedy request.
  assert.equal(srv.requests[0].raw, srv.requests[1].raw);
  assert.equal(srv.requests[0].body?.temperature, 0);
});

test('8.1 tolerates a divergence at a near tie, and fails one it cannot explain without logprobs', async () => {
  const tie = await check.run(targetAt((await divergent(0.05)).baseUrl, 'm'), ctxOf());
  assert.equal(tie.status, 'pass', tie.reason);
  assert.equal((tie.observed as { margin: number }).margin, 0.05);
  const none = await check.run(targetAt((await divergent(1.5, false)).baseUrl, 'm'), ctxOf());
  assert.equal(none.status, 'fail');
  assert.match(none.reason ?? '', /no logprobs/);
});
