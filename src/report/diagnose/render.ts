/**
 * @module report/diagnose/render
 * The diagnosis for a person to read: each rule's findings grouped across the runs they came
 * from, so a six-level sweep whose levels 16 to 128 all queue reads as one block
 * ("high_ttft_queueing — concurrency 16–128") with one line per level, not as four copies of
 * the same mechanism and next experiment. The same grouping serves the validity reasons, the
 * unexplained observations and the checks that could not run. Pure: strings in, a string out.
 */

import { EN } from '../../analysis/diagnose/default-lang.js';
import type { Diagnosis, Finding, Severity, ValidityReason } from '../../analysis/diagnose/types.js';
import { curvesOf } from '../../analysis/load-curve.js';
import type { LoadedRun } from '../../analysis/loaded-run.js';
import { displayWidth, padColumns } from '../../core/text-width.js';
import type { T } from '../../i18n/index.js';

/** One rule's findings, in level order. */
export interface FindingGroup {
  rule: string;
  /** The worst severity of its findings. */
  severity: Severity;
  /** Every run any of them is about, in level order. */
  runs: string[];
  findings: Finding[];
}

/** One validity code's reasons, in level order. */
export interface ReasonGroup {
  code: string;
  reasons: ValidityReason[];
}

const RANK: Record<Severity, number> = { info: 0, warn: 1, critical: 2 };

/** The load level a run was made at, as a number on its axis (null without one). */
function levelValue(run: LoadedRun | undefined): { axis: 'concurrency' | 'rate_rps'; x: number } | null {
  if (run?.level?.concurrency != null) return { axis: 'concurrency', x: run.level.concurrency };
  if (run?.level?.rate_rps != null) return { axis: 'rate_rps', x: run.level.rate_rps };
  return null;
}

/** Group items by a key, in first-seen order of the keys. */
function groupBy<X>(xs: readonly X[], key: (x: X) => string): X[][] {
  const m = new Map<string, X[]>();
  for (const x of xs) {
    const k = key(x);
    const g = m.get(k);
    if (g) g.push(x);
    else m.set(k, [x]);
  }
  return [...m.values()];
}

/**
 * Names sets of runs by their load levels: `concurrency 16–128` when they are neighbouring
 * levels of their curve, `concurrency 1, 16` when not, one part per curve when the runs span
 * several targets, and the runs' labels when they have no load level.
 */
export type LevelNamer = (ids: readonly string[]) => string;

/** Sorts items by the level of the run each is about (stable; runs without a level by run order). */
type LevelSort = <X>(xs: readonly X[], run: (x: X) => string) => X[];

/** A {@link LevelNamer} over `runs`, with `sort` to put items in level order. */
export function levelNamer(runs: readonly LoadedRun[], t: T = EN): LevelNamer & { sort: LevelSort } {
  const byId = new Map(runs.map((r) => [r.id, r]));
  const curves = curvesOf(runs);
  const curveOf = new Map<string, { name: string; runs: LoadedRun[] }>();
  for (const c of curves) for (const r of c.runs) curveOf.set(r.id, c);
  const nameOn = (axis: 'concurrency' | 'rate_rps', all: number[], picked: number[]): string => {
    const key = axis === 'concurrency' ? 'concurrency' : 'rate';
    if (picked.length === 1) return t(`diagnose.level.${key}`, { x: picked[0] });
    const from = all.indexOf(picked[0]);
    const contiguous = picked.every((x, i) => all[from + i] === x);
    return contiguous
      ? t(`diagnose.level.${key}_range`, { from: picked[0], to: picked[picked.length - 1] })
      : t(`diagnose.level.${key}_list`, { list: picked.join(', ') });
  };
  const nameOne = (ids: readonly string[]): string => {
    const rs = ids.map((id) => byId.get(id));
    const lv = rs.map(levelValue);
    const axis = lv[0]?.axis;
    if (!axis || lv.some((v) => v?.axis !== axis))
      return ids.map((id) => byId.get(id)?.label ?? id).join(', ');
    const curve = curveOf.get(ids[0]);
    const all = [
      ...new Set((curve?.runs ?? []).map(levelValue).flatMap((v) => (v?.axis === axis ? [v.x] : []))),
    ].sort((a, b) => a - b);
    const picked = [...new Set(lv.map((v) => v?.x as number))].sort((a, b) => a - b);
    return nameOn(axis, all, picked);
  };
  const split = (ids: readonly string[]) => [...new Set(ids.flatMap((id) => id.split(',')))];
  const name = (ids: readonly string[]): string => {
    const known = split(ids);
    if (curves.length <= 1) return nameOne(known);
    return groupBy(known, (id) => curveOf.get(id)?.name ?? '')
      .map((g) => {
        const c = curveOf.get(g[0])?.name;
        return c ? `${c}: ${nameOne(g)}` : nameOne(g);
      })
      .join('; ');
  };
  const index = new Map(runs.map((r, i) => [r.id, i]));
  const sort: LevelSort = (xs, run) =>
    [...xs].sort((a, b) => {
      const [ia, ib] = [run(a).split(',')[0], run(b).split(',')[0]];
      const [la, lb] = [levelValue(byId.get(ia)), levelValue(byId.get(ib))];
      if (la && lb && la.axis === lb.axis && la.x !== lb.x) return la.x - lb.x;
      return (index.get(ia) ?? runs.length) - (index.get(ib) ?? runs.length);
    });
  return Object.assign(name, { sort });
}

/** The findings grouped by rule, each group in level order (`runs` gives the levels). */
export function groupFindings(findings: readonly Finding[], runs: readonly LoadedRun[] = []): FindingGroup[] {
  const { sort } = levelNamer(runs);
  return groupBy(findings, (f) => f.rule).map((fs) => {
    const sorted = sort(fs, (f) => f.runs.join(','));
    return {
      rule: fs[0].rule,
      severity: fs.reduce<Severity>((s, f) => (RANK[f.severity] > RANK[s] ? f.severity : s), 'info'),
      runs: [...new Set(sorted.flatMap((f) => f.runs))],
      findings: sorted,
    };
  });
}

/** The validity reasons grouped by code, each group in level order. */
export function groupReasons(
  reasons: readonly ValidityReason[],
  runs: readonly LoadedRun[] = [],
): ReasonGroup[] {
  const { sort } = levelNamer(runs);
  return groupBy(reasons, (r) => r.code).map((rs) => ({ code: rs[0].code, reasons: sort(rs, (r) => r.run) }));
}

/**
 * The diagnosis as console text in `t`'s language: the verdict with its reasons, the checks that
 * could not run, then one block per rule (its levels named, one symptom line per level, the
 * evidence and requests of the highest level, the mechanism and next experiment once), then
 * the observations no rule explains, grouped the same way. A rule that fired on one run reads
 * as it always did.
 * @param runs the diagnosed runs, to name their levels (without them, run ids are used)
 */
export function renderDiagnosisText(d: Diagnosis, runs: readonly LoadedRun[] = [], t: T = EN): string {
  const levels = levelNamer(runs, t);
  const one = (id: string) => `${levels([id])} [${id}]`;
  const labels = {
    symptom: t('diagnose.render.symptom'),
    evidence: t('diagnose.render.evidence'),
    requests: t('diagnose.render.requests'),
    mechanism: t('diagnose.render.mechanism'),
    next: t('diagnose.render.next'),
  };
  const col = Math.max(...Object.values(labels).map(displayWidth)) + 1;
  const pad = ' '.repeat(2 + col);
  /** One labelled field, its further lines under the first. */
  const field = (label: string, lines: readonly string[]): string[] =>
    lines.map((l, i) => (i === 0 ? `  ${padColumns(label, col)}${l}` : `${pad}${l}`));
  const L: string[] = [
    `${t(d.valid ? 'diagnose.verdict.valid' : 'diagnose.verdict.invalid')}${d.skipped.length ? t('diagnose.verdict.partly') : ''}`,
  ];
  for (const g of groupReasons(d.reasons, runs)) {
    if (g.reasons.length === 1) {
      const r = g.reasons[0];
      L.push(`  - [${r.run}] ${r.code}: ${r.message}`);
      continue;
    }
    L.push(`  - ${g.code}: ${levels(g.reasons.map((r) => r.run))}`);
    for (const r of g.reasons) L.push(`      ${one(r.run)}: ${r.message}`);
  }
  for (const g of groupBy(d.skipped, (s) => JSON.stringify([s.checks, s.reason]))) {
    const ids = g.map((s) => s.run);
    const who = ids.length === 1 ? ids[0] : levels(ids);
    L.push(`${t('diagnose.render.not_checked')} [${who}]: ${g[0].checks.join(', ')}: ${g[0].reason}`);
  }
  if (!d.findings.length) L.push(t('diagnose.render.findings_none'));
  for (const g of groupFindings(d.findings, runs)) {
    const sev = t(`diagnose.severity.${g.severity}`);
    const last = g.findings[g.findings.length - 1];
    if (g.findings.length === 1) {
      L.push(`\n${sev} ${g.rule} [${last.runs.join(', ')}]`);
      L.push(...field(labels.symptom, [last.symptom]));
    } else {
      L.push(`\n${sev} ${g.rule} — ${levels(g.runs)}${t('diagnose.render.runs', { n: g.runs.length })}`);
      L.push(
        ...field(
          labels.symptom,
          g.findings.map((f) => `${f.runs.length === 1 ? one(f.runs[0]) : levels(f.runs)}: ${f.symptom}`),
        ),
      );
    }
    const at =
      g.findings.length === 1
        ? []
        : [t('diagnose.render.evidence_at', { level: levels(last.runs), n: g.findings.length })];
    L.push(...field(labels.evidence, [...at, ...last.evidence]));
    if (last.request_ids.length) L.push(...field(labels.requests, [last.request_ids.join(', ')]));
    // The mechanism and the next experiment once, unless the levels' differ.
    for (const [label, text] of [
      [labels.mechanism, (f: Finding) => [f.mechanism]],
      [labels.next, (f: Finding) => [f.next.command, f.next.change]],
    ] as const) {
      const variants = groupBy(g.findings, (f) => JSON.stringify(text(f)));
      if (variants.length === 1) L.push(...field(label, text(variants[0][0])));
      else
        L.push(
          ...field(
            label,
            variants.flatMap((v) => {
              const [head, ...rest] = text(v[0]);
              return [`${levels(v.flatMap((f) => f.runs))}: ${head}`, ...rest];
            }),
          ),
        );
    }
  }
  const unexplained = t('diagnose.render.unexplained');
  const ids = (u: Diagnosis['unexplained'][number]) =>
    u.request_ids.length ? ` (${u.request_ids.join(', ')})` : '';
  for (const g of groupBy(d.unexplained, (u) => u.rule ?? u.observation)) {
    if (g.length === 1) {
      L.push(`\n${unexplained} [${g[0].run}]: ${g[0].observation}${ids(g[0])}`);
      continue;
    }
    const sorted = levels.sort(g, (u) => u.run);
    L.push(`\n${unexplained} — ${levels(sorted.map((u) => u.run))}:`);
    for (const u of sorted) L.push(`  ${one(u.run)}: ${u.observation}${ids(u)}`);
  }
  return `${L.join('\n')}\n`;
}
