/**
 * @module workload/shared-prefix
 * inference-perf's `shared_prefix` data as a pure plan: `numGroups` system prompts of
 * `systemPromptLen` tokens, each followed by `promptsPerGroup` questions of `questionLen` tokens,
 * so N·M distinct prompts, shuffled once; request n of a stage sends `prompts[n % (N·M)]`, so
 * whole prompts repeat every N·M requests (and a prefix cache can hit most of each prompt).
 * Upstream: `kubernetes-sigs/inference-perf` @ e8e0aa99,
 * `inference_perf/datagen/shared_prefix_datagen.py` (`_generate_prompts`: per group one random
 * system prompt and `num_prompts_per_group` random questions, joined by a space, then
 * `random.shuffle`; `load_lazy_data`: `data_index % len(prompts)`), and
 * `inference_perf/loadgen/load_generator.py` (`run_stage` numbers each stage's requests from 0).
 * Lengths are fixed here (upstream's `question_len_std` etc. default to fixed lengths).
 */
import { Rng } from '../runtime/rng.js';
import { fitText, type TokenCounter, WordStream } from './exact.js';
import type { LengthDist } from './lengths.js';
import type { SpecMaker } from './spec-stream.js';
import { COUNT_CONCURRENCY, mapLimit, streamRng } from './streams.js';

export interface SharedPrefixSpec {
  /** System prompts (upstream `num_groups`, default 10). */
  numGroups: number;
  /** Questions per system prompt (upstream `num_prompts_per_group`, default 10). */
  promptsPerGroup: number;
  /** Tokens of each system prompt. */
  systemPromptLen: number;
  /** Tokens of each question. */
  questionLen: number;
  /** Output tokens of each request (max_tokens, sent with ignore_eos). */
  outputLen: number;
}

/** One of the N·M prompts: its group and its question within the group. */
export interface SharedPrefixSlot {
  group: number;
  question: number;
}

/**
 * The N·M prompts in their shuffled order (Fisher–Yates, seeded): slot k is what request k,
 * k + N·M, k + 2·N·M, … of a stage send.
 */
export function sharedPrefixOrder(spec: SharedPrefixSpec, seed: number): SharedPrefixSlot[] {
  const slots: SharedPrefixSlot[] = [];
  for (let g = 0; g < spec.numGroups; g++)
    for (let q = 0; q < spec.promptsPerGroup; q++) slots.push({ group: g, question: q });
  const rng = new Rng(`${seed}:shared-prefix-order`);
  for (let i = slots.length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [slots[i], slots[j]] = [slots[j], slots[i]];
  }
  return slots;
}

/** The slot request `n` (0-based within its stage) sends. */
export function sharedPrefixSlotAt(order: readonly SharedPrefixSlot[], n: number): SharedPrefixSlot {
  return order[n % order.length];
}

/**
 * Random token ids for every prompt, in the shuffled order: prompt k = its group's system
 * prompt followed by its question, `systemPromptLen + questionLen` ids (times `lengthScale`,
 * for servers that re-tokenize decoded random ids into more tokens, split in the same ratio).
 * For the simulator, which takes token ids; upstream decodes the ids to text.
 */
export function sharedPrefixTokenIds(
  spec: SharedPrefixSpec,
  seed: number,
  vocabSize: number,
  lengthScale = 1,
): number[][] {
  const sysLen = Math.round(spec.systemPromptLen * lengthScale);
  const qLen = Math.round(spec.questionLen * lengthScale);
  const rng = new Rng(`${seed}:shared-prefix-ids`);
  const ids = (n: number) => Array.from({ length: n }, () => rng.int(0, vocabSize - 1));
  const systems = Array.from({ length: spec.numGroups }, () => ids(sysLen));
  const questions = systems.map(() => Array.from({ length: spec.promptsPerGroup }, () => ids(qLen)));
  return sharedPrefixOrder(spec, seed).map((s) => systems[s.group].concat(questions[s.group][s.question]));
}

/**
 * inference-perf's `shared_prefix` data: G groups × M fixed questions, G·M prompts in a seeded
 * shuffled order ({@link sharedPrefixOrder}); `workload/build` sends prompt n mod G·M as request
 * n, so whole prompts repeat every G·M requests. Each prompt is its group's prefix then its own
 * question, `--input-len` tokens in all (sampled once per prompt). Upstream numbers the cycle from
 * 0 in each load stage; here it runs across the run (the same when stages hold multiples of G·M).
 */
async function cyclingPrompts(
  o: { seed: number; inputLen: LengthDist; prefixLen: number; groups: number; promptsPerGroup: number },
  counter: TokenCounter,
  prefixes: readonly { text: string; tokens: number }[],
): Promise<{ prompts: { text: string; input_len: number; group: number }[]; inexact: number }> {
  const { prefixLen, groups, promptsPerGroup } = o;
  const order = sharedPrefixOrder(
    { numGroups: groups, promptsPerGroup, systemPromptLen: prefixLen, questionLen: 0, outputLen: 0 },
    o.seed,
  );
  const lenRng = streamRng(o.seed, 'input_len');
  const lens = order.map(() => Math.max(prefixLen + 1, o.inputLen.sample(lenRng)));
  let inexact = 0;
  const prompts = await mapLimit(order, COUNT_CONCURRENCY, async (slot, k) => {
    const head = prefixes[slot.group];
    const words = new WordStream(streamRng(o.seed, 'question', slot.group * promptsPerGroup + slot.question));
    const fit = await fitText(counter, words, lens[k], head.text, head.tokens);
    if (fit.tokens !== lens[k]) inexact++;
    return { text: fit.text, input_len: lens[k], group: slot.group };
  });
  return { prompts, inexact };
}

/** Request n of the cycle: prompt n mod G·M ({@link cyclingPrompts}), its output length drawn by `outLen`. */
export async function cyclingMaker(
  o: Parameters<typeof cyclingPrompts>[0] & { count: number },
  counter: TokenCounter,
  prefixes: readonly { text: string; tokens: number }[],
  outLen: (i: number) => number | null,
): Promise<{ maker: SpecMaker<{ input_len: number; output_len: number | null }>; inexact: number }> {
  const { prompts, inexact } = await cyclingPrompts(o, counter, prefixes);
  const maker: SpecMaker<{ input_len: number; output_len: number | null }> = {
    count: o.count,
    draw: (i) => ({ input_len: prompts[i % prompts.length].input_len, output_len: outLen(i) }),
    build: async (index, { input_len, output_len }) => {
      const p = prompts[index % prompts.length];
      return { index, prompt: p.text, input_len, output_len, prefix_group: p.group };
    },
  };
  return { maker, inexact };
}
