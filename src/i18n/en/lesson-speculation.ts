/**
 * Prose of the `lesson-speculation` experiment template (keys `lesson.speculation.*`,
 * `exp/lessons/speculation`): its comments, its answer and its mechanism.
 */
export const lessonSpeculation = {
  'lesson.speculation.about':
    'Lesson: why speculative decoding helps a lone request and stops helping a full batch.\nThe one factor changed: speculation off (spec-off) or EAGLE with 3 drafts (spec-on).\nHeld fixed: model, GPU, prompts (64 tokens), outputs (128 tokens), seed, concurrency levels.',
  'lesson.speculation.real_engine':
    'Against a real engine, point spec-off and spec-on at two servers (one started with --speculative-config) under url targets.',
  'lesson.speculation.question':
    'How much faster is each output token with speculative decoding, as the batch grows?',
  'lesson.speculation.header': 'Lesson: speculative decoding against the batch',
  'lesson.speculation.row': 'concurrency {c}: TPOT p50 {off} ms off → {on} ms on: speed-up ×{x} ({sign})',
  'lesson.speculation.sign.faster': 'faster',
  'lesson.speculation.sign.slower': 'slower',
  'lesson.speculation.sign.same': 'no change',
  'lesson.speculation.falls':
    'The speed-up falls with the batch: ×{first} at concurrency {c1}, ×{last} at {cn}.',
  'lesson.speculation.not_falling':
    'The speed-up does not fall with the batch here (×{first} at concurrency {c1}, ×{last} at {cn}): check that the levels reach a compute-bound batch.',
  'lesson.speculation.missing':
    'No comparison: the sweep needs the targets spec-off and spec-on at the same levels.',
  'lesson.speculation.mechanism':
    'Why: each step, every decoding request proposes k tokens (EAGLE: k passes of a one-layer head) and the target verifies the k + 1 positions in one forward pass; it keeps the accepted prefix and one token of its own, and rolls the rejected drafts back (num_computed_tokens −= num_rejected: their KV slots are overwritten next step). At a small batch the step is memory-bound: reading the weights costs the same for 1 or k + 1 positions, so about 2.8 tokens per step cost little more than one step. As the batch grows the step turns compute-bound: k + 1 positions per request cost k + 1 times the GEMM work, the rejected ones included, so the gain shrinks and then reverses.\nSee it: the step timeline (--record-steps) shows each verify step batching k + 1 tokens per decode; the run summary prints the acceptance rate and what the verify pass threw away. Source map: vLLM vllm/v1/core/sched/scheduler.py (update_from_output, the rollback) and vllm/v1/spec_decode/eagle.py; SGLang python/sglang/srt/speculative/eagle_worker.py; llama.cpp tools/server/server.cpp (timings.draft_n, draft_n_accepted).',
} as const;
