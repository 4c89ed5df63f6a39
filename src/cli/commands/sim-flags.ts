/**
 * @module cli/commands/sim-flags
 * Engine flags shared by `servelab sim` and `servelab plan` (vLLM's names), validated into
 * the engine's options. Range checks beyond flag syntax happen in `resolveEngineConfig`.
 */
import type { Problem } from '../../core/errors.js';
import { type Catalogue, loadCatalogueFile } from '../../sim/catalogue/index.js';
import type { EngineOptions } from '../../sim/engine/index.js';
import { optNumber } from './common.js';

export interface RawSimFlags {
  model?: string;
  gpu?: string;
  tp?: string;
  dtype?: string;
  kvCacheDtype?: string;
  maxNumSeqs?: string;
  maxNumBatchedTokens?: string;
  blockSize?: string;
  gpuMemoryUtilization?: string;
  maxModelLen?: string;
  enablePrefixCaching?: boolean;
  coldStartMs?: string;
  timeScale?: string;
  simSeed?: string;
  catalogue?: string;
}

const DTYPES = ['bf16', 'fp16', 'fp8', 'int4'];
const KV_DTYPES = ['auto', 'fp8'];

export async function parseSimFlags(
  raw: RawSimFlags,
  problems: Problem[],
): Promise<EngineOptions & { timeScale: number; seed: number }> {
  const dtype = raw.dtype ?? 'bf16';
  if (!DTYPES.includes(dtype))
    problems.push({
      path: '--dtype',
      message: `unknown dtype "${dtype}"`,
      hint: `use one of ${DTYPES.join(', ')}`,
    });
  const kv = raw.kvCacheDtype ?? 'auto';
  if (!KV_DTYPES.includes(kv))
    problems.push({
      path: '--kv-cache-dtype',
      message: `unknown KV cache dtype "${kv}"`,
      hint: 'use auto or fp8',
    });
  let catalogue: Catalogue | undefined;
  if (raw.catalogue) {
    try {
      catalogue = await loadCatalogueFile(raw.catalogue);
    } catch (err) {
      const e = err as { problems?: Problem[]; message?: string };
      if (e.problems) problems.push(...e.problems);
      else
        problems.push({
          path: '--catalogue',
          message: String(e.message ?? err),
          hint: 'a YAML/JSON file with gpus: and models:',
        });
    }
  }
  const n = (v: string | undefined, flag: string, int = true, min = 1) =>
    optNumber(v, flag, problems, { int, min }) ?? undefined;
  const timeScale = optNumber(raw.timeScale, '--time-scale', problems, { min: 0.001 }) ?? 1;
  return {
    model: raw.model ?? 'qwen3-8b',
    gpu: raw.gpu ?? 'h100',
    tp: n(raw.tp, '--tp'),
    dtype: dtype as EngineOptions['dtype'],
    kvCacheDtype: kv as EngineOptions['kvCacheDtype'],
    maxNumSeqs: n(raw.maxNumSeqs, '--max-num-seqs'),
    maxNumBatchedTokens: n(raw.maxNumBatchedTokens, '--max-num-batched-tokens'),
    blockSize: n(raw.blockSize, '--block-size'),
    gpuMemoryUtilization: n(raw.gpuMemoryUtilization, '--gpu-memory-utilization', false, 0.01),
    maxModelLen: n(raw.maxModelLen, '--max-model-len'),
    enablePrefixCaching: raw.enablePrefixCaching !== false,
    coldStartMs: n(raw.coldStartMs, '--cold-start-ms', false, 0),
    catalogue,
    timeScale,
    seed: n(raw.simSeed, '--sim-seed', true, 0) ?? 0,
  };
}
