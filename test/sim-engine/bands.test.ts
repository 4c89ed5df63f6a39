/** The fitted model's 80% error bands as plan and the answers state them (sim/fidelity/band). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { translator } from '../../src/i18n/index.js';
import { FITTED_BANDS } from '../../src/sim/engine/fitted.js';
import { bandInterval, bandLines, fittedBand } from '../../src/sim/fidelity/band.js';

describe('fitted error bands', () => {
  it('are stored by npm run fit, with their coverage check', () => {
    assert.ok(FITTED_BANDS, 'src/sim/engine/fitted-coefficients.json has no bands: run npm run fit');
    for (const m of ['ttft_mean', 'ttft_p99', 'e2e_mean', 'itl_mean']) {
      const q = FITTED_BANDS.metrics[m];
      assert.ok(q && q.q10 <= q.q90 && q.n >= 10, m);
    }
    assert.ok(FITTED_BANDS.coverage > 0 && FITTED_BANDS.coverage <= 1);
  });

  it('scale a simulated value by the stored quantiles', () => {
    const q = FITTED_BANDS!.metrics.ttft_p99;
    const b = fittedBand('ttft_p99', 400)!;
    assert.ok(Math.abs(b.low - 400 * (1 + q.q10)) < 1e-9);
    assert.ok(Math.abs(b.high - 400 * (1 + q.q90)) < 1e-9);
    assert.equal(fittedBand('ttft_p99', null), null);
    assert.equal(fittedBand('ttft_p99', 0), null);
  });

  it('print one line per headline number, in both languages', () => {
    const en = bandLines({ ttft_p99: 410, e2e_mean: 5000 }, translator('en'));
    assert.equal(en.length, 3);
    assert.match(en[1], /^ {2}TTFT p99 410 ms, 80% band \d+–\d+ ms$/);
    assert.match(en[2], /E2E mean 5000 ms/);
    const zh = bandLines({ ttft_p99: 410 }, translator('zh-CN'));
    assert.match(zh[1], /80% 区间/);
    assert.deepEqual(bandLines({ ttft_p99: null }), []);
    const iv = bandInterval('ttft_p90', 300, 'TTFT p90')!;
    assert.ok(iv.low < iv.high);
    assert.match(iv.note, /80% band/);
  });
});
