/** Prose of the "shard" section (keys `shard.*`): `run --shard`, the common start and `merge`. */
export const shard = {
  'shard.flag.bad': 'not a shard i/N with 0 ≤ i < N (got {got})',
  'shard.flag.hint':
    'e.g. --shard 0/3 --start-in 10 (the index defaults to $JOB_COMPLETION_INDEX, the count to $SERVELAB_SHARD_COUNT)',
  'shard.cap.split': 'a cap of {cap} cannot be split over {count} shards',
  'shard.cap.hint': 'give {flag} {count} or more, or use fewer shards',
  'shard.late.bad': 'unknown late policy "{got}"',
  'shard.late.hint':
    'use fail (a shard more than 1 s late sends nothing) or truncate (it cancels what it missed)',
  'shard.start.both': 'give one of --start-at and --start-in, not both',
  'shard.start.hint':
    'every shard needs the same start: --start-at 2026-12-01T15:00:00Z (RFC 3339), or --start-in 10 (seconds from now)',
  'shard.start.bad': 'not an RFC 3339 time: "{got}"',
  'shard.seed.needed':
    'the shards of one run must send the same requests, and each would draw a seed of its own',
  'shard.seed.needed_hint':
    'give every shard the same --seed N, or a common --start-at (the seed is then drawn from it)',
  'shard.start.badIn': 'not a number of seconds ≥ 0: "{got}"',
  'shard.start.noShard': '--start-at, --start-in and --late-policy apply only to a sharded run',
  'shard.start.required': 'a run split over more than one shard needs a common start',
  'shard.late.failed':
    'shard {index}/{count} started {late_ms} ms after the common start (more than {limit_ms} ms): it sent nothing',
  'shard.late.failedHint':
    'start every shard before the common start (a later --start-at), or accept a late start with --late-policy truncate',
  'shard.late.truncated': '{n} arrival(s) missed by a late start were recorded as cancelled (late start)',
  'shard.run.wrote': 'shard {index}/{count} of run {run_id}: wrote {files}',
  'shard.merge.noFiles': 'no shard reports given',
  'shard.merge.noFilesHint':
    'give the shard files, e.g. servelab merge --expect 3 out/report.shard-*.json --out merged',
  'shard.merge.expect': '--expect must be an integer ≥ 1 (got {got})',
  'shard.merge.expectHint': 'the number of shards the run was split into, e.g. --expect 3',
  'shard.merge.out': '--out is missing',
  'shard.merge.outHint': 'the folder for the merged report.json, e.g. --out merged',
  'shard.merge.read': 'cannot read {file}: {why}',
  'shard.merge.notShard': '{file} is not a shard report ({why})',
  'shard.merge.notShardHint': 'give the report.shard-<i>-of-<N>.json files that run --shard i/N wrote',
  'shard.merge.count': '{file} is shard {index} of {count}, but --expect says {expect}',
  'shard.merge.countHint': 'give --expect with the N of the run’s --shard i/N',
  'shard.merge.duplicate': 'shard {index} is given twice: {files}',
  'shard.merge.duplicateHint': 'give each shard once',
  'shard.merge.missing': 'shard(s) {missing} of {expect} are missing',
  'shard.merge.missingHint':
    'give every shard, or --allow-missing to merge the rest and count the missing shards’ requests as lost',
  'shard.merge.mismatch': '{file} has {field} {got}, but {first} has {want}: they are not shards of one run',
  'shard.merge.mismatchHint': 'merge only the shards of one run (the same flags, seed and start)',
  'shard.merge.layout': '{file} has histograms in another layout ({got})',
  'shard.merge.layoutHint': 'write every shard with the same servelab version',
  'shard.merge.records': 'cannot read the records of {file}: {why}',
  'shard.merge.recordsHint': '--exact needs each shard’s requests.shard-<i>-of-<N>.jsonl beside its report',
  'shard.merge.spread':
    'the shards’ actual starts spread over {spread_ms} ms (more than 50 ms): the combined arrivals are not quite the planned schedule (give every shard one --start-at)',
  'shard.merge.lost': '{n} planned request(s) of missing shard(s) {shards} are counted as lost (failed)',
  'shard.merge.approx':
    'percentiles come from the merged histograms (within 0.1% of the recorded values); merge --exact recomputes every statistic from the records',
  'shard.merge.noDetail':
    '{fields} are not kept in shard histograms: null here; merge --exact recomputes them from the records',
  'shard.merge.shardWarning': 'shard {index}: {warning}',
  'shard.merge.invalid': 'shard {index} is not valid: {reason}',
  'shard.merge.counts':
    'planned {planned}  measured {measured}  succeeded {succeeded}  failed {failed} (lost {lost})',
  'shard.merge.done': 'merged {n} of {expect} shard(s) of run {run_id} ({mode}): {files}',
  'shard.workers.bad': '--workers must be an integer ≥ 1 or auto (got {got})',
  'shard.workers.hint': 'e.g. --workers 4, or --workers auto for one per core',
  'shard.workers.withShard':
    '--workers splits a run on this host; --shard is one shard of a run split over hosts',
  'shard.workers.withShardHint':
    'give one of them: --workers N on one host, or --shard i/N on each of N hosts (unset $JOB_COMPLETION_INDEX for --workers)',
  'shard.workers.start':
    'starting {n} workers (run --shard i/{n}); they start together {margin_ms} ms after the last one is ready',
  'shard.workers.failed': 'worker {index}/{count} exited with code {code}:\n{stderr}',
  'shard.workers.failedHint':
    'the worker runs run --shard {index}/{count}; fix what its error says and run again',
  'shard.workers.late':
    'a worker started after the common start and sent nothing: the merged run is missing its requests',
  'shard.workers.interruptedEmpty':
    'interrupted before any worker had started measuring: nothing was recorded, no file or store row written',
  'shard.workers.wrote': 'merged {n} workers of run {run_id}: wrote {files}',
  'shard.workers.merged': 'merged {n} workers of run {run_id}',
} as const;
