/**
 * @module cli/commands/gate
 * `servelab gate`: check a new engine version against the old one before traffic moves
 * (docs/gate.md). Exit 0 when no check that passes on the old version fails on the new one (with
 * `--url`: when every check passes), 2 on a regression, 1 on invalid usage, 3 when a target does
 * not answer `GET /v1/models`.
 */
import { ExitCode, type Problem } from '../../core/errors.js';
import { redactUrl } from '../../core/url.js';
import { formatGate, formatJunit, VERDICT } from '../../gate/format.js';
import {
  countRows,
  firstModel,
  type GateResult,
  gateFailed,
  runGate,
  runProbe,
  selectChecks,
  unreachableTargets,
} from '../../gate/run-gate.js';
import type { CheckContext, GateTarget } from '../../gate/types.js';
import { RealClock } from '../../runtime/clock.js';
import type { Io } from '../io.js';
import { langOf } from '../options.js';
import {
  checkOutputPaths,
  emitJson,
  humanStream,
  jsonOption,
  optNumber,
  parseBaseUrl,
  throwIfProblems,
  writeOutputFile,
} from './common.js';

export interface RawGate {
  old?: string;
  new?: string;
  url?: string;
  model?: string;
  checks?: string;
  json?: string | boolean;
  junit?: string;
  probe?: boolean;
  duration?: string;
  interval?: string;
  timeout?: string;
  seed?: string;
  apiKeyEnv?: string;
  lang?: string;
}

/** `10m`, `90s`, `1h`, `1.5m` or plain seconds → seconds; null when it does not parse. */
export function parseDurationS(raw: string): number | null {
  const m = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h)?$/.exec(raw.trim());
  if (!m) return null;
  const v = Number(m[1]);
  const unit = m[2] ?? 's';
  const s = unit === 'ms' ? v / 1000 : unit === 'm' ? v * 60 : unit === 'h' ? v * 3600 : v;
  return s > 0 ? s : null;
}

export async function gateCommand(raw: RawGate, io: Io): Promise<number> {
  const problems: Problem[] = [];
  const notes: string[] = [];
  const t = langOf(raw.lang, io.env, problems);
  const single = raw.url !== undefined;
  if (single && (raw.old !== undefined || raw.new !== undefined))
    problems.push({ path: '--url', message: t('gate.usage.url-and-pair'), hint: t('gate.usage.url-hint') });
  let oldUrl: string | null = null;
  let newUrl = '';
  if (single) newUrl = parseBaseUrl(raw.url, problems, '--url', notes, t);
  else if (raw.old === undefined && raw.new === undefined)
    problems.push({ path: '--old/--new', message: t('gate.usage.targets'), hint: t('gate.usage.url-hint') });
  else {
    oldUrl = parseBaseUrl(raw.old, problems, '--old', notes, t);
    newUrl = parseBaseUrl(raw.new, problems, '--new', notes, t);
  }
  const checks = selectChecks(raw.checks ?? 'all', t, problems);
  if (checks.length === 0 && !problems.some((p) => p.path === '--checks'))
    problems.push({
      path: '--checks',
      message: t('gate.usage.no-checks', { list: raw.checks ?? 'all' }),
      hint: t('gate.usage.no-checks-hint'),
    });
  let durationS: number | null = null;
  if (raw.probe) {
    durationS = raw.duration === undefined ? 600 : parseDurationS(raw.duration);
    if (durationS === null)
      problems.push({
        path: '--duration',
        message: t('gate.usage.duration', { value: raw.duration ?? '' }),
        hint: t('gate.usage.duration-hint'),
      });
  } else if (raw.duration !== undefined)
    problems.push({
      path: '--duration',
      message: t('gate.usage.duration-needs-probe'),
      hint: t('gate.usage.duration-probe-hint'),
    });
  const intervalS = raw.interval === undefined ? 30 : parseDurationS(raw.interval);
  if (intervalS === null)
    problems.push({
      path: '--interval',
      message: t('gate.usage.duration', { value: raw.interval ?? '' }),
      hint: t('gate.usage.duration-hint'),
    });
  const timeoutS = optNumber(raw.timeout, '--timeout', problems, { min: 1 }, t) ?? 120;
  const seed = optNumber(raw.seed, '--seed', problems, { int: true, min: 0 }, t) ?? 1;
  if (raw.probe && checks.length > 0 && !checks.some((c) => c.probe))
    problems.push({
      path: '--checks',
      message: t('gate.usage.no-probe-checks'),
      hint: t('gate.usage.probe-hint'),
    });
  const json = jsonOption(raw.json);
  throwIfProblems(problems);
  checkOutputPaths(io.cwd, [
    [json, '--json'],
    [raw.junit, '--junit'],
  ]);
  for (const line of notes) io.stderr.write(`${line}\n`);

  const apiKeyEnv = raw.apiKeyEnv ?? 'INFERENCE_API_KEY';
  const apiKey = io.env[apiKeyEnv] || undefined;
  const ac = new AbortController();
  const off = io.onInterrupt(() => ac.abort());
  const clock = new RealClock();
  const ctx: CheckContext = {
    clock,
    t,
    timeoutMs: timeoutS * 1000,
    seed,
    signal: ac.signal,
    probe: raw.probe === true,
  };
  try {
    const next: GateTarget = {
      role: single ? 'url' : 'new',
      baseUrl: newUrl,
      model: raw.model ?? '',
      apiKey,
    };
    const old: GateTarget | null =
      oldUrl === null ? null : { role: 'old', baseUrl: oldUrl, model: raw.model ?? '', apiKey };
    const targets = old ? [old, next] : [next];
    const down = await unreachableTargets(targets, ctx);
    if (down.length > 0) {
      for (const d of down)
        io.stderr.write(`${t('gate.unreachable', { role: d.role, url: d.url, reason: d.reason })}\n`);
      io.stderr.write(`    ${t('gate.unreachable.hint')}\n`);
      return ExitCode.nothingSucceeded;
    }
    for (const target of targets) {
      if (target.model) continue;
      const m = await firstModel(target, ctx);
      if (m === null) {
        io.stderr.write(`${t('gate.no-model', { role: target.role, url: redactUrl(target.baseUrl) })}\n`);
        return ExitCode.nothingSucceeded;
      }
      target.model = m;
    }
    const human = humanStream(json, io);
    const started = clock.now();
    let rows: GateResult['rows'];
    let passes: number | undefined;
    if (raw.probe) {
      const res = await runProbe(
        checks,
        old,
        next,
        ctx,
        (durationS as number) * 1000,
        (intervalS as number) * 1000,
        (n, rs) => {
          const c = countRows(rs);
          io.stderr.write(
            `${t('gate.probe.pass', { round: n, ok: c.pass, fail: c.fail, skipped: c.skipped })}\n`,
          );
        },
      );
      rows = res.rows;
      passes = res.passes;
    } else {
      rows = await runGate(checks, old, next, ctx, (row) =>
        io.stderr.write(
          `${t('gate.progress', { number: row.number, id: row.id, verdict: t(VERDICT[row.status]) })}\n`,
        ),
      );
    }
    const result: GateResult = {
      mode: raw.probe ? 'probe' : old ? 'diff' : 'conformance',
      old_url: old ? redactUrl(old.baseUrl) : null,
      new_url: redactUrl(next.baseUrl),
      model: next.model,
      rows,
      counts: countRows(rows),
      wall_s: (clock.now() - started) / 1000,
    };
    if (passes !== undefined) result.passes = passes;
    if (json !== true) await emitJson(json, result, io);
    human.write(formatGate(result, t));
    if (json === true) await emitJson(json, result, io);
    if (raw.junit)
      await writeOutputFile(
        raw.junit.startsWith('/') ? raw.junit : `${io.cwd}/${raw.junit}`,
        formatJunit(result, t),
        '--junit',
      );
    if (ac.signal.aborted) return ExitCode.interrupted;
    return gateFailed(result) ? ExitCode.thresholdFailed : ExitCode.ok;
  } finally {
    off();
  }
}
