/**
 * Prose of the "team" section (keys `team.*`): the `team-assistant` experiment's progress lines,
 * console result and write-up section (src/exp/kinds/team-assistant.ts), in the course's terms:
 * Xiao Lin's document assistant, and what happens when 32 colleagues ask at the same time.
 */
export const team = {
  'team.progress.level':
    '  {target} users={users}: {met} of turns met the SLO, TTFT p90 {ttft} ms, TPOT p90 {tpot} ms, {verdict}',
  'team.progress.replicated': ' ({reps} runs pooled, {turns} turns)',
  'team.undetermined_probe': 'the run at {users} users is not valid ({codes})',
  'team.header':
    '{target}: sessions of {turns} turns, thinking {think} s; SLO {slo} on at least {pct}% of the turns',
  'team.col.users': 'users',
  'team.col.turns': 'turns ok',
  'team.col.met': 'SLO met',
  'team.col.queue': 'queue ms',
  'team.col.prefill': 'prefill ms',
  'team.col.interference': 'decode interf. ms',
  'team.col.server_hit': 'server cache hit',
  'team.col.intended': 'intended sharing',
  'team.search_note':
    '* a probe of the bisection between the last level meeting the SLO and the first failing one',
  'team.largest': 'largest team meeting the SLO: {n} users',
  'team.largest_unbounded':
    'largest team meeting the SLO: at least {n} users (the largest level tried still met it; add larger levels to load.users)',
  'team.largest_undetermined': 'largest team meeting the SLO: undetermined ({why})',
  'team.colleagues_fit': 'a team of {n} colleagues: meets the SLO',
  'team.colleagues_no_fit': 'a team of {n} colleagues: does not meet the SLO',
  'team.wait.split':
    'where the wait is at {users} users (mean per turn): queueing {queue} ms, prefill {prefill} ms, decode interference {decode} ms (stall ratio {ratio})',
  'team.wait.split_client':
    "where the wait is at {users} users (mean per turn, the client's view: the server sent no timings): client-side queueing {queue} ms, decode interference {decode} ms (stall ratio {ratio}); prefill and the engine's queue are not told apart",
  'team.wait.verdict': '  → the wait is mostly {where}',
  'team.wait.unknown':
    '  → where the wait is cannot be told: the server sent no timings and no diagnosis rule fired',
  'team.wait.queueing': 'queueing (turns wait for the engine to take them)',
  'team.wait.prefill': 'prefill (reading the prompt: documents and history not served by the cache)',
  'team.wait.decode': "decode interference (answers slowed by other turns' prefills)",
  'team.wait.rules': '  diagnosis: {rules}',
  'team.cache':
    'prefix cache at {users} users: server hit rate {server} (responses: {usage} cached), intended by the workload {intended}, of it shared documents {documents}',
  'team.time_scale':
    'think times and session starts were divided by time_scale {scale}: the colleagues thought that many times faster than the question asks',
  'team.writeup.title': 'The team question: how many colleagues can share the assistant?',
  'team.writeup.question':
    'The document assistant works for one user. The question of the course is what happens when {n} colleagues ask at the same time: each asks a question, reads the answer, thinks, and asks a follow-up about the same document, so every turn resends the conversation and colleagues share the documents.',
  'team.writeup.design':
    'Each colleague is a session of {turns} turns, thinking {think} s between an answer and the next question. A team meets the SLO when at least {pct}% of its planned turns meet {slo} (a turn never sent misses it). The number of users was swept and bisected between the last level meeting the SLO and the first failing one.',
  'team.writeup.fit': 'A team of {n} colleagues meets the SLO on this setup.',
  'team.writeup.no_fit': 'A team of {n} colleagues does not meet the SLO on this setup.',
  'team.writeup.wait_intro':
    'Where the wait is, at the level that decided the answer (first place the wait, then choose the experiment): queueing is the time a turn waits before the engine takes it (client-side waits and the engine queue), prefill is TTFT minus the engine queue, decode interference is the time answers lost to other turns’ prefills.',
  'team.writeup.means_queueing':
    'The first content is late because turns queue: the engine is full. More replicas, a larger max_num_seqs when memory allows, or fewer colleagues per replica; a concurrency sweep (`servelab exp init concurrency-sweep`) shows where the queue starts.',
  'team.writeup.means_prefill':
    'The first content is late because the prompt is long: the documents and the history the cache does not serve are read again. Check the prefix-cache hit rate against the intended sharing, session affinity when there are replicas, and chunked prefill (`servelab exp init prefix-cache`).',
  'team.writeup.means_decode':
    "Answers stall in the middle: other colleagues' prefills share the engine's steps with the decodes. A smaller max_num_batched_tokens (chunked prefill) bounds the stall; `servelab exp init mixed-input` measures it.",
  'team.writeup.cache':
    "The server's prefix-cache hit rate was {server}; the workload intended {intended} (an unbounded cache's hit rate), {documents} of it from the shared documents.",
} as const;
