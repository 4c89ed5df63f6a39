/**
 * @module cli/commands/report
 * `servelab report` and `servelab diagnose`: load runs (store ids, experiment ids or
 * report.json files), then render the comparison table, the HTML report, the Markdown
 * write-up and the diagnosis. Rendering is lazy-loaded (echarts costs ~0.8 s to import).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, relative, resolve } from 'node:path';
import { UsageError } from '../../core/errors.js';
import type { Diagnosis, LoadedRun } from '../../report/index.js';
import type { Io } from '../io.js';
import { emitJson, humanStream, jsonOption } from './common.js';
import { loadRuns } from './resolve-refs.js';

export interface RawReport {
  html?: string;
  md?: string;
  json?: string | boolean;
  db?: string;
  gpuHourUsd?: string;
  title?: string;
}

function formatDiagnosis(d: Diagnosis): string {
  const L: string[] = [
    `valid: ${d.valid}${d.skipped.length ? ' (some checks could not run: see "not checked")' : ''}`,
  ];
  for (const r of d.reasons) L.push(`  - [${r.run}] ${r.code}: ${r.message}`);
  for (const s of d.skipped) L.push(`not checked [${s.run}]: ${s.checks.join(', ')}: ${s.reason}`);
  if (!d.findings.length) L.push('findings: none');
  for (const f of d.findings) {
    L.push(`\n${f.severity.toUpperCase()} ${f.rule} [${f.runs.join(', ')}]`);
    L.push(`  symptom:   ${f.symptom}`);
    for (const e of f.evidence) L.push(`  evidence:  ${e}`);
    if (f.request_ids.length) L.push(`  requests:  ${f.request_ids.join(', ')}`);
    L.push(`  mechanism: ${f.mechanism}`);
    L.push(`  next:      ${f.next.command}`);
    L.push(`             ${f.next.change}`);
  }
  for (const u of d.unexplained)
    L.push(
      `\nunexplained [${u.run}]: ${u.observation}${u.request_ids.length ? ` (${u.request_ids.join(', ')})` : ''}`,
    );
  return `${L.join('\n')}\n`;
}

function price(raw: RawReport, runs: LoadedRun[]): number | undefined {
  if (raw.gpuHourUsd === undefined) return undefined;
  const v = Number(raw.gpuHourUsd);
  if (!Number.isFinite(v) || v < 0)
    throw new UsageError([
      {
        path: '--gpu-hour-usd',
        message: `expected a price, got "${raw.gpuHourUsd}"`,
        hint: 'e.g. --gpu-hour-usd 2.5',
      },
    ]);
  for (const r of runs) r.gpu_hour_usd ??= v;
  return v;
}

export async function reportCommand(refs: string[], raw: RawReport, io: Io): Promise<number> {
  const runs = await loadRuns(refs, { db: raw.db, cwd: io.cwd });
  const gpuHourUsd = price(raw, runs);
  const rep = await import('../../report/index.js');
  const diagnosis = rep.diagnose(runs);
  const json = jsonOption(raw.json);
  const out = humanStream(json, io);
  out.write(rep.renderTableText(rep.comparisonTable(runs, { gpu_hour_usd: gpuHourUsd })));
  for (const r of runs)
    if (r.source?.notes.length)
      out.write(`\nnotes [${r.id}]:\n${r.source.notes.map((n) => `  - ${n}\n`).join('')}`);
  out.write(`\n${formatDiagnosis(diagnosis)}`);
  if (raw.html) {
    const path = resolve(io.cwd, raw.html);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(
      path,
      rep.renderHtmlReport(runs, diagnosis, { title: raw.title, gpu_hour_usd: gpuHourUsd }),
    );
    out.write(`wrote ${path}\n`);
  }
  if (raw.md) {
    const path = resolve(io.cwd, raw.md);
    const svgDir = resolve(dirname(path), 'charts');
    const md = rep.renderMarkdownReport(runs, diagnosis, {
      svgDir: relative(dirname(path), svgDir) || '.',
      title: raw.title,
    });
    await mkdir(svgDir, { recursive: true });
    await writeFile(path, md.markdown);
    for (const f of md.files) await writeFile(resolve(dirname(path), f.path), f.svg);
    out.write(`wrote ${path} and ${md.files.length} chart(s) in ${svgDir}\n`);
  }
  await emitJson(json, rep.buildReportJson(runs, diagnosis), io);
  return 0;
}

export async function diagnoseCommand(refs: string[], raw: RawReport, io: Io): Promise<number> {
  const runs = await loadRuns(refs, { db: raw.db, cwd: io.cwd });
  const rep = await import('../../report/diagnose/index.js');
  const diagnosis = rep.diagnose(runs);
  const json = jsonOption(raw.json);
  humanStream(json, io).write(formatDiagnosis(diagnosis));
  await emitJson(json, diagnosis, io);
  return 0;
}
