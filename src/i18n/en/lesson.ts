/** Prose of the course's lessons (keys `lesson.*`): `exp init lesson-…`, each lesson's effect and mechanism. */
export const lesson = {
  'lesson.factor_label': 'The one factor it changes',
  'lesson.fixed_label': 'Held fixed',
  'lesson.run_it':
    'Run it: servelab exp run {name}.yaml, then servelab report EXP_ID --html r.html (the step timeline shows the mechanism). Against your engine: servelab exp init {name} --url URL.',
  'lesson.tpl.cells': 'prompt lengths: the factor',
  'lesson.tpl.batch': 'requests in flight (the batch)',
  'lesson.tpl.ignore_eos': 'every request generates the same number of tokens',
  'lesson.tpl.shared_prefix': 'every prompt starts with the same tokens',
  'lesson.tpl.mixed': 'short and long prompts mixed',
  'lesson.tpl.int4_levels': 'batch 1 (weight-bound) and a large batch (compute-bound)',
  'lesson.tpl.voice_vary': 'how the reply is cut for speech',
  'lesson.tpl.spec_levels': 'one request alone (memory-bound) up to a batch the step is compute-bound at',
  'lesson.tpl.two_gpu':
    'an A100-80GB: there each engine’s default step differs (vLLM 2,048 tokens shared with the decodes, SGLang 8,192-token prefill batches that run alone)',
  'lesson.tpl.two_levels': 'one request alone, then 4 and 16 in flight: where prefills meet decodes',
  'lesson.no_data': 'no data: the runs gave no number to judge the effect by',
  'lesson.holds': 'As the course expects.',
  'lesson.not_holds': 'NOT what the course expects: read the mechanism below against the step timeline.',
  'lesson.factor': 'Changes: {text}',
  'lesson.fixed': 'Holds fixed: {text}',
  'lesson.mechanism_label': 'Mechanism: {text}',
  'lesson.look_steps':
    'Where to see it: servelab report EXP_ID --html r.html draws each run’s step timeline (--request ID picks a request; --trace-events t.json opens in Perfetto).',
  'lesson.source': 'Source ({engine}): {path} {symbol} (docs/source-map.md)',
  'lesson.mechanism.cache': 'cache',
  'lesson.mechanism.scheduling': 'scheduling',
  'lesson.mechanism.kernel': 'kernel',
  'lesson.mechanism.precision': 'precision',
  'lesson.mechanism.output_length': 'output length',
  'lesson.mechanism.none': 'NO MECHANISM FOUND',
  'lesson.two.diff': '{metric} at concurrency {c}: {a} vs {b} → {mechanism}',

  'lesson.lesson-long-context.question': 'Why does a long context still slow decode down?',
  'lesson.lesson-long-context.factor': 'the prompt length (1k, 4k, 8k tokens)',
  'lesson.lesson-long-context.fixed':
    'the model, GPU and engine, the batch (concurrency 1 and 8), the output length (64 tokens, ignore_eos)',
  'lesson.lesson-long-context.effect':
    'At concurrency {c}, TPOT p50 went from {short} ms ({from}) to {long} ms ({to}): {change}.',
  'lesson.lesson-long-context.mechanism':
    'Every decode step reads the whole KV cache of every request in the batch: attention over n context tokens moves n × (KV bytes per token) from GPU memory, on top of the weights. The weights are read once per step whatever the context; the KV grows with it, so a step of long contexts is longer even at the same batch. In the step timeline, the decode steps of the 8k cell are longer than those of the 1k cell with the same number of requests.',
  'lesson.lesson-paging-vs-prefix.question': 'Why are paging and prefix hits different things?',
  'lesson.lesson-paging-vs-prefix.factor': 'automatic prefix caching on or off',
  'lesson.lesson-paging-vs-prefix.fixed':
    'the prompts (2,048 shared tokens + 256 of their own), the output length, the engine and its KV block size',
  'lesson.lesson-paging-vs-prefix.effect':
    'TTFT p50 at concurrency 1 was {on} ms with prefix caching and {off} ms without ({change}).',
  'lesson.lesson-paging-vs-prefix.blocks':
    'A running request held {on} KV blocks with prefix caching and {off} without: the hit saved compute, not memory pages.',
  'lesson.lesson-paging-vs-prefix.no_blocks':
    'KV blocks held: no data (the runs recorded no steps: record_steps and a store are needed).',
  'lesson.lesson-paging-vs-prefix.mechanism':
    'Paging (vLLM’s PagedAttention blocks, SGLang’s token pool, llama.cpp’s slot cells) is how KV memory is laid out: a request holds one block per block_size tokens of its context, hit or not. A prefix hit only means some of those blocks already hold the right KV, so their tokens are not prefilled again: TTFT falls, the blocks a running request holds do not. In the step timeline, the prefill chunks of prefix-on runs are 256 tokens where prefix-off runs prefill 2,304, and the blocks after the last chunk are the same.',
  'lesson.lesson-batch-vs-tail.question': 'Why can a larger batch hurt tail latency?',
  'lesson.lesson-batch-vs-tail.factor': 'the number of requests in flight (concurrency 1 → 32)',
  'lesson.lesson-batch-vs-tail.fixed':
    'the model, GPU and engine, the step token budget (2,048), the prompt and output lengths',
  'lesson.lesson-batch-vs-tail.effect':
    'From concurrency {lo} to {hi}, p99 ITL went from {itl_lo} ms to {itl_hi} ms ({itl_change}) while output throughput went from {tp_lo} to {tp_hi} tok/s ({tp_change}).',
  'lesson.lesson-batch-vs-tail.mechanism':
    'A larger batch shares each step’s weight reads among more requests, so throughput rises; but each step is longer, and with more requests arriving, more steps also carry another request’s prefill chunk (chunked prefill puts it in the same forward pass as the decodes). A decode in such a step waits for the whole chunk: those are the tail gaps. In the step timeline of the larger batch, the long steps under a request’s worst gaps are the ones with a prefill chunk.',
  'lesson.lesson-int4.question': 'Why is INT4 not always faster?',
  'lesson.lesson-int4.factor': 'the weight precision (bf16 or int4, AWQ/GPTQ-style weight-only)',
  'lesson.lesson-int4.fixed':
    'the model (Llama 3.1 8B), GPU, engine, prompts and output length; batch 1 and a batch of 128',
  'lesson.lesson-int4.effect':
    'At concurrency {c}, TPOT p50 was {bf16} ms in bf16 and {int4} ms in int4 ({change}).',
  'lesson.lesson-int4.mechanism':
    'At batch 1 a decode step is bound by reading the weights: int4 reads about a quarter of the bytes, so it is faster. At a large batch the step is bound by the matrix multiplies instead, and weight-only int4 must first dequantise each weight tile to 16 bits (the Marlin/AWQ kernels) before the same multiply: extra work the memory saving no longer pays for, so int4 is no faster, or slower.',
  'lesson.lesson-speculation.question':
    'Why does speculative decoding roll back, and why does its speed-up fall as the batch grows?',
  'lesson.lesson-speculation.factor':
    'speculative decoding off (spec-off) or EAGLE with 3 draft tokens per step (spec-on)',
  'lesson.lesson-speculation.fixed':
    'the model (Qwen3 8B), GPU and engine, the prompts (64 tokens), the output length (128 tokens, ignore_eos), the seed and the concurrency levels',
  'lesson.lesson-speculation.effect':
    'At concurrency {c}, TPOT p50 {off} ms off → {on} ms on: speed-up ×{x} ({sign}).',
  'lesson.lesson-speculation.faster': 'faster',
  'lesson.lesson-speculation.slower': 'slower',
  'lesson.lesson-speculation.same': 'no change',
  'lesson.lesson-speculation.falls':
    'The speed-up falls with the batch: ×{first} at concurrency {c1}, ×{last} at {cn}.',
  'lesson.lesson-speculation.not_falling':
    'The speed-up does not fall with the batch here (×{first} at concurrency {c1}, ×{last} at {cn}): check that the levels reach a compute-bound batch.',
  'lesson.lesson-speculation.mechanism':
    'Each step, every decoding request proposes k tokens (EAGLE: k passes of a one-layer head) and the target verifies the k + 1 positions in one forward pass; it keeps the accepted prefix and one token of its own, and rolls the rejected drafts back (num_computed_tokens −= num_rejected: their KV slots are overwritten next step). At a small batch the step is memory-bound: reading the weights costs the same for 1 or k + 1 positions, so about 2.8 tokens per step cost little more than one step. As the batch grows the step turns compute-bound: k + 1 positions per request cost k + 1 times the GEMM work, the rejected ones included, so the gain shrinks and then reverses. In the step timeline of spec-on, each verify step carries k + 1 tokens per decode, and the trace’s spec_proposed and spec_accepted show what the step threw away; the run summary prints the acceptance rate.',
  'lesson.lesson-voice.question': 'Why is the first audio of a voice reply not the text TTFT?',
  'lesson.lesson-voice.factor': 'how the reply is cut for speech (per sentence or the whole reply)',
  'lesson.lesson-voice.fixed': 'the speech, the LLM and its load, ASR and TTS and their settings',
  'lesson.lesson-voice.effect':
    'Cut per {value}: time to first audio p50 {tfa} ms against text TTFT p50 {ttft} ms ({gap} ms), made of endpointing {endpoint} ms, ASR {asr} ms, waiting for the first chunk {wait} ms, TTS first byte {tts} ms and the playback buffer {buffer} ms.',
  'lesson.lesson-voice.mechanism':
    'The first audio waits for the whole chain: the end of the user’s speech must be detected (endpointing), transcribed (ASR), the LLM must produce its first tokens (text TTFT) and then enough text for the first speakable piece (a sentence, or the whole reply), TTS must produce its first bytes and the player must buffer. Text TTFT is one link of it; the step timeline shows the LLM’s part only.',
  'lesson.lesson-two-engines.question':
    'Under the same conditions, where does each difference between a vLLM-like and an SGLang-like engine come from?',
  'lesson.lesson-two-engines.factor':
    'the engine, each with its own defaults: vLLM v1’s scheduler (2,048-token steps that mix prefill chunks with decodes) and paged KV against SGLang’s scheduler (8,192-token prefill batches that run alone) and radix cache',
  'lesson.lesson-two-engines.fixed':
    'the model, GPU, precision, prompts (shared prefixes included), output length and load levels',
  'lesson.lesson-two-engines.effect': '{n} differences between {a} and {b}, each with one mechanism: {list}.',
  'lesson.lesson-two-engines.same':
    '{a} and {b} measured within 10% of each other on every metric: no difference to explain.',
  'lesson.lesson-two-engines.mechanism':
    'Each difference is put on one mechanism: cache (the hit rates differ), scheduling (how prompts are admitted and prefill chunks interleaved with decodes under load), kernel (a per-token cost difference at batch 1), precision (different weights) or output length (different numbers of tokens). Here the engines differ in scheduling: vLLM cuts each prompt into 2,048-token chunks that share a step with the running decodes, so a decode token waits for a chunk every step (TPOT and p99 ITL rise while prompts come in); SGLang prefills up to 8,192 tokens in a batch of its own, so decodes stop for the whole batch and then run at full speed. Both cache the shared 1,024-token prefix alike (whole 16-token blocks, or tokens of a radix tree), and precision and output length are held fixed. Read each difference in the step timelines of the two engines: the size of the prefill chunks and what shares a step with them.',
} as const;
