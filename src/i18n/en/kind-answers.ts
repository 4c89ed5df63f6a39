/**
 * Prose of the experiment kinds' answers (keys `answer.*`): the question, the one-sentence
 * verdict, the table headers and the chart titles that the sweeps, prefix-cache,
 * team-assistant, mixed-input and matrix build (`answer` in src/exp/kinds/*; the structure is
 * src/report/answer.ts). Metric keys (`ttft_ms`) and units stay as they are.
 */
export const kindAnswers = {
  'answer.target_clause': '{target}: {text}',
  'answer.interval.search':
    'the search bracket: the SLO was met at {met} and missed at {missed}; each level was measured once, so run-to-run variation is not in the band',
  'answer.col.errors_pct': 'errors %',
  'answer.list_sep': ', ',
  // concurrency-sweep and rate-sweep (src/exp/kinds/sweep-report.ts)
  'answer.sweep.question_c':
    'How much throughput does the engine give as concurrency rises, and at which level does more load stop paying (the knee)?',
  'answer.sweep.question_c_slo':
    'How much throughput does the engine give as concurrency rises, where does more load stop paying (the knee), and what is the largest concurrency meeting the SLO?',
  'answer.sweep.question_rate':
    'How do throughput and latency respond to rising request rates, and at which rate does the engine stop keeping up (the knee)?',
  'answer.sweep.level_c': 'concurrency {level}',
  'answer.sweep.level_rate': '{level} req/s',
  'answer.sweep.tok_s': '{v} output tok/s',
  'answer.sweep.rps': '{v} req/s',
  'answer.sweep.rule.error_rate': 'the error rate reached {value} (limit {limit})',
  'answer.sweep.rule.ttft_p99': "p99 TTFT reached {value} ms, over {k} × the first level's {base} ms",
  'answer.sweep.rule.e2e_p99': "p99 E2E reached {value} ms, over {k} × the first level's {base} ms",
  'answer.sweep.knee': 'Throughput stops rising at {knee} ({tput}): more load adds latency, not throughput',
  'answer.sweep.knee_stop':
    'The knee is {knee} ({tput}): at the next level, {stop}, {why}, which ended the sweep',
  'answer.sweep.and_stop': '; the sweep stopped at {stop}: {why}',
  'answer.sweep.undetermined': 'No knee can be named: only {valid} of {n} levels are valid',
  'answer.sweep.rising':
    'Throughput still rises at the last valid level, {last} ({tput}): the knee lies beyond the levels tried; extend them',
  'answer.sweep.slo': '; at most {n} concurrent requests meet the SLO (p90: {slo})',
  'answer.sweep.slo_unbounded':
    '; at least {n} concurrent requests meet the SLO (p90: {slo}); it still held at the largest level tried',
  'answer.sweep.slo_none': '; no concurrency meets the SLO (p90: {slo}), not even the first level',
  'answer.sweep.slo_past_stop':
    ' (past the level where the sweep stopped: the SLO is looser than the stop rule)',
  'answer.sweep.slo_undetermined': '; the largest concurrency meeting the SLO is undetermined ({why})',
  'answer.sweep.chart_title': 'Throughput and p99 latency against load',
  'answer.sweep.series.throughput': 'throughput tok/s',
  'answer.sweep.series.ttft_p99': 'p99 TTFT ms',
  'answer.sweep.axis.throughput': 'output throughput',
  'answer.sweep.axis.latency': 'p99 latency',
  'answer.sweep.series.e2e_p99': 'p99 E2E ms',
  'answer.sweep.slo_line': 'SLO {metric} ≤ {value} ms',
  'answer.sweep.series.knee': 'knee',
  'answer.sweep.knee_mark': 'knee',
  'answer.sweep.col.knee': 'knee',
  'answer.sweep.col.slo': 'SLO (p90)',
  // team-assistant (src/exp/kinds/team-assistant-report.ts)
  'answer.team.question':
    'How many colleagues can share the assistant while at least {pct}% of their turns meet the SLO ({slo})? The team asked about: {n}.',
  'answer.team.band_what': '{target}: TTFT p90 {value} ms at {n} users, 80% band',
  'answer.team.users': '{n} users',
  'answer.team.one_user': '1 user',
  'answer.team.largest':
    'The largest team meeting the SLO is {n}: {met} of the turns met it at {n} (95% CI {ci}), {fail_met} at {fail} (95% CI {fail_ci})',
  'answer.team.unbounded':
    'The largest team meeting the SLO is at least {n} ({met} of the turns at {n}, 95% CI {ci}): the largest level tried still met it',
  'answer.team.none': 'No team meets the SLO: even {users} met it on only {met} of the turns',
  'answer.team.undetermined': 'The largest team meeting the SLO cannot be named: {why}',
  'answer.team.fit': '; a team of {n} colleagues fits',
  'answer.team.no_fit': '; a team of {n} colleagues does not fit',
  'answer.team.chart_title': 'SLO attainment against users',
  'answer.team.required': 'required {pct}%',
  'answer.team.col.turns_met': 'turns met',
  'answer.team.col.ci95': '95% CI',
  'answer.team.cannot_tell':
    '; at {levels} users the turns cannot tell: the attainment is under {pct}% but its 95% CI still holds it',
  'answer.team.interval':
    'the search bracket: the SLO was met at {met} and not shown met at {missed}; each level pooled runs to at least {min_turns} turns, and the table gives its 95% interval',
  'answer.team.rule':
    "How a level is judged: each level pools runs of the same users (sessions from other seeds) until it has at least {min_turns} planned turns; it meets the SLO (✓) when at least {pct}% of its turns met it, fails (✗) when even the upper end of the attainment's 95% Wilson interval is under {pct}%, and cannot tell (?) otherwise. The answer is the largest level that meets; a level that cannot tell bounds the search like a failing one.",
  'answer.team.col.meets': 'meets',
  'answer.team.col.user_ttft': 'user wait p90 ms',
  // prefix-cache (src/exp/kinds/prefix-cache.ts)
  'answer.prefix.question':
    'How much of a repeated prompt (a {tokens}-token document with the question last) does the prefix cache serve, and how much time to first token does it save?',
  'answer.prefix.phase.cold': 'cold',
  'answer.prefix.phase.exact_repeat': 'exact repeat',
  'answer.prefix.phase.new_question': 'shared document',
  'answer.prefix.phase.scattered': 'scattered',
  'answer.prefix.expected.none': 'no hits',
  'answer.prefix.expected.full': 'the whole prompt',
  'answer.prefix.expected.document': 'the document',
  'answer.prefix.expected.partial': 'partial (revisits)',
  'answer.prefix.hit_of': '{phase} {hit}',
  'answer.prefix.ttft_of': '{phase} {ms} ms',
  'answer.prefix.verdict':
    'Share of the prompt served from the prefix cache: {hits}; p50 TTFT: cold {cold} ms, then {warm}',
  'answer.prefix.verdict_no_cold':
    'Share of the prompt served from the prefix cache: {hits}; p50 TTFT: {ttft}',
  'answer.prefix.no_counts':
    'The server reported no cached tokens (neither in its responses nor on /metrics), so the hits cannot be told; p50 TTFT: {ttft}',
  'answer.prefix.not_judged':
    '; where the hits fall could not be judged: no request reported its prompt tokens',
  'answer.prefix.as_expected': '; every phase hit where expected',
  'answer.prefix.not_expected': '; the hits are NOT where expected in: {phases}',
  'answer.prefix.col.prefill_from': 'prefill from',
  'answer.prefix.prefill_server': 'server timings',
  'answer.prefix.prefill_ttft': 'TTFT (upper bound)',
  'answer.prefix.chart_title': 'p50 TTFT per phase',
  // mixed-input (src/exp/kinds/mixed-input.ts)
  'answer.mixed.question':
    'How much do long prefills ({long}-token prompts) stall the decoding of short requests ({short}-token prompts), and in which arrival order most?',
  'answer.mixed.order.short_first': 'short-first',
  'answer.mixed.order.long_first': 'long-first',
  'answer.mixed.order.interleaved': 'interleaved',
  'answer.mixed.verdict':
    'Long prefills stall decoding most in the {worst} order: a gap during a long prefill is {ratio}× a clean one (least: {best}, {best_ratio}×)',
  'answer.mixed.verdict_one': 'In the {order} order, a gap during a long prefill is {ratio}× a clean one',
  'answer.mixed.no_stall':
    'Long prefills did not stall decoding in any order: the largest stall ratio is {ratio}× ({order})',
  'answer.mixed.no_ratio':
    'No stall ratio could be measured in any order: it needs gaps both during a long prefill and outside one',
  'answer.mixed.col.overlap_mean': 'overlapping mean ms',
  'answer.mixed.col.overlap_p99': 'overlapping p99 ms',
  'answer.mixed.col.clean_mean': 'clean mean ms',
  'answer.mixed.col.clean_p99': 'clean p99 ms',
  'answer.mixed.col.short_ttft': 'short TTFT p50 ms',
  'answer.mixed.col.long_ttft': 'long TTFT p50 ms',
  'answer.mixed.col.cache_hits': 'prefix-cache hits',
  'answer.mixed.col.timeline': 'timeline',
  'answer.mixed.timeline_server': 'engine',
  'answer.mixed.timeline_client': 'client (upper bound)',
  'answer.mixed.timeline_note': 'Gaps timed on the {timeline} timeline in every order.',
  'answer.mixed.chart_title': 'Stall ratio per arrival order',
  // matrix (src/exp/kinds/matrix.ts)
  'answer.matrix.question':
    'How do time to first token, time per output token and throughput change across input/output lengths and concurrency?',
  'answer.matrix.verdict':
    'The most throughput is {top} at concurrency {top_c} ({tput} output tok/s); the slowest first token is {slow} at concurrency {slow_c} (p50 TTFT {ttft} ms)',
  'answer.matrix.no_data': 'No cell has both a throughput and a TTFT: no request succeeded',
  'answer.matrix.thinking':
    '; the model reasons before it answers, so TTFT includes its thinking (TTFR, the first reasoning token, is in its own column)',
  'answer.matrix.thinking_note':
    'note: the model reasons before it answers: TTFT (first content token) includes the thinking; TTFR p50 is the first reasoning token',
  'answer.matrix.chart_title': 'Output throughput per cell',
  'answer.matrix.series': 'concurrency {c}',
} as const;
