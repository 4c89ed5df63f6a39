/**
 * @module cli/compat-flags
 * Reading `vllm bench serve`'s and SGLang `bench_serving`'s flags on servelab's commands: the
 * plain renames, declared on the setting they rename (`config/run-settings`), move their value
 * to servelab's flag with a note; the flags that are more than a rename (datasets, prefix,
 * range ratio, goodput, result files, `vllm.json`'s percentiles) are translated here.
 */
import { aliasFlags, runFlag, runSetting, spellKey, syntheticDefault } from '../config/run-settings.js';
import type { Problem } from '../core/errors.js';
import type { T } from '../i18n/index.js';
import type { OutputSettings } from '../pipeline/settings.js';
import { VLLM_METRICS, type VllmMetric } from '../report/run/vllm.js';
import { EN, num, type RawCommon } from './raw-flags.js';
/**
 * Flags of `vllm bench serve` (vllm-project/vllm: vllm/benchmarks/serve.py,
 * vllm/benchmarks/datasets.py) and SGLang's `bench_serving` (sgl-project/sglang:
 * python/sglang/bench_serving.py) that are plain renames of a servelab flag: the value moves to
 * the servelab flag named here, and the command prints that name once, as a note. `run`-only
 * entries (the target) are declared by `run`; the rest by {@link addCompatOptions}.
 */
export const FLAG_ALIASES: Record<string, { flag: string; ours: string; key: string; from: string }> =
  Object.fromEntries(
    aliasFlags().map((a) => [
      a.attribute,
      { flag: `--${a.flag}`, ours: spellKey(a.key, 'flag'), key: runFlag(a.key).attribute, from: a.from },
    ]),
  );
export type AliasKey = string;

/** vLLM's `--goodput` names → servelab's SLO metrics (vLLM's TTFT is the first chunk of any kind). */
const VLLM_GOODPUT = { ttft: 'vllm_ttft_ms', tpot: 'tpot_ms', e2el: 'e2e_ms' } as const;

/** The renames `run` and `plan` share; `run` applies the target ones ({@link TARGET_ALIASES}) itself. */
export const COMMON_ALIASES: readonly AliasKey[] = aliasFlags()
  .filter((a) => runSetting(a.key).group !== 'target')
  .map((a) => a.attribute);
export const TARGET_ALIASES: readonly AliasKey[] = aliasFlags()
  .filter((a) => runSetting(a.key).group === 'target')
  .map((a) => a.attribute);

/**
 * Move each given alias's value to servelab's flag, with a note; an alias given together with
 * the flag it renames is a problem.
 */
export function applyAliases<R extends object>(
  input: R,
  keys: readonly AliasKey[],
  problems: Problem[],
  notes: string[],
  t: T = EN,
): R {
  const raw = input as Record<string, unknown>;
  const out: Record<string, unknown> = { ...raw };
  for (const alias of keys) {
    const v = raw[alias];
    if (v === undefined) continue;
    const { flag, ours, key, from } = FLAG_ALIASES[alias];
    if (raw[key] !== undefined) {
      problems.push({
        path: flag,
        message: t('cli.alias.both', { flag, from, ours }),
        hint: t('cli.alias.both_hint', { flag, ours }),
      });
      continue;
    }
    out[key] = v;
    notes.push(t('cli.note.alias', { flag, ours }));
  }
  return out as R;
}

/** The vLLM/SGLang flags that are more than a rename: datasets, prefix, range ratio, goodput, result files. */
export function applyCompatFlags(raw: RawCommon, problems: Problem[], notes: string[], t: T): RawCommon {
  const out: RawCommon = { ...raw };
  if (raw.datasetName !== undefined) {
    const name = raw.datasetName;
    if (name === 'random') {
      // vLLM's random dataset lengths are servelab's synthetic defaults (config/run-settings).
      if (raw.inputLen === undefined) out.inputLen = syntheticDefault('input_len');
      if (raw.outputLen === undefined) out.outputLen = syntheticDefault('output_len');
      if (raw.datasetPath !== undefined)
        problems.push({
          path: '--dataset-path',
          message: t('cli.dataset_path.random'),
          hint: t('cli.dataset_path.random_hint'),
        });
      const lens = { input: out.inputLen, output: out.outputLen };
      notes.push(
        raw.inputLen === undefined || raw.outputLen === undefined
          ? t('cli.note.dataset_random_defaults', lens)
          : t('cli.note.dataset_random', lens),
      );
    } else if (name === 'sharegpt') {
      if (raw.datasetPath === undefined)
        problems.push({
          path: '--dataset-name',
          message: t('cli.dataset_name.sharegpt_file'),
          hint: t('cli.dataset_name.sharegpt_file_hint'),
        });
      else if (raw.dataset !== undefined)
        problems.push({
          path: '--dataset-name',
          message: t('cli.dataset_name.both'),
          hint: t('cli.keep_one'),
        });
      else {
        out.dataset = ['sharegpt', raw.datasetPath];
        notes.push(t('cli.note.dataset_sharegpt'));
      }
    } else
      problems.push({
        path: '--dataset-name',
        message: t('cli.dataset_name.unknown', { name }),
        hint: t('cli.dataset_name.unknown_hint'),
      });
  } else if (raw.datasetPath !== undefined)
    problems.push({
      path: '--dataset-path',
      message: t('cli.dataset_path.needs_name'),
      hint: t('cli.dataset_path.needs_name_hint'),
    });

  const ratio = num(problems, 'random_range_ratio', raw.randomRangeRatio, t);
  if (ratio !== null && ratio >= 1)
    problems.push({
      path: '--random-range-ratio',
      message: t('cli.num.below', { max: 1, raw: ratio }),
      hint: t('cli.range_ratio.hint'),
    });
  const prefix = num(problems, 'random_prefix_len', raw.randomPrefixLen, t);
  // vLLM's random dataset: lengths uniform in [⌊N·(1−r)⌋, ⌈N·(1+r)⌉], and the prefix comes on
  // top of the input (vllm/benchmarks/datasets.py RandomDataset); servelab's --input-len counts
  // the prefix, so it is added here.
  const r = ratio !== null && ratio > 0 && ratio < 1 ? ratio : 0;
  for (const key of ['inputLen', 'outputLen'] as const) {
    const add = key === 'inputLen' && prefix ? prefix : 0;
    const n = Number(out[key]);
    if (out[key] === undefined || !Number.isInteger(n) || n <= 0) {
      if (add)
        problems.push({
          path: '--random-prefix-len',
          message: t('cli.random_prefix.plain_length'),
          hint: t('cli.random_prefix.plain_length_hint'),
        });
      continue;
    }
    const lo = Math.max(1, Math.floor(n * (1 - r))) + add;
    const hi = Math.ceil(n * (1 + r)) + add;
    if (lo === n && hi === n) continue;
    out[key] = lo === hi ? String(lo) : `uniform:${lo}-${hi}`;
    const why = [r ? `--random-range-ratio ${r}` : '', add ? `--random-prefix-len ${add}` : ''];
    notes.push(
      t('cli.note.random_lengths', {
        why: why.filter(Boolean).join(t('cli.and')),
        flag: key === 'inputLen' ? '--input-len' : '--output-len',
        value: out[key],
      }),
    );
  }
  if (prefix) {
    if (raw.sharedPrefixLen !== undefined)
      problems.push({
        path: '--random-prefix-len',
        message: t('cli.random_prefix.both'),
        hint: t('cli.keep_one'),
      });
    else {
      out.sharedPrefixLen = String(prefix);
      out.numPrefixGroups ??= '1';
      notes.push(t('cli.note.random_prefix', { n: prefix }));
    }
  }

  if (raw.goodput !== undefined) {
    const pairs: string[] = [];
    for (const kv of raw.goodput.flatMap((x) => x.split(/[\s,]+/)).filter(Boolean)) {
      const m = /^([a-z0-9]+):(.+)$/.exec(kv);
      const metric = m ? VLLM_GOODPUT[m[1] as keyof typeof VLLM_GOODPUT] : undefined;
      if (!m || !metric)
        problems.push({
          path: '--goodput',
          message: t('cli.cannot_read', { value: kv }),
          hint: t('cli.goodput.hint', { keys: Object.keys(VLLM_GOODPUT).join(', ') }),
        });
      else pairs.push(`${metric}=${m[2]}`);
    }
    if (raw.slo !== undefined)
      problems.push({
        path: '--goodput',
        message: t('cli.goodput.both'),
        hint: t('cli.keep_one'),
      });
    else if (pairs.length) {
      out.slo = pairs.join(',');
      notes.push(t('cli.note.goodput', { slo: out.slo }));
    }
  }
  if (raw.saveResult) notes.push(t('cli.note.save_result'));
  if (raw.resultFilename !== undefined && !raw.saveResult)
    problems.push({
      path: '--result-filename',
      message: t('cli.result_filename.needs_save'),
      hint: t('cli.result_filename.needs_save_hint'),
    });
  if (raw.resultFilename !== undefined && /[\\/]/.test(raw.resultFilename))
    problems.push({
      path: '--result-filename',
      message: t('cli.result_filename.path'),
      hint: t('cli.result_filename.path_hint'),
    });
  return out;
}

/** `vllm.json`'s `--percentile-metrics`, `--metric-percentiles` and `--save-detailed`. */
export function vllmOptions(raw: RawCommon, problems: Problem[], t: T): OutputSettings['vllm'] {
  let metrics: VllmMetric[] | null = null;
  if (raw.percentileMetrics !== undefined) {
    const names = raw.percentileMetrics
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean);
    const bad = names.filter((x) => !(VLLM_METRICS as readonly string[]).includes(x));
    if (bad.length || !names.length)
      problems.push({
        path: '--percentile-metrics',
        message: t('cli.percentile_metrics.unknown', {
          names: bad.join(', ') || t('cli.percentile_metrics.none'),
        }),
        hint: t('cli.percentile_metrics.hint', { names: VLLM_METRICS.join(',') }),
      });
    else metrics = names as VllmMetric[];
  }
  let percentiles: number[] | null = null;
  if (raw.metricPercentiles !== undefined) {
    const ps = raw.metricPercentiles.split(',').map((x) => Number(x.trim()));
    if (!ps.length || ps.some((p) => !Number.isFinite(p) || p <= 0 || p > 100))
      problems.push({
        path: '--metric-percentiles',
        message: t('cli.metric_percentiles.bad', { raw: raw.metricPercentiles }),
        hint: t('cli.metric_percentiles.hint'),
      });
    else percentiles = ps;
  }
  return {
    percentileMetrics: metrics,
    metricPercentiles: percentiles,
    detailed: !!raw.saveDetailed,
    file: null,
    append: false,
  };
}
