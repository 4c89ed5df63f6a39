/**
 * Helpers for the gate's load-check tests (groups 4, 8, 10): a check context, a GateTarget for
 * a simulator over loopback HTTP, and one for a purpose-built server.
 */

import type { CheckContext, GateTarget } from '../../src/gate/types.js';
import { translator } from '../../src/i18n/index.js';
import type { CalibrationProfile } from '../../src/sim/calibrate/calibration-file.js';
import { BUILTIN_GPUS } from '../../src/sim/catalogue/builtin.js';
import { slowerCostModel } from '../../src/sim/engine/cost.js';

export function ctxOf(over: Partial<CheckContext> = {}): CheckContext {
  return {
    t: translator('en'),
    timeoutMs: 10_000,
    seed: 7,
    signal: new AbortController().signal,
    probe: false,
    ...over,
  };
}

/** A target at `baseUrl` (ending in /v1). */
export function targetAt(baseUrl: string, model: string, role: GateTarget['role'] = 'new'): GateTarget {
  return { role, baseUrl, model };
}

/**
 * Simulator options for the same engine with a cost model `factor` times slower (every
 * efficiency divided, every fixed time multiplied: `sim/engine/cost` `slowerCostModel`), as an
 * engine upgrade with a latency regression would be.
 */
export function slowerSim<O extends { model: string; gpu: string }>(
  opts: O,
  factor: number,
): O & { calibration: CalibrationProfile } {
  const gpu = BUILTIN_GPUS[opts.gpu];
  return {
    ...opts,
    calibration: {
      path: `(test: cost model ×${factor})`,
      fittedFor: {
        model: opts.model,
        gpu: opts.gpu,
        engine: 'vllm-v1',
        dtype: 'bf16',
        tp: 1,
        kv_cache_dtype: 'auto',
        api_server_count: 1,
      },
      cost: slowerCostModel(factor, gpu),
      frontend: {},
    },
  };
}
