/**
 * The gate's group 4 (cancellation and overload), called directly: each check passes on two
 * identical simulators, passes on a well-behaved fake engine, and fails with evidence on a
 * fake engine built to break it (test/gate/fake-engine.ts).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { checks } from '../../src/gate/checks/cancel.js';
import type { EachCheck, SideResult } from '../../src/gate/types.js';
import { type SimServer, startSimServer } from '../../src/sim/server/index.js';
import { type FakeEngineOptions, startFakeEngine } from './fake-engine.js';
import { ctxOf, targetAt } from './load-helpers.js';

const byId = (id: string) => checks.find((c) => c.id === id) as EachCheck;

async function onFake(id: string, opts: FakeEngineOptions): Promise<SideResult> {
  const fake = await startFakeEngine(opts);
  try {
    return await byId(id).run(targetAt(fake.baseUrl, 'fake'), ctxOf());
  } finally {
    await fake.close();
  }
}

// Every server here is its own: the two groups, and the fake engines' checks, run side by side.
describe('gate group 4', { concurrency: true }, () => {
  describe('gate group 4 on two identical simulators', () => {
    const sims: SimServer[] = [];
    before(async () => {
      for (let i = 0; i < 2; i++)
        sims.push(await startSimServer({ model: 'llama-3.1-8b', gpu: 'h100', timeScale: 10, maxNumSeqs: 4 }));
    });
    after(() => Promise.all(sims.map((s) => s.close())));

    test('every check passes on both', async () => {
      const results = await Promise.all(
        sims.map(async (sim, i) => {
          const target = targetAt(`${sim.url}/v1`, 'llama-3.1-8b', i === 0 ? 'old' : 'new');
          const out: Record<string, SideResult> = {};
          for (const c of checks) out[c.id] = await (c as EachCheck).run(target, ctxOf());
          return out;
        }),
      );
      for (const side of results)
        for (const [id, r] of Object.entries(side)) assert.equal(r.status, 'pass', `${id}: ${r.reason}`);
      const [a] = results;
      assert.equal((a['cancel.disconnect-mid-stream'].observed as { tokens_after: number }).tokens_after, 0);
      assert.equal(
        (a['cancel.queued-never-start'].observed as { prompt_tokens_after: number }).prompt_tokens_after,
        0,
      );
      assert.equal((a['cancel.overload-health'].observed as { batch: number }).batch, 4);
    });
  });

  describe('gate group 4 on purpose-built engines', { concurrency: true }, () => {
    test('4.1 fails when the running gauge never drops after a disconnect', async () => {
      const r = await onFake('cancel.disconnect-mid-stream', { slots: 8, ignoreDisconnect: true });
      assert.equal(r.status, 'fail');
      assert.match(r.reason ?? '', /not back at their baseline within 2000 ms/);
      assert.ok(
        r.evidence.some((e) => /"running":4/.test(e.received ?? '')),
        'the gauge still counts the 4 streams',
      );
    });

    test('4.2 fails when a cancelled queued request starts anyway', async () => {
      const r = await onFake('cancel.queued-never-start', { slots: 2, startCancelled: true });
      assert.equal(r.status, 'fail');
      assert.match(r.reason ?? '', /started anyway: \d+ prompt tokens/);
    });

    test('4.3 fails when a client timeout does not abort the request', async () => {
      const r = await onFake('cancel.client-timeout', { slots: 2, ignoreDisconnect: true });
      assert.equal(r.status, 'fail', r.reason);
      assert.ok(r.evidence.some((e) => e.sent?.includes('"stream":false')));
    });

    test('4.4 fails when /health is slow under overload, and when overload gives a 500', async () => {
      const slow = await onFake('cancel.overload-health', { slots: 2, healthDelayMs: 1200 });
      assert.equal(slow.status, 'fail');
      assert.match(slow.reason ?? '', /\/health p99 was \d+ ms/);
      const five = await onFake('cancel.overload-health', { slots: 2, queueMax: 1, overflowStatus: 500 });
      assert.equal(five.status, 'fail');
      assert.match(five.reason ?? '', /answered 500/);
    });

    test('a server without /metrics skips every check with the reason', async () => {
      const { startSseServer, misbehaviours } = await import('../helpers/misbehaving.js');
      const srv = await startSseServer(misbehaviours.truncated());
      try {
        for (const c of checks) {
          const r = await (c as EachCheck).run(targetAt(srv.baseUrl, 'm'), ctxOf());
          assert.equal(r.status, 'skipped', c.id);
          assert.match(r.reason ?? '', /metrics/);
        }
      } finally {
        await srv.close();
      }
    });
  });
});
