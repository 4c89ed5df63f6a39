/**
 * Gate checks, group 9 "metrics" (docs/gate.md): a golden diff of metric names. The names are
 * every series name servelab's monitor maps read (`monitor/maps` MAPPED_NAMES) and every metric
 * the shipped Grafana dashboard (`deploy/grafana-dashboard.json`) queries; each one the old
 * version exposes must still be exposed by the new one.
 */
import { readFileSync } from 'node:fs';
import { MAPPED_NAMES } from '../../monitor/maps.js';
import { parsePrometheusText } from '../../monitor/prom-parse.js';
import { call, evidenceOf } from '../http.js';
import { pass, skipped } from '../result.js';
import type { Check, SideResult } from '../types.js';
import { each } from './shared.js';

/** The dashboard servelab ships, from this file's place in the tree (src/gate/checks → deploy/). */
const DASHBOARD = new URL('../../../deploy/grafana-dashboard.json', import.meta.url);

/** Metric names in PromQL expressions: `[a-zA-Z_:][a-zA-Z0-9_:]*` followed by `[`, `{`, `)` or the end, minus functions and keywords. */
export function promqlNames(expr: string): string[] {
  const names = new Set<string>();
  // label matchers and grouping lists name labels, not metrics
  const stripped = expr
    .replace(/\{[^}]*\}/g, '{}')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, '');
  for (const m of stripped.matchAll(/[a-zA-Z_:][a-zA-Z0-9_:]*/g)) {
    const after = stripped[(m.index ?? 0) + m[0].length];
    if (after === '(') continue; // a function
    if (/^(by|without|on|ignoring|bool|and|or|unless|offset|le)$/.test(m[0])) continue;
    if (/^\$/.test(stripped[(m.index ?? 1) - 1] ?? '')) continue; // $__rate_interval
    if (!m[0].includes('_') && !m[0].includes(':')) continue; // durations like 5m, words
    names.add(m[0]);
  }
  return [...names];
}

/** Every metric name the dashboard queries (its panels' `expr`s). */
export function dashboardNames(json: unknown): string[] {
  const out = new Set<string>();
  const walk = (v: unknown) => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object')
      for (const [k, x] of Object.entries(v)) {
        if (k === 'expr' && typeof x === 'string') for (const n of promqlNames(x)) out.add(n);
        else walk(x);
      }
  };
  walk(json);
  return [...out];
}

/** The names servelab relies on: the monitor maps' and the dashboard's, sorted. */
export function usedMetricNames(): string[] {
  let dash: string[] = [];
  try {
    dash = dashboardNames(JSON.parse(readFileSync(DASHBOARD, 'utf8')));
  } catch {
    dash = [];
  }
  return [...new Set([...MAPPED_NAMES, ...dash])].sort();
}

const names = each('9.1', 'metrics.names', true, {
  async run(target, ctx) {
    const r = await call(target, ctx, 'GET', '/metrics', { root: true });
    if (r.status !== 200)
      return skipped(ctx.t('gate.metrics.none'), [evidenceOf(r, ctx.t('gate.evidence.response'))]);
    const exposed = new Set(parsePrometheusText(r.text).samples.map((s) => s.name));
    const used = usedMetricNames().filter((n) => exposed.has(n));
    if (used.length === 0) return skipped(ctx.t('gate.metrics.none-used'));
    return pass({ names: used });
  },
  judge(old, next, ctx): SideResult {
    if (old.status !== 'pass' || next.status === 'fail') return next;
    const namesOf = (r: SideResult) =>
      ((r.observed as { names?: string[] } | undefined)?.names ?? []) as string[];
    const had = namesOf(old);
    const has = new Set(next.status === 'pass' ? namesOf(next) : []);
    const missing = had.filter((n) => !has.has(n));
    if (missing.length === 0) return next;
    return {
      status: 'fail',
      reason: ctx.t('gate.metrics.missing', { count: missing.length, names: missing.join(', ') }),
      observed: { missing },
      evidence: [{ note: ctx.t('gate.metrics.diff'), received: missing.map((n) => `- ${n}`).join('\n') }],
    };
  },
});

export const checks: Check[] = [names];
