/**
 * @module gate/run-gate
 * The gate: pick the checks (`--checks all|LIST` of ids, group names or numbers), make sure both
 * targets answer `/v1/models`, run every check on old and new (an {@link EachCheck} on each target
 * on its own, both targets' lanes side by side; a {@link PairCheck} on both together, alone), and
 * judge the new version into one {@link CheckRow} per check. With one endpoint (`--url`) the same
 * checks are a conformance report, and pair checks are skipped with the reason. `--probe` repeats
 * the probe checks at a low rate until a duration ends ({@link runProbe}).
 */
import type { Problem } from '../core/errors.js';
import { redactUrl } from '../core/url.js';
import type { T } from '../i18n/index.js';
import { ALL_CHECKS } from './checks/index.js';
import { clockOf, listModelsCall } from './http.js';
import {
  CHECK_GROUPS,
  type Check,
  type CheckContext,
  type CheckRow,
  type GateTarget,
  type SideResult,
} from './types.js';

/**
 * The checks `spec` names, in docs/gate.md's order: `all`, or a comma-separated list of check
 * ids (`stream.done`), group names (`stream`), group numbers (`1`) or check numbers (`1.6`).
 * Unknown entries are problems (with a hint), each reported.
 */
export function selectChecks(
  spec: string,
  t: T,
  problems: Problem[],
  checks: readonly Check[] = ALL_CHECKS,
): Check[] {
  const items = spec
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (items.length === 0 || items.includes('all')) return [...checks];
  const picked = new Set<Check>();
  for (const item of items) {
    const groupIndex = /^\d+$/.test(item)
      ? Number(item) - 1
      : (CHECK_GROUPS as readonly string[]).indexOf(item);
    const group = CHECK_GROUPS[groupIndex];
    const hits = checks.filter(
      (c) => c.id === item || c.number === item || (group !== undefined && c.group === group),
    );
    if (hits.length === 0 && group === undefined)
      problems.push({
        path: '--checks',
        message: t('gate.checks.unknown', { item }),
        hint: t('gate.checks.hint', { groups: CHECK_GROUPS.join(', ') }),
      });
    for (const c of hits) picked.add(c);
  }
  return checks.filter((c) => picked.has(c));
}

/** A target that did not answer `GET /v1/models` with a 2xx, and why. */
export interface Unreachable {
  role: GateTarget['role'];
  url: string;
  reason: string;
}

/** Probe `/v1/models` on every target; the ones that do not answer. */
export async function unreachableTargets(
  targets: readonly GateTarget[],
  ctx: CheckContext,
): Promise<Unreachable[]> {
  const out: Unreachable[] = [];
  await Promise.all(
    targets.map(async (target) => {
      const r = await listModelsCall(target, ctx);
      if (r.status === null || r.status < 200 || r.status > 299)
        out.push({
          role: target.role,
          url: redactUrl(target.baseUrl),
          reason: r.status === null ? (r.error ?? '') : `HTTP ${r.status} ${r.text.slice(0, 200)}`,
        });
    }),
  );
  return out;
}

/** The first model `/v1/models` lists, for a target given no `--model`. */
export async function firstModel(target: GateTarget, ctx: CheckContext): Promise<string | null> {
  const r = await listModelsCall(target, ctx);
  const data = (r.json as { data?: { id?: unknown }[] } | null)?.data;
  const id = Array.isArray(data) ? data[0]?.id : undefined;
  return typeof id === 'string' ? id : null;
}

/** A check's exception is its failure on that side, never the gate's crash. */
async function guarded(ctx: CheckContext, fn: () => Promise<SideResult>): Promise<SideResult> {
  try {
    return await fn();
  } catch (err) {
    if (ctx.signal.aborted) return { status: 'skipped', reason: ctx.t('gate.interrupted'), evidence: [] };
    const e = err as { message?: string };
    return {
      status: 'fail',
      reason: ctx.t('gate.check.threw', { error: e.message ?? String(err) }),
      evidence: [],
    };
  }
}

/** The verdict on the new side: the check's own judge, else the new side's result. */
function judged(check: Check, old: SideResult | undefined, next: SideResult, ctx: CheckContext): SideResult {
  if (check.kind === 'each' && check.judge && old) return check.judge(old, next, ctx);
  return next;
}

function row(check: Check, ctx: CheckContext, next: SideResult, old?: SideResult): CheckRow {
  const verdict = judged(check, old, next, ctx);
  const r: CheckRow = {
    id: check.id,
    number: check.number,
    group: check.group,
    title: ctx.t(check.title),
    status: verdict.status,
    new: verdict === next ? next : { ...next, evidence: verdict.evidence, observed: next.observed },
  };
  if (verdict.reason !== undefined) r.reason = verdict.reason;
  if (old) r.old = old;
  return r;
}

/** Targets for one pass: fresh objects, so checks' per-target memos never outlive it. */
function fresh(t: GateTarget): GateTarget {
  return { ...t };
}

/**
 * Run `checks` and judge them. `old` null: one endpoint (`next` has role `url`), a conformance
 * report. Each-checks run in two lanes, one per target, side by side; a pair check runs alone.
 * `onRow` is called as each row is decided (progress).
 */
export async function runGate(
  checks: readonly Check[],
  oldTarget: GateTarget | null,
  newTarget: GateTarget,
  ctx: CheckContext,
  onRow?: (row: CheckRow) => void,
): Promise<CheckRow[]> {
  const old = oldTarget ? fresh(oldTarget) : null;
  const next = fresh(newTarget);
  const rows: CheckRow[] = [];
  const runnable = checks.filter((c) => !ctx.probe || c.probe);
  let i = 0;
  while (i < runnable.length) {
    const check = runnable[i];
    if (check.kind === 'pair') {
      i++;
      if (ctx.signal.aborted) break;
      if (!old) {
        const r = row(check, ctx, { status: 'skipped', reason: ctx.t('gate.pair.single'), evidence: [] });
        rows.push(r);
        onRow?.(r);
        continue;
      }
      let res: { old: SideResult; new: SideResult };
      try {
        res = await check.run(old, next, ctx);
      } catch (err) {
        const reason = ctx.t('gate.check.threw', { error: (err as Error).message ?? String(err) });
        res = {
          old: { status: 'fail', reason, evidence: [] },
          new: { status: 'fail', reason, evidence: [] },
        };
      }
      const r = row(check, ctx, res.new, res.old);
      rows.push(r);
      onRow?.(r);
      continue;
    }
    // a run of each-checks: one lane per target
    const segment: Check[] = [];
    while (i < runnable.length && runnable[i].kind === 'each') segment.push(runnable[i++]);
    const lane = async (target: GateTarget) => {
      const out: SideResult[] = [];
      for (const c of segment) {
        if (ctx.signal.aborted) break;
        out.push(await guarded(ctx, () => (c.kind === 'each' ? c.run(target, ctx) : Promise.reject())));
      }
      return out;
    };
    const [olds, nexts] = await Promise.all([old ? lane(old) : Promise.resolve(null), lane(next)]);
    segment.forEach((c, k) => {
      if (nexts[k] === undefined) return;
      const r = row(c, ctx, nexts[k], olds?.[k]);
      rows.push(r);
      onRow?.(r);
    });
    if (ctx.signal.aborted) break;
  }
  return rows;
}

/** The gate's outcome: every row, and the counts. */
export interface GateResult {
  mode: 'diff' | 'conformance' | 'probe';
  old_url: string | null;
  new_url: string;
  model: string;
  rows: CheckRow[];
  /**
   * The verdicts' tally. `regressions`: rows that fail on the new version and pass on the old one
   * (a diff's headline and exit code count only these); `both`: rows that fail on the new version
   * without passing on the old (they fail there too, or it could not be judged).
   */
  counts: { pass: number; fail: number; skipped: number; regressions: number; both: number };
  /** `--probe`: the passes made, and each failure with the pass it came in. */
  passes?: number;
  wall_s: number;
}

export function countRows(rows: readonly CheckRow[]): GateResult['counts'] {
  const counts = { pass: 0, fail: 0, skipped: 0, regressions: 0, both: 0 };
  for (const r of rows) {
    counts[r.status]++;
    if (r.status === 'fail' && r.old) counts[isRegression(r) ? 'regressions' : 'both']++;
  }
  return counts;
}

/** A row that fails on the new version and passes on the old one: a regression. */
export function isRegression(r: CheckRow): boolean {
  return r.status === 'fail' && r.old?.status === 'pass';
}

/**
 * Whether the gate fails (exit 2): with an old version, when some check regressed (it passes on
 * the old version and fails on the new); a failure both versions share is shown, never counted.
 * With one endpoint, when any check fails.
 */
export function gateFailed(r: Pick<GateResult, 'old_url' | 'counts'>): boolean {
  return r.old_url !== null ? r.counts.regressions > 0 : r.counts.fail > 0;
}

/**
 * `--probe`: the probe checks against both pools, pass after pass, `intervalMs` apart (the low
 * rate), until `durationMs` is over (at least one pass). A check is a row once: failed if it failed
 * in any pass (with that pass's evidence and number), else passed if it ever passed, else skipped.
 */
export async function runProbe(
  checks: readonly Check[],
  oldTarget: GateTarget | null,
  newTarget: GateTarget,
  ctx: CheckContext,
  durationMs: number,
  intervalMs: number,
  onPass?: (pass: number, rows: CheckRow[]) => void,
): Promise<{ rows: CheckRow[]; passes: number }> {
  const clock = clockOf(ctx);
  const started = clock.now();
  const byId = new Map<string, CheckRow>();
  let passes = 0;
  for (;;) {
    const rows = await runGate(checks, oldTarget, newTarget, { ...ctx, probe: true });
    passes++;
    for (const r of rows) {
      const seen = byId.get(r.id);
      const mark = {
        ...r,
        reason: r.reason ? ctx.t('gate.probe.in-pass', { pass: passes, reason: r.reason }) : r.reason,
      };
      if (
        !seen ||
        (seen.status !== 'fail' &&
          (r.status === 'fail' || (r.status === 'pass' && seen.status === 'skipped')))
      )
        byId.set(r.id, r.status === 'fail' ? mark : r);
    }
    onPass?.(passes, rows);
    const left = durationMs - (clock.now() - started);
    if (left <= 0 || ctx.signal.aborted) break;
    await clock.sleepUntil(clock.now() + Math.min(intervalMs, left), ctx.signal).catch(() => {});
    if (clock.now() - started >= durationMs || ctx.signal.aborted) break;
  }
  const order = checks.map((c) => c.id);
  const rows = [...byId.values()].sort((a, b) => order.indexOf(a.id) - order.indexOf(b.id));
  return { rows, passes };
}
