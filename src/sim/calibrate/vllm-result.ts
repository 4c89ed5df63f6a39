/**
 * @module sim/calibrate/vllm-result
 * An aggregate result file as `servelab calibrate` reads it: the JSON `vllm bench serve
 * --save-result` writes (and servelab's own `vllm.json`, the same keys: `report/run/vllm`,
 * vllm-project/vllm@009e6d4a1cd6ba3fb2a9fc00f4ec06f5297232a1 `vllm/benchmarks/serve.py`). It has
 * no per-request times, only means: at `max_concurrency` 1 each request ran alone, so the mean
 * TPOT is one decode step at about the mean context (prompt + half the output) and the mean TTFT
 * is the front-end overhead plus the prefill of the mean prompt. That is one observation of each,
 * enough for η_bw and the front-end overhead with the other constants at their priors. Under
 * load the means mix queueing with the step times, so such a file is not read (said, with a hint).
 */
import type { Problem } from '../../core/errors.js';
import { type T, translator } from '../../i18n/index.js';
import type { CalibrationRun } from './fit.js';

const EN = translator('en');

/** Whether parsed JSON looks like a `--save-result` file (the keys calibrate reads). */
export function isVllmResult(json: unknown): json is Record<string, unknown> {
  if (!json || typeof json !== 'object') return false;
  const o = json as Record<string, unknown>;
  return typeof o.completed === 'number' && 'mean_tpot_ms' in o && 'total_input_tokens' in o;
}

/**
 * The low-load observations of a `--save-result` file, or a problem saying why it has none.
 * @example vllmResultRun(json, 'vllm.json') // { id: 'vllm.json', label: 'vllm bench serve c=1', records: [], lowLoad: {…} }
 */
export function vllmResultRun(o: Record<string, unknown>, file: string, t: T = EN): CalibrationRun | Problem {
  const num = (k: string) => (typeof o[k] === 'number' && Number.isFinite(o[k]) ? (o[k] as number) : null);
  const completed = num('completed') ?? 0;
  const conc = num('max_concurrency');
  const tpot = num('mean_tpot_ms');
  const ttft = num('mean_ttft_ms');
  const inTok = num('total_input_tokens');
  const outTok = num('total_output_tokens');
  if (conc !== 1)
    return {
      path: file,
      message:
        conc === null
          ? t('sim.calibrate.vllm.queueing_unlimited')
          : t('sim.calibrate.vllm.queueing', { conc }),
      hint: t('sim.calibrate.vllm.queueing_hint'),
    };
  if (!completed || tpot === null || ttft === null || inTok === null || outTok === null)
    return {
      path: file,
      message: t('sim.calibrate.vllm.incomplete'),
      hint: t('sim.calibrate.vllm.incomplete_hint'),
    };
  const prompt = inTok / completed;
  const output = outTok / completed;
  return {
    id: file,
    label: 'vllm bench serve c=1 (means)',
    records: [],
    lowLoad: {
      decode: output >= 3 ? [{ ctx: Math.round(prompt + output / 2), gapMs: tpot }] : [],
      prefill: [{ n: Math.max(1, Math.round(prompt)), cached: 0, ttftMs: ttft }],
      outputTokS: num('output_throughput'),
    },
  };
}
