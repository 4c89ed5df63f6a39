/**
 * Prose of the "sessions" section (keys `sessions.*`): the distribution grammar
 * (src/workload/lengths.ts), the session and document options (src/workload/sessions.ts,
 * src/cli/options.ts), the sessions block of the run table (src/report/run/sessions.ts) and
 * `plan --find-max-users` (src/cli/commands/plan.ts).
 */
export const sessions = {
  // src/workload/lengths.ts
  'sessions.dist.forms_hint':
    'use a value (512), uniform:MIN-MAX (uniform:128-1024), normal:MEAN,STD (normal:512,64), exp:MEAN (exp:2) or lognormal:MEDIAN,SIGMA (lognormal:10,0.5)',
  'sessions.dist.invalid': "invalid value '{text}': {why}",
  'sessions.dist.whole': 'a count must be a whole number',
  'sessions.dist.value_min': 'the value must be ≥ {min}',
  'sessions.dist.minimum_min': 'the minimum must be ≥ {min}',
  'sessions.dist.max_below_min': 'the maximum must be ≥ the minimum',
  'sessions.dist.mean_min': 'the mean must be ≥ {min}',
  'sessions.dist.positive': '{what} must be > 0',
  'sessions.dist.no_form': 'not one of the accepted forms',
  // src/workload/sessions.ts
  'sessions.users.bad': 'the number of users must be a whole number ≥ 1 (got {got})',
  'sessions.users.hint': 'e.g. --users 8 --turns uniform:3-6 --think-time exp:10',
  'sessions.documents.bad': 'the number of documents must be a whole number ≥ 0 (got {got})',
  'sessions.documents.hint': 'e.g. --documents 4 --doc-len uniform:2000-8000 --doc-popularity zipf:1',
  'sessions.documents.needed': '--doc-len and --doc-popularity describe shared documents, and there are none',
  'sessions.doc_len.missing': 'shared documents need a length',
  'sessions.doc_len.hint': 'give --doc-len in tokens, e.g. --doc-len 4000 or --doc-len uniform:2000-8000',
  'sessions.popularity.bad': "unknown document popularity '{got}'",
  'sessions.popularity.hint':
    'use zipf:S (S ≥ 0; zipf:0 picks documents uniformly, zipf:1 favours the first)',
  'sessions.source.synthetic': 'session questions are synthetic prompts of --input-len tokens',
  'sessions.source.synthetic_hint': 'drop --prompt, --prompts, --dataset and --trace, and give --input-len',
  'sessions.source.prefix': 'sessions share documents, not a --shared-prefix-len prefix',
  'sessions.source.prefix_hint': 'use --documents D --doc-len L for what the sessions share',
  // src/cli/options.ts
  'sessions.flags.needs_users': '{flag} describe sessions, and {users} is missing',
  'sessions.flags.needs_users_hint': 'add --users N, e.g. --users 8 --turns 4 --think-time exp:5',
  'sessions.flags.clash':
    '{users} runs sessions (each user a closed loop over its turns); it does not combine with {flags}',
  'sessions.flags.clash_hint':
    'the turns are the requests: set their number with {users} and {turns}, and how users start with {ramp_up} or {session_rate}',
  'sessions.flags.start_both': '{ramp_up} and {session_rate} both say how sessions start',
  'sessions.flags.warmup': 'a sessions run has no warm-up (yet)',
  'sessions.flags.warmup_hint':
    'drop --warmup; the first turns of the sessions are the cold start, reported per turn',
  // src/cli/commands/run.ts
  'sessions.header.bad': "'{name}' is not an HTTP header name",
  'sessions.header.hint': 'e.g. --session-header x-session-id (letters, digits and - only)',
  // src/report/run/sessions.ts
  'sessions.table.title': 'sessions',
  'sessions.table.users': 'users (sessions)',
  'sessions.table.completed': 'completed every turn',
  'sessions.table.ended_early': 'ended early (a turn failed)',
  'sessions.table.turns': 'turns succeeded / planned',
  'sessions.table.turns_per_minute': 'turns per user-minute',
  'sessions.table.user_ttft': 'user_ttft_ms p50 / p90 / p99',
  'sessions.table.per_turn': 'per turn (ms; the user waits from asking to the first content)',
  'sessions.table.turn': 'turn',
  'sessions.table.prompt_tokens': 'prompt tok',
  'sessions.table.cache_hit': 'cache hit',
  'sessions.table.intended': 'intended',
  'sessions.table.sharing': 'prefix sharing',
  'sessions.table.sharing_intended': 'intended by the workload',
  'sessions.table.sharing_documents': '  of it, shared documents',
  'sessions.table.sharing_usage': 'cached tokens / prompt tokens (usage)',
  'sessions.table.sharing_server': "server's prefix-cache hit rate (/metrics)",
  // src/cli/commands/plan.ts
  'sessions.plan.needs_users': '--find-max-users searches over the users of a sessions run',
  'sessions.plan.needs_users_hint':
    'give --users N (the most users to try) with --turns and --think-time, e.g. --users 64 --turns 4 --think-time exp:10',
  'sessions.plan.both_searches': '--find-max-users and --find-max-concurrency are two different searches',
  'sessions.plan.max_users':
    'most users at think time {think} s with {pct}% of turns meeting the SLO: {users} (searched up to {most})',
  'sessions.plan.max_users_all':
    'all {users} users at think time {think} s have {pct}% of turns meeting the SLO (the most searched: give a larger --users to search further)',
  'sessions.plan.no_users': 'not even 1 user at think time {think} s has {pct}% of turns meeting the SLO',
  // src/pipeline/shard.ts
  'sessions.shard.refused': 'a sessions run cannot be sharded (--shard, --workers) yet',
  'sessions.shard.refused_hint':
    'run the sessions from one process (one process drives hundreds of users), or split the users over separate runs',
} as const;
