/**
 * @module exp/experiment-record
 * The experiment record (what was measured, as opposed to the per-request records of `record/`):
 * everything someone needs to reproduce a run weeks later (model, template, engine, image, device,
 * software, precision, limits, generation, cache, load, quality, metrics). Every field says where
 * its value came from: `probed` from the target, `declared` in the experiment file, or `missing`,
 * so a report shows the gaps instead of hiding them.
 *
 * Probes: {@link probeTarget} asks the server (`/version`, the `Server` header, `/v1/models`,
 * and per engine `/get_server_info` or `/props`) and tells vLLM, SGLang, llama.cpp and
 * servelab's simulator apart; {@link probeGpu} runs `nvidia-smi` through an injected exec
 * function when the target is local; {@link hostInfo} gives servelab's version and the host.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { arch, cpus, hostname, platform, release, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FieldSource } from '../analysis/loaded-run.js';
import type { EngineProbeResult } from '../client/engine-probe.js';
import { syntheticDefault } from '../config/run-settings.js';
import { withSimDefaults } from '../sim/settings.js';
import type { SharedFile, TargetSpec } from './fields.js';

/** One definition, in `analysis/loaded-run` (which the report reads); re-exported for the kinds. */
export type { FieldSource };

/** One record field: its value, where it came from, and which parts are unknown. */
export interface ExperimentRecordField<T extends Record<string, unknown>> {
  value: T;
  /** `probed` if any part was probed, else `declared` if any part was declared, else `missing`. */
  source: FieldSource;
  /** Where each known part came from, e.g. `{version: "probed: /version", gpu: "declared"}`. */
  from: Record<string, string>;
  /** Parts with no value. */
  missing: string[];
}

export interface ExperimentRecord {
  schema_version: 1;
  /** Target name in the experiment file. */
  target: string;
  model: ExperimentRecordField<{ id: string | null; revision: string | null; root: string | null }>;
  template: ExperimentRecordField<{
    tokenizer: string | null;
    tokenization: string | null;
    chat_template: string | null;
  }>;
  engine: ExperimentRecordField<{
    name: string | null;
    version: string | null;
    server_header: string | null;
  }>;
  image: ExperimentRecordField<{ digest: string | null }>;
  device: ExperimentRecordField<{
    gpu: string | null;
    count: number | null;
    memory_gib: number | null;
    interconnect: string | null;
    simulated: boolean | null;
  }>;
  software: ExperimentRecordField<{
    driver: string | null;
    cuda: string | null;
    rocm: string | null;
    kernel_backend: string | null;
  }>;
  precision: ExperimentRecordField<{
    weights: string | null;
    activations: string | null;
    kv_cache: string | null;
  }>;
  limits: ExperimentRecordField<{
    max_model_len: number | null;
    max_num_seqs: number | null;
    max_num_batched_tokens: number | null;
  }>;
  generation: ExperimentRecordField<Record<string, unknown>>;
  cache: ExperimentRecordField<{
    policy: string | null;
    reset: string | null;
    prefix_caching: boolean | null;
    routing: string | null;
  }>;
  load: ExperimentRecordField<Record<string, unknown>>;
  quality: ExperimentRecordField<{
    samples: number | null;
    successes: number | null;
    truncations: number | null;
    errors: number | null;
  }>;
  metrics: ExperimentRecordField<Record<string, unknown>>;
  servelab: HostInfo;
}

/** The record fields that carry a {@link ExperimentRecordField}. */
export const EXPERIMENT_RECORD_FIELDS = [
  'model',
  'template',
  'engine',
  'image',
  'device',
  'software',
  'precision',
  'limits',
  'generation',
  'cache',
  'load',
  'quality',
  'metrics',
] as const;
export type ExperimentRecordFieldName = (typeof EXPERIMENT_RECORD_FIELDS)[number];

/**
 * Build a field from parts, each `[value, source note]`: a note starting with `probed` counts
 * as probed, any other note as declared; a null or undefined value is missing.
 */
export function makeField<T extends Record<string, unknown>>(
  parts: { [K in keyof T]: [T[K] | null | undefined, string?] },
): ExperimentRecordField<T> {
  const value: Record<string, unknown> = {};
  const from: Record<string, string> = {};
  const missing: string[] = [];
  let probed = false;
  let declared = false;
  for (const [k, [v, note]] of Object.entries(parts) as [string, [unknown, string?]][]) {
    value[k] = v ?? null;
    if (v === null || v === undefined) {
      missing.push(k);
      continue;
    }
    const n = note ?? 'declared';
    from[k] = n;
    if (n.startsWith('probed')) probed = true;
    else declared = true;
  }
  return { value: value as T, source: probed ? 'probed' : declared ? 'declared' : 'missing', from, missing };
}

/** Replace one field of a record (e.g. `quality` or `metrics` once a run has them). */
export function setRecordField<K extends ExperimentRecordFieldName>(
  rec: ExperimentRecord,
  key: K,
  field: ExperimentRecord[K],
): ExperimentRecord {
  return { ...rec, [key]: field };
}

// ---- probing the GPU ------------------------------------------------------------------------

export interface ExecResult {
  stdout: string;
  /** Exit status; null when the command could not be started (e.g. not installed). */
  code: number | null;
}
/** Runs a command without a shell. Must resolve, never reject. */
export type Exec = (file: string, args: readonly string[]) => Promise<ExecResult>;

/** An {@link Exec} built on `child_process.execFile` (no shell; `env` replaces the environment). */
export function nodeExec(opts: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Exec {
  return (file, args) =>
    new Promise((resolve) => {
      execFile(
        file,
        [...args],
        { env: opts.env ?? process.env, timeout: opts.timeoutMs ?? 5000, encoding: 'utf8' },
        (err, stdout) => {
          if (err && typeof (err as NodeJS.ErrnoException).code === 'string')
            return resolve({ stdout: '', code: null });
          resolve({ stdout: stdout ?? '', code: err ? ((err as { code?: number }).code ?? 1) : 0 });
        },
      );
    });
}

export interface ProbedGpu {
  name: string;
  /** As nvidia-smi reports it, MiB. */
  memory_total_mib: number | null;
  /** The same in GiB. */
  memory_total_gib: number | null;
  driver_version: string | null;
}

export interface GpuProbe {
  gpus: ProbedGpu[];
  count: number;
  driver_version: string | null;
  cuda_version: string | null;
}

/**
 * The local GPUs through `nvidia-smi --query-gpu=name,memory.total,driver_version
 * --format=csv,noheader` (and the CUDA version from plain `nvidia-smi`'s banner). Null when
 * nvidia-smi is missing or fails.
 */
export async function probeGpu(exec: Exec): Promise<GpuProbe | null> {
  const q = await exec('nvidia-smi', [
    '--query-gpu=name,memory.total,driver_version',
    '--format=csv,noheader',
  ]);
  if (q.code !== 0) return null;
  const gpus: ProbedGpu[] = [];
  for (const line of q.stdout.split(/\r?\n/)) {
    if (!line.trim()) continue;
    const [name, mem, driver] = line.split(',').map((s) => s.trim());
    const m = /^(\d+(?:\.\d+)?)\s*MiB$/i.exec(mem ?? '');
    const mib = m ? Number(m[1]) : null;
    gpus.push({
      name,
      memory_total_mib: mib,
      memory_total_gib: mib === null ? null : Math.round((mib / 1024) * 100) / 100,
      driver_version: driver || null,
    });
  }
  if (gpus.length === 0) return null;
  const banner = await exec('nvidia-smi', []);
  const cuda = banner.code === 0 ? (/CUDA Version:\s*([\d.]+)/.exec(banner.stdout)?.[1] ?? null) : null;
  return { gpus, count: gpus.length, driver_version: gpus[0].driver_version, cuda_version: cuda };
}

// ---- servelab and host ----------------------------------------------------------------------

export interface HostInfo {
  servelab_version: string | null;
  hostname: string;
  platform: string;
  arch: string;
  os_release: string;
  node_version: string;
  cpu_model: string | null;
  cpu_count: number;
  memory_gib: number;
}

/** servelab's version from its package.json (searched upwards, so it works from src/ and dist/). */
export function servelabVersion(): string | null {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const p = join(dir, 'package.json');
    if (existsSync(p)) {
      try {
        const pkg = JSON.parse(readFileSync(p, 'utf8')) as { name?: string; version?: string };
        if (pkg.name === 'servelab') return pkg.version ?? null;
      } catch {
        /* keep looking */
      }
    }
    dir = dirname(dir);
  }
  return null;
}

/** servelab's version and the host it runs on. */
export function hostInfo(): HostInfo {
  const c = cpus();
  return {
    servelab_version: servelabVersion(),
    hostname: hostname(),
    platform: platform(),
    arch: arch(),
    os_release: release(),
    node_version: process.version,
    cpu_model: c[0]?.model ?? null,
    cpu_count: c.length,
    memory_gib: Math.round((totalmem() / 1024 ** 3) * 10) / 10,
  };
}

// ---- assembling the record ------------------------------------------------------------------

export interface ExperimentRecordInput {
  spec: SharedFile;
  targetName: string;
  /** From {@link probeTarget}; absent for a virtual-clock sim target. */
  probe?: EngineProbeResult | null;
  /** From {@link probeGpu}; only for local targets. */
  gpu?: GpuProbe | null;
  host: HostInfo;
  /** The tokenizer used to make prompts (`qwen3`, `approximate`) and how prompts were made exact. */
  tokenizer?: { name: string; method: string } | null;
}

/**
 * The record for one target of an experiment: probed facts first, then what the file
 * declares, and `missing` for the rest. `quality` and `metrics` start missing; executors set
 * them with {@link setRecordField} once a run has them.
 */
export function buildExperimentRecord(input: ExperimentRecordInput): ExperimentRecord {
  const { spec, targetName, probe, gpu, host } = input;
  const t: TargetSpec | undefined = spec.targets[targetName];
  if (!t) throw new Error(`no target ${targetName} in the experiment`);
  // What the simulator runs with: the file's settings and the defaults of those it leaves out.
  const sim = t.sim && withSimDefaults(t.sim);
  const d = t.declared ?? {};
  const p = probe ?? null;
  const P = (what: string) => `probed: ${what}`;
  const probedModel = p?.models.find((m) => m.parent === null) ?? p?.models[0];
  const modelId = t.model ?? spec.model ?? sim?.served_model_name ?? sim?.model ?? null;

  const engineFromProbe = p && p.engine !== 'unknown';
  const gpuName = gpu?.gpus[0]?.name;
  return {
    schema_version: 1,
    target: targetName,
    model: makeField({
      id: probedModel ? [probedModel.id, P('/v1/models')] : [modelId],
      // No engine reports a weights revision; `root` (the path or repo the weights came from) is the closest probe.
      revision: [d.model_revision],
      root: [probedModel?.root, P('/v1/models root')],
    }),
    template: makeField({
      tokenizer: [input.tokenizer?.name, 'declared: servelab tokenizer'],
      tokenization: [input.tokenizer?.method, 'declared: servelab tokenizer'],
      chat_template: [d.chat_template],
    }),
    engine: makeField({
      name: engineFromProbe
        ? [p.engine, P(p.evidence.find((e) => !e.startsWith('version')) ?? 'server')]
        : sim
          ? ['servelab-sim', 'declared: sim target']
          : [d.engine],
      version: p?.engine_version
        ? [p.engine_version, P(p.evidence.find((e) => e.startsWith('version')) ?? 'server')]
        : sim && sim.clock === 'virtual'
          ? [host.servelab_version, 'declared: in-process simulator']
          : [d.engine_version],
      server_header: [p?.server_header, P('Server header')],
    }),
    image: makeField({ digest: [d.image] }),
    device: makeField({
      gpu: gpuName ? [gpuName, P('nvidia-smi')] : sim ? [sim.gpu, 'declared: simulated'] : [d.gpu],
      count: gpu ? [gpu.count, P('nvidia-smi')] : sim ? [sim.tp, 'declared: simulated (tp)'] : [d.gpu_count],
      memory_gib:
        gpu?.gpus[0]?.memory_total_gib != null
          ? [gpu.gpus[0].memory_total_gib, P('nvidia-smi')]
          : [d.gpu_memory_gib],
      interconnect: [d.interconnect],
      simulated: [sim ? true : gpu ? false : null, sim ? 'declared: sim target' : P('nvidia-smi')],
    }),
    software: makeField({
      driver: gpu?.driver_version ? [gpu.driver_version, P('nvidia-smi')] : [d.driver],
      cuda: gpu?.cuda_version ? [gpu.cuda_version, P('nvidia-smi')] : [d.cuda],
      rocm: [d.rocm],
      kernel_backend: [d.kernel_backend],
    }),
    precision: makeField({
      weights: [d.weights_dtype ?? sim?.dtype ?? null],
      activations: [d.activations_dtype],
      kv_cache: [d.kv_cache_dtype ?? sim?.kv_cache_dtype ?? null],
    }),
    limits: makeField({
      max_model_len:
        p?.max_model_len != null
          ? [p.max_model_len, P(p.max_model_len_source ?? '/v1/models max_model_len')]
          : [d.max_model_len ?? sim?.max_model_len],
      max_num_seqs: [d.max_num_seqs ?? sim?.max_num_seqs],
      max_num_batched_tokens: [d.max_num_batched_tokens ?? sim?.max_num_batched_tokens],
    }),
    generation: makeField(
      Object.fromEntries(
        Object.entries({ ...spec.generation, ...(t.generation ?? {}) }).map(([k, v]) => [k, [v]]),
      ) as Record<string, [unknown]>,
    ),
    cache: makeField({
      policy: [spec.cache.policy],
      reset: [spec.cache.reset],
      prefix_caching: [sim ? sim.enable_prefix_caching : null],
      routing: [spec.cache.routing ?? d.routing],
    }),
    load: makeField({
      mode: [spec.load.mode ?? (spec.load.rates ? 'open' : 'closed')],
      // Unset: the synthetic prompts' declared lengths, or a dataset's own.
      input_len: [spec.workload.input_len ?? (spec.workload.dataset ? null : syntheticDefault('input_len'))],
      output_len: [
        spec.workload.output_len ?? (spec.workload.dataset ? null : syntheticDefault('output_len')),
      ],
      dataset: [
        spec.workload.dataset ? `${spec.workload.dataset.format}:${spec.workload.dataset.path}` : null,
      ],
      shared_prefix: [spec.workload.shared_prefix ?? null],
      concurrency: [spec.load.concurrency],
      rates: [spec.load.rates],
      arrival: [spec.load.rates ? spec.load.arrival : null],
      requests: [spec.load.requests],
      duration_s: [spec.load.duration_s],
      seed: [spec.workload.seed ?? spec.seed],
    }),
    quality: makeField({ samples: [null], successes: [null], truncations: [null], errors: [null] }),
    metrics: makeField({}),
    servelab: host,
  };
}
