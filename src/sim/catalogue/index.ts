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
 *
 * The same loader reads a model's own Hugging Face `config.json` (a file with `model_type` or
 * `architectures` at the top and no `gpus:`/`models:`): one model, named after its directory
 * (or `_name_or_path`, or the name the caller gives). That is `--model-config FILE`.
 */
import { readFileSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { z } from 'zod';
import { type Problem, UsageError } from '../../core/errors.js';
import { parseUserYaml } from '../../core/yaml.js';
import {
  BUILTIN_GPUS,
  BUILTIN_MODELS,
  NVLINK_ALLREDUCE_LATENCY_US,
  PCIE_ALLREDUCE_LATENCY_US,
} from './builtin.js';
import type { Catalogue, GpuSpec, ModelSpec } from './types.js';

export { BUILTIN_GPUS, BUILTIN_MODELS } from './builtin.js';
export {
  activeLayerParams,
  expectedExpertsTouched,
  isMoe,
  layerParams,
  layerWeightBytesReadPerStep,
  type ParamCounts,
  paramCounts,
} from './params.js';
export type { Catalogue, GpuSpec, Interconnect, ModelSpec } from './types.js';

/** A fresh copy of the built-in catalogue (callers may add to it). */
export function defaultCatalogue(): Catalogue {
  return { gpus: { ...BUILTIN_GPUS }, models: { ...BUILTIN_MODELS } };
}

const pos = z.number().positive();
const posInt = z.number().int().positive();
const nonNegInt = z.number().int().nonnegative();

/**
 * The Hugging Face architectures the cost model describes: decoder-only, grouped-query
 * attention, SwiGLU MLPs, optionally Qwen-style routed experts. DeepSeek's R1 distills are
 * `llama` and `qwen2`.
 */
export const MODEL_TYPES = ['llama', 'mistral', 'qwen2', 'qwen3', 'qwen2_moe', 'qwen3_moe'] as const;
const ARCHITECTURES: Record<string, (typeof MODEL_TYPES)[number]> = {
  LlamaForCausalLM: 'llama',
  MistralForCausalLM: 'mistral',
  Qwen2ForCausalLM: 'qwen2',
  Qwen3ForCausalLM: 'qwen3',
  Qwen2MoeForCausalLM: 'qwen2_moe',
  Qwen3MoeForCausalLM: 'qwen3_moe',
};
/** `torch_dtype` (or newer transformers' `dtype`) values of a checkpoint vLLM serves as is or casts. */
const TORCH_DTYPES = ['bfloat16', 'float16', 'float32'];
const MODEL_HINT =
  'a model needs the Hugging Face config.json fields num_hidden_layers, hidden_size, num_attention_heads, ' +
  'intermediate_size, vocab_size, max_position_embeddings (see docs/sim.md)';

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
const modelSchema = z
  .object({
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
    model_type: z.string().nullish(),
    architectures: z.array(z.string()).nullish(),
    torch_dtype: z.string().nullish(),
    dtype: z.string().nullish(),
    _name_or_path: z.string().nullish(),
    num_experts: nonNegInt.nullish(),
    num_experts_per_tok: nonNegInt.nullish(),
    moe_intermediate_size: nonNegInt.nullish(),
    shared_expert_intermediate_size: nonNegInt.nullish(),
    decoder_sparse_step: posInt.nullish(),
    mlp_only_layers: z.array(nonNegInt).nullish(),
  })
  .superRefine(
    (m, ctx) => {
      const add = (field: string, message: string, hint: string) =>
        ctx.addIssue({ code: 'custom', path: [field], message, params: { hint } });
      const supported = `supported model_type: ${MODEL_TYPES.join(', ')}`;
      const type = typeof m.model_type === 'string' ? m.model_type : undefined;
      if (type !== undefined && !(MODEL_TYPES as readonly string[]).includes(type))
        add(
          'model_type',
          `"${type}" is not an architecture the simulator models`,
          `${supported}; a decoder-only model with grouped-query attention and SwiGLU MLPs can be simulated as one of them by setting model_type in a catalogue file`,
        );
      const archs = Array.isArray(m.architectures) ? m.architectures : [];
      if (type === undefined && archs.length > 0 && !archs.some((a) => Object.hasOwn(ARCHITECTURES, a)))
        add(
          'architectures',
          `${archs.join(', ')} is not an architecture the simulator models`,
          `supported: ${Object.keys(ARCHITECTURES).join(', ')}`,
        );
      for (const field of ['torch_dtype', 'dtype'] as const) {
        const v = m[field];
        if (typeof v === 'string' && !TORCH_DTYPES.includes(v))
          add(field, `unknown ${field} "${v}"`, `one of ${TORCH_DTYPES.join(', ')}`);
      }
      const moeType = type?.endsWith('_moe') ?? false;
      const experts = typeof m.num_experts === 'number' ? m.num_experts : 0;
      if (moeType && !experts)
        add(
          'num_experts',
          `a ${type} model needs its routed experts`,
          'copy num_experts from the config.json',
        );
      if (experts > 0) {
        const k = m.num_experts_per_tok;
        if (typeof k !== 'number' || k < 1 || k > experts)
          add(
            'num_experts_per_tok',
            `expected the experts each token uses, 1 to num_experts (${experts}), got ${k ?? 'nothing'}`,
            'copy num_experts_per_tok from the config.json',
          );
        if (!m.moe_intermediate_size)
          add(
            'moe_intermediate_size',
            'an MoE model needs the intermediate size of one expert',
            'copy moe_intermediate_size from the config.json',
          );
      }
    },
    // Run even when a field failed, so that every problem is reported at once.
    { when: () => true },
  );

const fileSchema = z.strictObject({
  gpus: z.record(z.string(), gpuSchema).optional(),
  models: z.record(z.string(), modelSchema).optional(),
});

const NAME_RE = /^[a-z0-9][a-z0-9._-]*$/;

/** What a catalogue read added, by name. */
export interface CatalogueRead {
  catalogue: Catalogue;
  gpus: string[];
  models: string[];
}

/** Options of a catalogue read. */
export interface CatalogueReadOptions {
  /** The name of the model of a config.json file (default: its directory name or `_name_or_path`). */
  modelName?: string;
}

/** Whether parsed text is one model's Hugging Face config.json rather than a catalogue. */
function isHfConfig(raw: unknown): raw is Record<string, unknown> {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return false;
  const o = raw as Record<string, unknown>;
  return !('gpus' in o) && !('models' in o) && ('model_type' in o || 'architectures' in o);
}

/** `Qwen/Qwen3-30B-A3B`, `My Model` → a catalogue name (`qwen3-30b-a3b`, `my-model`), or '' */
function toName(s: string): string {
  return s
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[^a-z0-9]+|-+$/g, '');
}

/**
 * The name of a config.json's model: its directory (`…/Qwen3-30B-A3B/config.json`), except a
 * Hugging Face cache snapshot (`models--Qwen--Qwen3-8B/snapshots/<hash>/config.json`), whose
 * repository name is used; then `_name_or_path`; then the file's own name.
 */
export function modelNameFromPath(path: string, nameOrPath?: string | null): string {
  const dir = dirname(path);
  const file = basename(path);
  if (file === 'config.json') {
    const d = basename(dir);
    const repo = /^models--[^-].*?--(.+)$/.exec(basename(dirname(dirname(dir))));
    if (/^[0-9a-f]{40}$/.test(d) && basename(dirname(dir)) === 'snapshots' && repo) return toName(repo[1]);
    if (d && d !== '.' && d !== '/') {
      const n = toName(d);
      if (n) return n;
    }
  }
  if (nameOrPath) {
    const n = toName(nameOrPath.split(/[\\/]/).filter(Boolean).pop() ?? '');
    if (n) return n;
  }
  return toName(file.replace(/\.(json|ya?ml)$/i, ''));
}

/**
 * Parse catalogue text (YAML or JSON), or one model's Hugging Face config.json, and return `base`
 * extended with its entries (entries with an existing name replace the built-in one) and the
 * names it added. Throws {@link UsageError} listing every problem, each with a hint.
 */
export function readCatalogueText(
  text: string,
  source: string,
  base: Catalogue = defaultCatalogue(),
  opts: CatalogueReadOptions = {},
): CatalogueRead {
  let raw = parseUserYaml(text, source, 'check the file syntax');
  // A config.json is one model: read it as a catalogue of that model, so both go through one schema.
  const hf = isHfConfig(raw);
  let hfName = '';
  if (isHfConfig(raw)) {
    const cfg = raw;
    const nameOrPath = typeof cfg._name_or_path === 'string' ? cfg._name_or_path : undefined;
    hfName = opts.modelName !== undefined ? toName(opts.modelName) : modelNameFromPath(source, nameOrPath);
    if (!hfName)
      throw new UsageError([
        {
          path: source,
          message: 'cannot name the model of this config.json',
          hint: 'name it with --model NAME',
        },
      ]);
    const hfId = nameOrPath && /^[\w.-]+\/[\w.-]+$/.test(nameOrPath) ? nameOrPath : undefined;
    raw = { models: { [hfName]: { hf_id: hfId, ...cfg } } };
  }
  const parsed = fileSchema.safeParse(raw ?? {});
  if (!parsed.success) {
    throw new UsageError(
      parsed.error.issues.map((i) => {
        // A config.json's fields are named as the file writes them, without `models.NAME.`.
        const field = (hf ? i.path.slice(2) : i.path).join('.');
        const kind = hf ? 'models' : i.path[0];
        const own = (i as { params?: { hint?: string } }).params?.hint;
        return {
          path: `${source}: ${field || '(root)'}`,
          message: i.message
            .replace(/^Invalid input: (expected \w+), received undefined$/, 'missing ($1)')
            .replace(/^Invalid input: /, ''),
          hint:
            own ??
            (kind === 'gpus'
              ? 'gpus need memoryGiB, bandwidthTBps, bf16Tflops (see docs/sim.md)'
              : kind === 'models'
                ? MODEL_HINT
                : hf
                  ? MODEL_HINT
                  : "a catalogue file has gpus: and models: (see docs/sim.md); a model's config.json has model_type"),
        };
      }),
    );
  }
  const where = (name: string, field: string) =>
    hf ? `${source}: ${field}` : `${source}: models.${name}.${field}`;
  const problems: Problem[] = [];
  const out: Catalogue = { gpus: { ...base.gpus }, models: { ...base.models } };
  const added: CatalogueRead = { catalogue: out, gpus: [], models: [] };
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
    added.gpus.push(name);
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
        path: where(name, 'head_dim'),
        message: 'hidden_size is not a multiple of num_attention_heads',
        hint: 'give head_dim explicitly',
      });
    }
    if (m.num_attention_heads % nkv !== 0) {
      problems.push({
        path: where(name, 'num_key_value_heads'),
        message: `${nkv} does not divide num_attention_heads (${m.num_attention_heads})`,
        hint: 'check the config.json values',
      });
    }
    const modelType =
      m.model_type ?? m.architectures?.map((a) => ARCHITECTURES[a]).find((t) => t !== undefined) ?? undefined;
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
      // Qwen3 (dense and MoE) thinks before answering by default, and so do DeepSeek's R1 distills.
      reasoning:
        m.reasoning ??
        (modelType === 'qwen3' ||
          modelType === 'qwen3_moe' ||
          /r1-distill/.test(`${name} ${m.hf_id ?? ''}`.toLowerCase())),
    };
    if (modelType) spec.model_type = modelType;
    if (m.torch_dtype ?? m.dtype) spec.torch_dtype = (m.torch_dtype ?? m.dtype) as string;
    if (m.num_experts) {
      spec.num_experts = m.num_experts;
      spec.num_experts_per_tok = m.num_experts_per_tok ?? 0;
      spec.moe_intermediate_size = m.moe_intermediate_size ?? 0;
      spec.shared_expert_intermediate_size = m.shared_expert_intermediate_size ?? 0;
      spec.decoder_sparse_step = m.decoder_sparse_step ?? 1;
      spec.mlp_only_layers = m.mlp_only_layers ?? [];
    }
    out.models[name] = spec;
    added.models.push(name);
  }
  if (problems.length) throw new UsageError(problems);
  return added;
}

/**
 * Parse catalogue text (YAML or JSON) and return `base` extended with its entries (entries with
 * an existing name replace the built-in one). Throws {@link UsageError} listing every problem.
 */
export function parseCatalogue(
  text: string,
  source: string,
  base: Catalogue = defaultCatalogue(),
): Catalogue {
  return readCatalogueText(text, source, base).catalogue;
}

/**
 * Read a catalogue file, or one model's Hugging Face config.json, and return `base` extended
 * with its entries and the names it added. Throws {@link UsageError} listing every problem.
 */
export function readCatalogueFile(
  path: string,
  base: Catalogue = defaultCatalogue(),
  opts: CatalogueReadOptions = {},
): CatalogueRead {
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
  return readCatalogueText(text, path, base, opts);
}

/**
 * Read a YAML/JSON catalogue file (or a model's config.json) and return `base` (default: the
 * built-in catalogue) extended with its `gpus:` and `models:` entries. Throws
 * {@link UsageError} listing every problem.
 */
export function loadCatalogueFile(path: string, base: Catalogue = defaultCatalogue()): Catalogue {
  return readCatalogueFile(path, base).catalogue;
}

/**
 * `--model-config FILE`: read one model, from its Hugging Face config.json (or a catalogue file
 * with one model), into `base`, named `name` when given. Returns the catalogue and the model's name.
 * @throws UsageError listing every problem of the file, or when it holds no model or several.
 */
export function loadModelConfig(
  path: string,
  base: Catalogue = defaultCatalogue(),
  name?: string,
): { catalogue: Catalogue; model: string } {
  const read = readCatalogueFile(path, base, { modelName: name });
  if (read.models.length !== 1)
    throw new UsageError([
      {
        path,
        message: `holds ${read.models.length} models (${read.models.join(', ') || 'none'}), not one`,
        hint: "give a model's Hugging Face config.json, or use --catalogue for a file of several",
      },
    ]);
  const [found] = read.models;
  const model = name !== undefined ? toName(name) : found;
  if (model !== found) {
    // A catalogue file's one model, renamed by --model.
    read.catalogue.models[model] = { ...read.catalogue.models[found], name: model };
    if (!Object.hasOwn(base.models, found)) delete read.catalogue.models[found];
    else read.catalogue.models[found] = base.models[found];
  }
  return { catalogue: read.catalogue, model };
}
