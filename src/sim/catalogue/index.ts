/**
 * @module sim/catalogue
 * Lookup of GPUs and models by their lower-case names, and extension of the built-in
 * catalogue with a YAML/JSON file:
 *
 * ```yaml
 * gpus:
 *   b200:
 *     memoryGiB: 178
 *     bandwidthTBps: 8
 *     bf16Tflops: 2250
 *     fp8Tflops: 4500
 *     fp8Units: true
 *     interconnect: { kind: nvlink, bandwidthGBps: 900, latencyUs: 20 }
 * models:
 *   mistral-7b:            # any Hugging Face config.json fields; unknown ones are ignored
 *     num_hidden_layers: 32
 *     hidden_size: 4096
 *     ...
 * ```
 */
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { type Problem, UsageError } from '../../core/errors.js';
import {
  BUILTIN_GPUS,
  BUILTIN_MODELS,
  NVLINK_ALLREDUCE_LATENCY_US,
  PCIE_ALLREDUCE_LATENCY_US,
} from './builtin.js';
import type { Catalogue, GpuSpec, ModelSpec } from './types.js';

export { BUILTIN_GPUS, BUILTIN_MODELS } from './builtin.js';
export type { Catalogue, GpuSpec, Interconnect, ModelSpec } from './types.js';

/** A fresh copy of the built-in catalogue (callers may add to it). */
export function defaultCatalogue(): Catalogue {
  return { gpus: { ...BUILTIN_GPUS }, models: { ...BUILTIN_MODELS } };
}

const pos = z.number().positive();
const posInt = z.number().int().positive();

const gpuSchema = z.strictObject({
  deviceName: z.string().optional(),
  memoryGiB: pos,
  bandwidthTBps: pos,
  bf16Tflops: pos,
  fp8Tflops: pos.nullable().optional(),
  fp8Units: z.boolean().optional(),
  interconnect: z
    .strictObject({
      kind: z.enum(['nvlink', 'pcie', 'xgmi']),
      bandwidthGBps: pos,
      latencyUs: z.number().nonnegative().optional(),
    })
    .optional(),
});

// Non-strict on purpose: a Hugging Face config.json carries many fields the cost model ignores.
// Optional fields accept null too: config.json files often write `"head_dim": null`.
// A missing tie_word_embeddings means untied, the default of Llama/Qwen2/Qwen3/Mistral configs.
const modelSchema = z.object({
  hf_id: z.string().nullish(),
  num_hidden_layers: posInt,
  hidden_size: posInt,
  num_attention_heads: posInt,
  num_key_value_heads: posInt.nullish(),
  head_dim: posInt.nullish(),
  intermediate_size: posInt,
  vocab_size: posInt,
  tie_word_embeddings: z.boolean().nullish(),
  max_position_embeddings: posInt,
  reasoning: z.boolean().nullish(),
});

const fileSchema = z.strictObject({
  gpus: z.record(z.string(), gpuSchema).optional(),
  models: z.record(z.string(), modelSchema).optional(),
});

const NAME_RE = /^[a-z0-9][a-z0-9._-]*$/;

/**
 * Parse catalogue text (YAML or JSON) and return `base` extended with its entries (entries with
 * an existing name replace the built-in one). Throws {@link UsageError} listing every problem.
 */
export function parseCatalogue(
  text: string,
  source: string,
  base: Catalogue = defaultCatalogue(),
): Catalogue {
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (e) {
    throw new UsageError([
      {
        path: source,
        message: `not valid YAML/JSON: ${(e as Error).message}`,
        hint: 'check the file syntax',
      },
    ]);
  }
  const parsed = fileSchema.safeParse(raw ?? {});
  if (!parsed.success) {
    throw new UsageError(
      parsed.error.issues.map((i) => ({
        path: `${source}: ${i.path.join('.') || '(root)'}`,
        message: i.message,
        hint: 'gpus need memoryGiB, bandwidthTBps, bf16Tflops; models need Hugging Face config.json fields (see docs/sim.md)',
      })),
    );
  }
  const problems: Problem[] = [];
  const out: Catalogue = { gpus: { ...base.gpus }, models: { ...base.models } };
  for (const [name, g] of Object.entries(parsed.data.gpus ?? {})) {
    if (!NAME_RE.test(name)) {
      problems.push({
        path: `${source}: gpus.${name}`,
        message: 'bad name',
        hint: 'use lower-case letters, digits, . _ -',
      });
      continue;
    }
    const fp8Units = g.fp8Units ?? (g.fp8Tflops != null && g.fp8Tflops > 0);
    const spec: GpuSpec = {
      name,
      deviceName: g.deviceName ?? name,
      memoryGiB: g.memoryGiB,
      bandwidthTBps: g.bandwidthTBps,
      bf16Tflops: g.bf16Tflops,
      fp8Tflops: g.fp8Tflops ?? null,
      fp8Units,
      interconnect: {
        kind: g.interconnect?.kind ?? 'pcie',
        bandwidthGBps: g.interconnect?.bandwidthGBps ?? 32,
        latencyUs:
          g.interconnect?.latencyUs ??
          (g.interconnect?.kind === 'pcie' || !g.interconnect
            ? PCIE_ALLREDUCE_LATENCY_US
            : NVLINK_ALLREDUCE_LATENCY_US),
      },
    };
    if (fp8Units && spec.fp8Tflops == null) {
      problems.push({
        path: `${source}: gpus.${name}.fp8Tflops`,
        message: 'fp8Units is true but fp8Tflops is missing',
        hint: 'give the dense FP8 TFLOPS, or set fp8Units: false',
      });
    }
    out.gpus[name] = spec;
  }
  for (const [name, m] of Object.entries(parsed.data.models ?? {})) {
    if (!NAME_RE.test(name)) {
      problems.push({
        path: `${source}: models.${name}`,
        message: 'bad name',
        hint: 'use lower-case letters, digits, . _ -',
      });
      continue;
    }
    const nkv = m.num_key_value_heads ?? m.num_attention_heads;
    const headDim = m.head_dim ?? m.hidden_size / m.num_attention_heads;
    if (!Number.isInteger(headDim)) {
      problems.push({
        path: `${source}: models.${name}.head_dim`,
        message: 'hidden_size is not a multiple of num_attention_heads',
        hint: 'give head_dim explicitly',
      });
    }
    if (m.num_attention_heads % nkv !== 0) {
      problems.push({
        path: `${source}: models.${name}.num_key_value_heads`,
        message: `${nkv} does not divide num_attention_heads (${m.num_attention_heads})`,
        hint: 'check the config.json values',
      });
    }
    const spec: ModelSpec = {
      name,
      hf_id: m.hf_id ?? name,
      num_hidden_layers: m.num_hidden_layers,
      hidden_size: m.hidden_size,
      num_attention_heads: m.num_attention_heads,
      num_key_value_heads: nkv,
      head_dim: headDim,
      intermediate_size: m.intermediate_size,
      vocab_size: m.vocab_size,
      tie_word_embeddings: m.tie_word_embeddings ?? false,
      max_position_embeddings: m.max_position_embeddings,
      reasoning: m.reasoning ?? false,
    };
    out.models[name] = spec;
  }
  if (problems.length) throw new UsageError(problems);
  return out;
}

/**
 * Read a YAML/JSON catalogue file and return `base` (default: the built-in catalogue) extended
 * with its `gpus:` and `models:` entries. Throws {@link UsageError} listing every problem.
 */
export function loadCatalogueFile(path: string, base: Catalogue = defaultCatalogue()): Catalogue {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new UsageError([
      {
        path,
        message: `cannot read catalogue file (${(e as NodeJS.ErrnoException).code ?? 'error'})`,
        hint: 'check the path',
      },
    ]);
  }
  return parseCatalogue(text, path, base);
}
