/**
 * @module sim/calibrate/calibration-file
 * A calibration profile: the cost-model and API-server constants `servelab calibrate` fitted
 * for one (model, GPU, engine, dtype, tp) from measurements of a real engine, with their
 * uncertainties and the fit's residuals. `--profile FILE` (`profile: FILE` in a file's `sim:`)
 * loads one through the settings schema (`sim/settings`); the profile then names what is
 * simulated, and the engine's {@link CostModel} and {@link ApiServerQueue} take its constants
 * instead of their defaults (each constant left out keeps its default). Not to be confused with
 * `sim/engine/profiles`, the engine behaviour profiles (vLLM V1/V0, SGLang) a run simulates.
 *
 * The file is YAML (JSON is YAML too), validated by {@link calibrationProfileSchema}:
 *
 * ```yaml
 * servelab_profile: 1
 * fitted_for: {model: qwen3-8b, gpu: h100, engine: vllm-v1, dtype: bf16, tp: 1, kv_cache_dtype: auto}
 * constants:
 *   eta_bw: {value: 0.78, stderr: 0.002, constant: ETA_BW, default: 0.8}
 * ```
 */
import { readFileSync } from 'node:fs';
import { stringify } from 'yaml';
import { z } from 'zod';
import { type Problem, UsageError } from '../../core/errors.js';
import { parseUserYaml } from '../../core/yaml.js';
import { ENGINE_PROFILES, KV_CACHE_DTYPES, WEIGHT_DTYPES } from '../config/vocab.js';
import {
  type CostOverrides,
  ETA_ATTN_PREFILL,
  ETA_BW,
  ETA_BW_ATTN_DECODE,
  T_LAYER_MS,
  T_REQ_MS,
  T_SAMPLE_MS,
  T_SAMPLE_REQ_MS,
  T_STEP_MS,
} from '../engine/cost.js';
import {
  FRONTEND_CHUNK_MS,
  FRONTEND_OVERHEAD_MS,
  FRONTEND_REQUEST_MS,
  FRONTEND_STEP_MS,
  type FrontendOverrides,
} from '../frontend.js';

/** Where each profile constant goes: the cost model or the API server, under which override key. */
interface ConstantInfo {
  /** The constant's name in the source (`ETA_BW`). */
  constant: string;
  target: 'cost' | 'frontend';
  key: keyof CostOverrides | keyof FrontendOverrides;
  unit: string;
  /** The default, where it does not depend on the GPU. */
  default: number | null;
}

/** Every constant a profile may set, by its key in the file. */
export const PROFILE_CONSTANTS = {
  eta_bw: { constant: 'ETA_BW', target: 'cost', key: 'etaBw', unit: 'fraction', default: ETA_BW },
  eta_gemm: {
    constant: 'ETA_GEMM_BY_FAMILY',
    target: 'cost',
    key: 'etaGemm',
    unit: 'fraction',
    default: null,
  },
  eta_attn_prefill: {
    constant: 'ETA_ATTN_PREFILL',
    target: 'cost',
    key: 'etaAttnPrefill',
    unit: 'fraction',
    default: ETA_ATTN_PREFILL,
  },
  eta_bw_attn_decode: {
    constant: 'ETA_BW_ATTN_DECODE',
    target: 'cost',
    key: 'etaBwAttnDecode',
    unit: 'fraction',
    default: ETA_BW_ATTN_DECODE,
  },
  t_step_ms: { constant: 'T_STEP_MS', target: 'cost', key: 'tStepMs', unit: 'ms', default: T_STEP_MS },
  t_layer_ms: { constant: 'T_LAYER_MS', target: 'cost', key: 'tLayerMs', unit: 'ms', default: T_LAYER_MS },
  t_req_ms: { constant: 'T_REQ_MS', target: 'cost', key: 'tReqMs', unit: 'ms', default: T_REQ_MS },
  t_sample_ms: {
    constant: 'T_SAMPLE_MS',
    target: 'cost',
    key: 'tSampleMs',
    unit: 'ms',
    default: T_SAMPLE_MS,
  },
  t_sample_req_ms: {
    constant: 'T_SAMPLE_REQ_MS',
    target: 'cost',
    key: 'tSampleReqMs',
    unit: 'ms',
    default: T_SAMPLE_REQ_MS,
  },
  frontend_overhead_ms: {
    constant: 'FRONTEND_OVERHEAD_MS',
    target: 'frontend',
    key: 'overheadMs',
    unit: 'ms',
    default: FRONTEND_OVERHEAD_MS,
  },
  frontend_step_ms: {
    constant: 'FRONTEND_STEP_MS',
    target: 'frontend',
    key: 'stepMs',
    unit: 'ms',
    default: FRONTEND_STEP_MS,
  },
  frontend_chunk_ms: {
    constant: 'FRONTEND_CHUNK_MS',
    target: 'frontend',
    key: 'chunkMs',
    unit: 'ms',
    default: FRONTEND_CHUNK_MS,
  },
  frontend_request_ms: {
    constant: 'FRONTEND_REQUEST_MS',
    target: 'frontend',
    key: 'requestMs',
    unit: 'ms',
    default: FRONTEND_REQUEST_MS,
  },
} as const satisfies Record<string, ConstantInfo>;

export type ProfileConstant = keyof typeof PROFILE_CONSTANTS;
export const PROFILE_CONSTANT_KEYS = Object.keys(PROFILE_CONSTANTS) as ProfileConstant[];

const positive = z.number().positive();
const constantValue = z.strictObject({
  value: positive,
  /** Standard error of the fitted value (same unit). */
  stderr: z.number().nonnegative().nullable().optional(),
  constant: z.string().optional(),
  default: z.number().nullable().optional(),
  unit: z.string().optional(),
  /** Which runs determined it, in words. */
  from: z.string().optional(),
});

/** What a profile was fitted for: it selects these when it is loaded. */
export const fittedForSchema = z.strictObject({
  model: z.string().min(1),
  gpu: z.string().min(1),
  engine: z.enum(ENGINE_PROFILES).default('vllm-v1'),
  dtype: z.enum(WEIGHT_DTYPES).default('bf16'),
  tp: z.number().int().min(1).max(8).default(1),
  kv_cache_dtype: z.enum(KV_CACHE_DTYPES).default('auto'),
  api_server_count: z.number().int().min(1).max(64).default(1),
});
export type FittedFor = z.output<typeof fittedForSchema>;

/** The profile file. */
export const calibrationProfileSchema = z.strictObject({
  servelab_profile: z.literal(1),
  fitted_for: fittedForSchema,
  constants: z.strictObject(
    Object.fromEntries(PROFILE_CONSTANT_KEYS.map((k) => [k, constantValue.optional()])) as Record<
      ProfileConstant,
      z.ZodOptional<typeof constantValue>
    >,
  ),
  /** Constants the fit held at their defaults, with why (informative). */
  held: z.record(z.string(), z.string()).optional(),
  /** The residual error of the fit per metric and regime (informative). */
  residuals: z.array(z.record(z.string(), z.unknown())).optional(),
  /** The runs the profile was fitted from (informative). */
  runs: z.array(z.string()).optional(),
});
export type CalibrationProfileFile = z.output<typeof calibrationProfileSchema>;

/** A loaded profile, as the engine takes it. */
export interface CalibrationProfile {
  /** The file it was read from (for messages). */
  path: string;
  fittedFor: FittedFor;
  cost: CostOverrides;
  frontend: FrontendOverrides;
}

/** A profile file's constants as the cost model's and the API server's overrides. */
export function profileOverrides(file: CalibrationProfileFile): {
  cost: CostOverrides;
  frontend: FrontendOverrides;
} {
  const cost: Record<string, number> = {};
  const frontend: Record<string, number> = {};
  for (const k of PROFILE_CONSTANT_KEYS) {
    const v = file.constants[k];
    if (!v) continue;
    const info: ConstantInfo = PROFILE_CONSTANTS[k];
    (info.target === 'cost' ? cost : frontend)[info.key] = v.value;
  }
  return { cost: cost as CostOverrides, frontend: frontend as FrontendOverrides };
}

/** Parse a profile's text (YAML or JSON). @throws UsageError listing every problem, on `label`. */
export function parseCalibrationProfile(text: string, label: string): CalibrationProfileFile {
  const raw = parseUserYaml(text, label, PROFILE_HINT);
  const r = calibrationProfileSchema.safeParse(raw);
  if (!r.success) {
    const problems: Problem[] = r.error.issues.map((i) => ({
      path: `${label}: ${i.path.join('.') || '(file)'}`,
      message: i.message.replace(/^Invalid input: /, ''),
      hint: PROFILE_HINT,
    }));
    throw new UsageError(problems);
  }
  return r.data;
}

export const PROFILE_HINT =
  'a calibration profile is written by `servelab calibrate RUNS… --out profile.yaml` (docs/sim.md "Calibrate")';

/** Read and validate a profile file. @throws UsageError when it cannot be read or is invalid. */
export function loadCalibrationProfile(path: string): CalibrationProfile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new UsageError([
      {
        path,
        message: code === 'ENOENT' ? 'no such profile file' : `cannot read it (${(e as Error).message})`,
        hint: PROFILE_HINT,
      },
    ]);
  }
  const file = parseCalibrationProfile(text, path);
  return { path, fittedFor: file.fitted_for, ...profileOverrides(file) };
}

/** A profile as YAML text. */
export function calibrationProfileYaml(file: CalibrationProfileFile): string {
  return stringify(file, { lineWidth: 0 });
}
