/**
 * @module gate/format
 * The gate's output: a table of checks with the old and new results, then the evidence for every
 * failure (request ids, bodies trimmed to 2 KB); and `--junit`, a JUnit XML report in the schema
 * Jenkins and GitLab read (one `<testsuite>` per check group, one `<testcase>` per check, a
 * `<failure message type>` or `<skipped message>` child where it did not pass).
 */
import type { MessageKey, T } from '../i18n/index.js';
import { type GateResult, isRegression } from './run-gate.js';
import { type CheckRow, type SideResult, trimEvidence } from './types.js';

const STATUS: Record<SideResult['status'], MessageKey> = {
  pass: 'gate.status.pass',
  fail: 'gate.status.fail',
  skipped: 'gate.status.skipped',
};

/** The verdict word of a row (PASS, FAIL, skipped). */
export const VERDICT: Record<SideResult['status'], MessageKey> = {
  pass: 'gate.verdict.pass',
  fail: 'gate.verdict.fail',
  skipped: 'gate.verdict.skipped',
};

/** An observed value as a table cell (short). */
function cell(side: SideResult | undefined, t: T): string {
  if (!side) return '–';
  const status = t(STATUS[side.status]);
  const o = side.observed;
  let v = '';
  if (o === undefined || o === null) v = '';
  else if (typeof o === 'object' && Array.isArray((o as { names?: unknown }).names))
    v = t('gate.observed.names', { count: (o as { names: unknown[] }).names.length });
  else if (typeof o === 'object') v = JSON.stringify(o);
  else v = String(o);
  if (v.length > 40) v = `${v.slice(0, 39)}…`;
  return v ? `${status} ${v}` : status;
}

/** Columns a string takes in a terminal: East Asian wide characters take two. */
function width(s: string): number {
  let n = 0;
  for (const c of s)
    n += /[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]/.test(
      c,
    )
      ? 2
      : 1;
  return n;
}

function pad(s: string, w: number): string {
  return s + ' '.repeat(Math.max(0, w - width(s)));
}

/** The human report: header, table, evidence of each failure, the tally and the verdict line. */
export function formatGate(r: GateResult, t: T): string {
  const lines: string[] = [];
  lines.push(
    r.old_url
      ? t('gate.header.diff', { old: r.old_url, new: r.new_url, model: r.model })
      : t('gate.header.conformance', { url: r.new_url, model: r.model }),
  );
  if (r.passes !== undefined) lines.push(t('gate.header.probe', { passes: r.passes }));
  const diff = r.old_url !== null;
  const head = [
    t('gate.col.check'),
    t('gate.col.title'),
    ...(diff ? [t('gate.col.old')] : []),
    diff ? t('gate.col.new') : t('gate.col.result'),
    t('gate.col.verdict'),
  ];
  const body = r.rows.map((row) => [
    `${row.number} ${row.id}`,
    row.title,
    ...(diff ? [cell(row.old, t)] : []),
    cell(row.new, t),
    t(VERDICT[row.status]),
  ]);
  const widths = head.map((h, i) => Math.max(width(h), ...body.map((b) => width(b[i]))));
  const line = (cols: string[]) =>
    `  ${cols.map((c, i) => (i === cols.length - 1 ? c : pad(c, widths[i]))).join('  ')}`.trimEnd();
  lines.push(line(head));
  for (const b of body) lines.push(line(b));
  const notPassed = r.rows.filter((row) => row.status !== 'pass');
  for (const row of notPassed) {
    if (row.status === 'skipped') continue;
    lines.push('', t('gate.failure.head', { number: row.number, id: row.id, reason: row.reason ?? '' }));
    for (const line of evidenceLines(
      row,
      t,
      ['new', 'old'].map((k) => t(k === 'new' ? 'gate.col.new' : 'gate.col.old')),
    ))
      lines.push(`    ${line.replace(/\n/g, '\n        ')}`);
  }
  const skippedRows = r.rows.filter((row) => row.status === 'skipped');
  if (skippedRows.length) {
    lines.push('', t('gate.skipped.head'));
    for (const row of skippedRows) lines.push(`  ${row.number} ${row.id}: ${row.reason ?? ''}`);
  }
  lines.push(
    '',
    t('gate.tally', {
      pass: r.counts.pass,
      fail: r.counts.fail,
      skipped: r.counts.skipped,
      s: r.wall_s.toFixed(1),
    }),
    ...headline(r, t),
  );
  return `${lines.join('\n')}\n`;
}

/**
 * The verdict lines: a diff counts as regressions only the checks that pass on the old version
 * and fail on the new ({@link gateFailed}), and names the failures both share apart.
 */
function headline(r: GateResult, t: T): string[] {
  if (r.old_url === null)
    return [
      r.counts.fail > 0 ? t('gate.result.nonconforming', { count: r.counts.fail }) : t('gate.result.ok'),
    ];
  const out: string[] = [];
  if (r.counts.regressions > 0) out.push(t('gate.result.regression', { count: r.counts.regressions }));
  else out.push(t(r.counts.both > 0 ? 'gate.result.no-regression' : 'gate.result.ok'));
  const shared = r.rows.filter((row) => row.status === 'fail' && !isRegression(row));
  if (shared.length)
    out.push(
      t('gate.result.both', {
        count: shared.length,
        ids: shared.map((row) => `${row.number} ${row.id}`).join(', '),
      }),
    );
  return out;
}

/** XML text and attribute escaping; characters XML 1.0 cannot carry are dropped. */
export function xmlEscape(s: string): string {
  return s
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

/** Evidence as checks trimmed it ({@link trimEvidence}, with its note of what was cut), else trimmed here. */
function bounded(s: string): string {
  return s.length <= 2048 + 64 ? s : trimEvidence(s);
}

/**
 * The evidence of a failed row, as lines: the new side's (the verdict's, which holds the old
 * side's too when a comparison failed), then the old side's own when it did not pass either.
 * `names` label the sides (new, old).
 */
function evidenceLines(row: CheckRow, t: T, names: string[] = ['new', 'old']): string[] {
  const out: string[] = [];
  const sides: [string, SideResult | undefined][] = [
    [names[0], row.status === 'pass' ? undefined : row.new],
    [names[1], row.old?.status === 'pass' ? undefined : row.old],
  ];
  for (const [name, side] of sides) {
    if (!side) continue;
    for (const e of side.evidence) {
      // a comparison's verdict holds both sides' evidence: the request id says whose
      const whose = /^servelab-gate-old-/.test(e.request_id ?? '') ? names[1] : name;
      out.push(`[${whose}] ${e.note}${e.request_id ? ` (x-request-id ${e.request_id})` : ''}`);
      if (e.sent) out.push(`  ${t('gate.evidence.sent')}: ${bounded(e.sent)}`);
      if (e.received) out.push(`  ${t('gate.evidence.received')}: ${bounded(e.received)}`);
    }
  }
  return out;
}

/**
 * JUnit XML: `<testsuites>` with one `<testsuite name="gate.GROUP">` per group that has rows
 * (`tests`, `failures`, `errors`, `skipped`, `time` attributes), one `<testcase classname name
 * time>` per check, a `<failure message type="regression">` (evidence as its text) or a
 * `<skipped message>` where it did not pass, and the old/new observed values in `<system-out>`.
 * Attributes are those of the JUnit XSD Jenkins ships (junit-10.xsd): `<testsuites>` has no
 * `skipped`, its suites do.
 */
export function formatJunit(r: GateResult, t: T): string {
  const out: string[] = ['<?xml version="1.0" encoding="UTF-8"?>'];
  const groups = [...new Set(r.rows.map((row) => row.group))];
  out.push(
    `<testsuites name="servelab gate" tests="${r.rows.length}" failures="${r.counts.fail}" errors="0" time="${r.wall_s.toFixed(3)}">`,
  );
  for (const g of groups) {
    const rows = r.rows.filter((row) => row.group === g);
    const fails = rows.filter((row) => row.status === 'fail').length;
    const skips = rows.filter((row) => row.status === 'skipped').length;
    out.push(
      `  <testsuite name="gate.${xmlEscape(g)}" tests="${rows.length}" failures="${fails}" errors="0" skipped="${skips}" time="0">`,
    );
    for (const row of rows) {
      const name = xmlEscape(`${row.number} ${row.id}: ${row.title}`);
      out.push(`    <testcase classname="gate.${xmlEscape(g)}" name="${name}" time="0">`);
      if (row.status === 'fail')
        out.push(
          `      <failure message="${xmlEscape(row.reason ?? '')}" type="${r.old_url ? (isRegression(row) ? 'regression' : 'not-regression') : 'nonconforming'}">${xmlEscape(evidenceLines(row, t).join('\n'))}</failure>`,
        );
      else if (row.status === 'skipped')
        out.push(`      <skipped message="${xmlEscape(row.reason ?? '')}"/>`);
      const observed = JSON.stringify({ old: row.old?.observed, new: row.new.observed });
      out.push(`      <system-out>${xmlEscape(observed)}</system-out>`);
      out.push('    </testcase>');
    }
    out.push('  </testsuite>');
  }
  out.push('</testsuites>');
  return `${out.join('\n')}\n`;
}
