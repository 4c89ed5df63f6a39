/**
 * @module cli/commands/report
 * `servelab report` and `servelab diagnose`: load runs (store ids, experiment ids or
 * report.json files), then render the comparison table, the HTML report, the Markdown
 * write-up and the diagnosis. Rendering is lazy-loaded (echarts costs ~0.8 s to import).
 */
import { existsSync } from 'node:fs';
import { basename, dirname, relative, resolve } from 'node:path';
import type { LoadedRun } from '../../analysis/loaded-run.js';
import { runSpeculative } from '../../analysis/speculative.js';
import { timelineRequest } from '../../analysis/step-timeline.js';
import { type Problem, UsageError } from '../../core/errors.js';
import { type T as Translator, translator } from '../../i18n/index.js';
import { formatSpeculative, stageTableLines } from '../../report/run/summary-table.js';
import type { Io } from '../io.js';
import { langOf } from '../options.js';
import {
  checkOutputPaths,
  emitJson,
  humanStream,
  jsonOption,
  throwIfProblems,
  writeOutputFile,
} from './common.js';
import { loadRuns, openStoreForReading } from './resolve-refs.js';

export interface RawReport {
  html?: string;
  md?: string;
  json?: string | boolean;
  db?: string;
  gpuHourUsd?: string;
  title?: string;
  lang?: string;
  /** The request the step timeline is drawn for. */
  request?: string;
  /** Write the engine steps as Chrome Trace Event Format JSON here. */
  traceEvents?: string;
}

function price(raw: RawReport, runs: LoadedRun[], t: Translator): number | undefined {
  if (raw.gpuHourUsd === undefined) return undefined;
  const v = Number(raw.gpuHourUsd);
  if (!Number.isFinite(v) || v < 0)
    throw new UsageError([
      {
        path: '--gpu-hour-usd',
        message: t('cli.report.bad_price', { value: raw.gpuHourUsd }),
        hint: t('cli.report.bad_price_hint'),
      },
    ]);
  for (const r of runs) r.gpu_hour_usd ??= v;
  return v;
}

export async function reportCommand(refs: string[], raw: RawReport, io: Io): Promise<number> {
  const problems: Problem[] = [];
  const t = langOf(raw.lang, io.env, problems);
  throwIfProblems(problems);
  const json = jsonOption(raw.json);
  const html = raw.html ? resolve(io.cwd, raw.html) : null;
  const md = raw.md ? resolve(io.cwd, raw.md) : null;
  const trace = raw.traceEvents ? resolve(io.cwd, raw.traceEvents) : null;
  const rep0 = md ? await import('../../report/markdown.js') : null;
  // Each write-up has its own chart folder (`w.md` → `w.charts/`): two in one folder keep theirs.
  const svgDir = md && rep0 ? resolve(dirname(md), rep0.chartsDirFor(basename(md))) : null;
  checkOutputPaths(io.cwd, [
    [html, '--html'],
    [md, '--md'],
    [svgDir, '--md', 'dir'],
    [json, '--json'],
    [trace, '--trace-events'],
  ]);
  const runs = await loadRuns(refs, { db: raw.db, cwd: io.cwd, t });
  checkStepRequest(runs, raw, t);
  const gpuHourUsd = price(raw, runs, t);
  const rep = await import('../../report/index.js');
  const { diagnose } = await import('../../analysis/diagnose/index.js');
  // report.json keeps the diagnosis in English (like the store); the pages and the console speak --lang.
  const diagnosisEn = diagnose(runs);
  const diagnosis = t.lang === 'en' ? diagnosisEn : diagnose(runs, { t });
  // The experiments among the refs: each kind's answer leads every surface, the page is titled
  // with the experiment's name, and the kinds' conclusions and write-up sections follow.
  const exps = await experimentsAmong(refs, raw, io, t);
  // The kinds are loaded only for an experiment (a plain run's report does without them).
  const kinds = exps.length ? await import('../../exp/run-experiment.js') : null;
  const answersOf = (tr: Translator) =>
    kinds ? exps.map((e) => kinds.experimentAnswer(e.kind, e.results, tr)).filter((a) => a !== null) : [];
  const sections = (part: 'experimentWriteup' | 'experimentConclusion') =>
    kinds ? exps.map((e) => kinds[part](e.kind, e.results, t)).filter((l): l is string[] => l !== null) : [];
  const answers = answersOf(t);
  const title = raw.title ?? (exps.length ? exps.map((e) => e.name).join(', ') : undefined);
  // Files first, the console after: a reader that closes stdout early (`| head -1`) must not
  // cost a file, and the `wrote` lines then name files that are complete.
  const wrote: string[] = [];
  if (html) {
    await writeOutputFile(
      html,
      rep.renderHtmlReport(runs, diagnosis, {
        title,
        gpu_hour_usd: gpuHourUsd,
        t,
        answers,
        conclusions: sections('experimentConclusion'),
        stepRequest: raw.request,
      }),
      '--html',
    );
    wrote.push(`${t('run.wrote', { files: html })}\n`);
  }
  if (trace) {
    const withSteps = runs.filter((r) => r.steps?.length);
    const run = withSteps[0];
    if (!run)
      throw new UsageError([
        {
          path: '--trace-events',
          message: t('steps.no_steps', { id: runs.map((r) => r.id).join(', ') }),
          hint: t('steps.no_steps_hint'),
        },
      ]);
    const doc = (await import('../../report/step-trace.js')).stepTrace(run.steps ?? [], run.label);
    await writeOutputFile(trace, `${JSON.stringify(doc)}\n`, '--trace-events');
    wrote.push(`${t('steps.wrote_trace', { file: trace, events: doc.traceEvents.length })}\n`);
  }
  if (md && svgDir) {
    const doc = rep.renderMarkdownReport(runs, diagnosis, {
      svgDir: relative(dirname(md), svgDir) || '.',
      title,
      gpu_hour_usd: gpuHourUsd,
      t,
      answers,
      kindSections: sections('experimentWriteup'),
    });
    await writeOutputFile(md, doc.markdown, '--md');
    for (const f of doc.files) await writeOutputFile(resolve(dirname(md), f.path), f.svg, '--md');
    wrote.push(`${t('report.wrote_md', { file: md, n: doc.files.length, dir: svgDir })}\n`);
  }
  // report.json speaks English, as its diagnosis does.
  const reportJson = rep.buildReportJson(runs, diagnosisEn, {}, answersOf(translator('en'))[0] ?? null);
  if (json !== true) await emitJson(json, reportJson, io);
  const out = humanStream(json, io);
  for (const a of answers) out.write(`${rep.answerTextLines(a, t).join('\n')}\n\n`);
  out.write(rep.renderTableText(rep.comparisonTable(runs, { gpu_hour_usd: gpuHourUsd }), t));
  // A staged run's figures per stage (`summary.stages`), as `run`/`plan` print them.
  for (const r of runs) {
    const lines = stageTableLines(r.summary.stages, t);
    if (lines.length) out.write(`\n${t('report.stages', { id: r.id })}\n${lines.join('\n')}\n`);
  }
  for (const r of runs)
    if (r.source?.notes.length)
      out.write(`\n${t('report.notes', { id: r.id })}\n${r.source.notes.map((n) => `  - ${n}\n`).join('')}`);
  // Each run that speculated: its acceptance, why a verify pass costs what it does, and what it assumed.
  for (const r of runs) {
    const spec = runSpeculative(r);
    if (spec.source !== null)
      out.write(`\n${t('report.speculative', { id: r.id })}\n${formatSpeculative(spec, t)}`);
  }
  out.write(`\n${rep.renderDiagnosisText(diagnosis, runs, t)}`);
  for (const line of wrote) out.write(line);
  if (json === true) await emitJson(json, reportJson, io);
  return 0;
}

/** `--request` must name a request that streamed in a run with steps. */
function checkStepRequest(runs: readonly LoadedRun[], raw: RawReport, t: Translator): void {
  if (raw.request === undefined) return;
  const wanted = raw.request;
  const found = runs.some((r) => r.steps?.length && timelineRequest(r.records, wanted));
  if (found) return;
  const withSteps = runs.filter((r) => r.steps?.length);
  throw new UsageError([
    withSteps.length
      ? {
          path: '--request',
          message: t('steps.no_request', { request: wanted, id: withSteps.map((r) => r.id).join(', ') }),
          hint: t('steps.no_request_hint'),
        }
      : {
          path: '--request',
          message: t('steps.no_steps', { id: runs.map((r) => r.id).join(', ') }),
          hint: t('steps.no_steps_hint'),
        },
  ]);
}

/** A stored experiment among the refs: its name, kind and the results the store kept. */
interface StoredExperiment {
  name: string;
  kind: string;
  results: unknown;
}

/** The experiments among `refs` (store ids that name an experiment, not a run); none for runs and files. */
async function experimentsAmong(
  refs: string[],
  raw: RawReport,
  io: Io,
  t: Translator,
): Promise<StoredExperiment[]> {
  const out: StoredExperiment[] = [];
  let store: ReturnType<typeof openStoreForReading> | null = null;
  try {
    for (const ref of refs) {
      // Files and folders are runs (report.json), never experiments.
      if (!/^[a-z0-9]{1,12}$/.test(ref) || existsSync(resolve(io.cwd, ref))) continue;
      store ??= openStoreForReading(raw.db, io.cwd, t);
      const row = store.getRun(ref) ? null : store.getExperiment(ref);
      if (row) out.push({ name: row.name, kind: row.kind, results: row.summary?.results ?? null });
    }
  } finally {
    store?.close();
  }
  return out;
}

export async function diagnoseCommand(refs: string[], raw: RawReport, io: Io): Promise<number> {
  const problems: Problem[] = [];
  const t = langOf(raw.lang, io.env, problems);
  throwIfProblems(problems);
  checkOutputPaths(io.cwd, [[jsonOption(raw.json), '--json']]);
  // A voice measurement's voice.json (servelab voice --out): the voice rule over it.
  if (refs.length > 0 && refs.every((r) => r.endsWith('voice.json'))) {
    const { diagnoseVoiceFiles } = await import('./voice.js');
    return diagnoseVoiceFiles(refs, raw, io, t);
  }
  const runs = await loadRuns(refs, { db: raw.db, cwd: io.cwd, t });
  const { diagnose } = await import('../../analysis/diagnose/index.js');
  const { renderDiagnosisText } = await import('../../report/diagnose/render.js');
  const diagnosis = diagnose(runs, { t });
  const json = jsonOption(raw.json);
  // The file first, then the console (see reportCommand).
  if (json !== true) await emitJson(json, diagnosis, io);
  humanStream(json, io).write(renderDiagnosisText(diagnosis, runs, t));
  if (json === true) await emitJson(json, diagnosis, io);
  return 0;
}
