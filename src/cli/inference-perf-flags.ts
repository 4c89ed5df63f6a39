/**
 * @module cli/inference-perf-flags
 * `run --config FILE` and `plan --config FILE`: an inference-perf configuration
 * (`config/inference-perf`, upstream schema `kubernetes-sigs/inference-perf` @ e8e0aa99,
 * `inference_perf/config.py`) read as the servelab flags it stands for, under the flags given
 * on the command line (a flag given wins). What is read differently from upstream's words goes
 * to `notes` (printed before the run).
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { type InferencePerfDistribution, parseInferencePerfConfig } from '../config/inference-perf.js';
import { type Problem, UsageError } from '../core/errors.js';
import type { T } from '../i18n/index.js';
import type { RawCommon } from './raw-flags.js';

/** inference-perf's truncated normal as servelab's length grammar (the truncation is not kept). */
function lengthOf(d: InferencePerfDistribution): string {
  return d.std_dev > 0 ? `normal:${d.mean},${d.std_dev}` : String(Math.round(d.mean));
}

/**
 * `raw` with the flags of `raw.config`'s inference-perf file filled in where not given.
 * A missing or malformed file, or a data type servelab cannot make, is a problem with a hint.
 */
export function withInferencePerfConfig<R extends RawCommon & { endpoint?: string }>(
  raw: R,
  cwd: string,
  problems: Problem[],
  notes: string[],
  t: T,
): R {
  const file = raw.config as string | undefined;
  if (file === undefined) return raw;
  let text: string;
  try {
    text = readFileSync(resolve(cwd, file), 'utf8');
  } catch (err) {
    problems.push({
      path: '--config',
      message: t('cli.inference_perf.unreadable', {
        file,
        reason: (err as NodeJS.ErrnoException).code ?? '',
      }),
      hint: t('cli.inference_perf.hint'),
    });
    return raw;
  }
  let plan: ReturnType<typeof parseInferencePerfConfig>;
  try {
    plan = parseInferencePerfConfig(text, file, t);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    problems.push(...err.problems);
    return raw;
  }
  const from: Record<string, unknown> = {
    endpoint: plan.endpoint,
    stages: plan.stages.map((s) => `${s.rateRps}x${s.durationS}`).join(','),
    stagePause: String(plan.stagePauseS),
    arrival: plan.arrival,
  };
  // inference-perf's default is a non-streaming request; servelab's flag defaults to streaming.
  if (!plan.stream) from.stream = false;
  const d = plan.data;
  if (d.kind === 'shared_prefix') {
    const sp = d.sharedPrefix;
    Object.assign(from, {
      sharedPrefixLen: String(sp.systemPromptLen),
      numPrefixGroups: String(sp.numGroups),
      promptsPerGroup: String(sp.promptsPerGroup),
      inputLen: String(sp.systemPromptLen + sp.questionLen),
      outputLen: String(sp.outputLen),
      ignoreEos: true,
    });
    if (d.multiTurn) notes.push(t('cli.inference_perf.multi_turn'));
  } else if (d.kind === 'random' || d.kind === 'synthetic') {
    if (d.input) from.inputLen = lengthOf(d.input);
    if (d.output) from.outputLen = lengthOf(d.output);
    notes.push(t('cli.inference_perf.truncation'));
  } else
    problems.push({
      path: `${file}: data.type`,
      message: t('cli.inference_perf.data', { kind: d.kind }),
      hint: t('cli.inference_perf.data_hint'),
    });
  notes.push(...plan.notes.map((n) => `${file}: ${n}`));
  const out = { ...raw } as Record<string, unknown>;
  for (const [k, v] of Object.entries(from))
    if (out[k] === undefined || (k === 'stream' && out[k] === true)) out[k] = v;
  return out as R;
}
