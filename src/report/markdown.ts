/**
 * @module report/markdown
 * The Markdown project write-up (`servelab report --md`): nine sections from background to next
 * hypotheses, with the comparison table, charts as SVG files linked next to it, the diagnosis
 * as the explanation, and source-reading placeholders naming the vLLM and SGLang files to trace.
 * Pure: it returns the text and the SVG files; the caller writes them.
 */
import { formatErrorGroup } from '../analysis/errors.js';
import { redactSecrets } from '../core/redact.js';
import { renderSvg, reportCharts } from './charts.js';
import { recordFields, sourceStatsRows } from './html.js';
import { comparisonTable, renderTableMarkdown, type TableOptions } from './table.js';
import type { Diagnosis, LoadedRun } from './types.js';

/** The four objects to trace through an engine's source, with where each lives. */
export const SOURCE_MAP: readonly { object: string; question: string; vllm: string[]; sglang: string[] }[] = [
  {
    object: 'Service entry',
    question: 'where the HTTP request arrives, is templated and tokenised, and becomes an engine request',
    vllm: [
      'vllm/entrypoints/openai/api_server.py',
      'vllm/entrypoints/openai/serving_chat.py',
      'vllm/v1/engine/async_llm.py',
    ],
    sglang: [
      'python/sglang/srt/entrypoints/http_server.py',
      'python/sglang/srt/managers/tokenizer_manager.py',
    ],
  },
  {
    object: 'Request state',
    question: 'what the engine keeps per request (tokens, status, KV blocks, timestamps)',
    vllm: ['vllm/v1/request.py', 'vllm/v1/core/kv_cache_manager.py'],
    sglang: ['python/sglang/srt/managers/schedule_batch.py', 'python/sglang/srt/mem_cache/radix_cache.py'],
  },
  {
    object: 'Scheduler',
    question: 'who runs next: token budget, chunked prefill, preemption, prefix reuse',
    vllm: ['vllm/v1/core/sched/scheduler.py', 'vllm/v1/core/sched/output.py'],
    sglang: ['python/sglang/srt/managers/scheduler.py', 'python/sglang/srt/managers/schedule_policy.py'],
  },
  {
    object: 'Execution backend',
    question: 'how a batch becomes kernels: input preparation, attention backend, CUDA graphs, sampling',
    vllm: [
      'vllm/v1/worker/gpu_model_runner.py',
      'vllm/v1/worker/gpu_worker.py',
      'vllm/v1/attention/backends/',
    ],
    sglang: [
      'python/sglang/srt/model_executor/model_runner.py',
      'python/sglang/srt/model_executor/cuda_graph_runner.py',
    ],
  },
];

/** Options for {@link renderMarkdownReport}. */
export interface MarkdownReportOptions extends TableOptions {
  /** Folder (relative to the Markdown file) the SVG charts are written to and linked from. */
  svgDir: string;
  title?: string;
}

/** The write-up and the chart files to write next to it. */
export interface MarkdownReport {
  markdown: string;
  /** `path` is `svgDir/<chart id>.svg`, relative to the Markdown file. */
  files: { path: string; svg: string }[];
}

const TODO = (what: string) => `> _To write: ${what}_`;

/** Escape a table cell's pipes. */
const cellMd = (s: string) => s.replaceAll('|', '\\|');

function recordValue(run: LoadedRun, field: string, key: string): string {
  const f = run.record?.[field];
  const v = f?.value?.[key];
  return v === null || v === undefined ? 'missing' : cellMd(String(v));
}

/**
 * Render the Markdown write-up.
 * @param runs loaded runs, in display order
 * @param diagnosis from `diagnose(runs)`
 * @param opts `svgDir` for the chart files, price fallback, title
 */
export function renderMarkdownReport(
  runs: readonly LoadedRun[],
  diagnosis: Diagnosis,
  opts: MarkdownReportOptions,
): MarkdownReport {
  const dir = opts.svgDir.replace(/\/+$/, '') || '.';
  const charts = reportCharts(runs);
  const files = charts.map((c) => ({ path: `${dir}/${c.id}.svg`, svg: renderSvg(c.option) }));
  const L: string[] = [];
  L.push(`# ${opts.title ?? `Serving benchmark: ${runs.map((r) => r.label).join(', ')}`}`, '');
  L.push(`**valid: ${diagnosis.valid}**`, '');
  for (const r of diagnosis.reasons) L.push(`- \`${r.code}\` [${r.run}] ${r.message}`);
  if (diagnosis.reasons.length) L.push('');

  L.push('## 1. Background and goals', '', TODO('what question these runs answer, and for whom'), '');
  L.push(`Runs: ${runs.map((r) => `\`${r.id}\`${r.kind ? ` (${r.kind})` : ''}`).join(', ')}.`, '');

  L.push('## 2. Choice of engine and model', '');
  L.push('| run | engine | version | model | GPU | count |', '| --- | --- | --- | --- | --- | --- |');
  for (const r of runs) {
    L.push(
      `| ${cellMd(r.label)} | ${recordValue(r, 'engine', 'name')} | ${recordValue(r, 'engine', 'version')} | ${recordValue(r, 'model', 'id')} | ${recordValue(r, 'device', 'gpu')} | ${recordValue(r, 'device', 'count')} |`,
    );
  }
  L.push('', TODO('why this engine and model, and what the alternatives were'), '');

  L.push('## 3. System configuration', '');
  for (const r of runs) {
    L.push(`### ${r.label}`, '');
    if (!r.record) {
      L.push('missing: no experiment record for this run', '');
      continue;
    }
    L.push('| field | source | value | missing |', '| --- | --- | --- | --- |');
    for (const [name, f] of recordFields(r)) {
      const vals = Object.entries(f.value ?? {})
        .filter(([, v]) => v !== null && v !== undefined)
        .map(([k, v]) => `${k}=${typeof v === 'object' ? JSON.stringify(redactSecrets(v)) : String(v)}`)
        .join(', ');
      // A part with no value is missing whether or not the field lists it: never hidden.
      const missing = new Set(f.missing ?? []);
      for (const [k, v] of Object.entries(f.value ?? {})) if (v === null || v === undefined) missing.add(k);
      L.push(
        `| ${name} | ${f.source} | ${vals.replaceAll('|', '\\|') || '—'} | ${[...missing].join(', ') || '—'} |`,
      );
    }
    L.push('');
  }

  L.push('## 4. Load design', '');
  L.push(
    '| run | level | measured | warm-up | window s | config.load |',
    '| --- | --- | ---: | ---: | ---: | --- |',
  );
  const rows = comparisonTable(runs, opts);
  rows.forEach((row, i) => {
    const load = redactSecrets(runs[i].config.load ?? null);
    L.push(
      `| ${cellMd(row.label)} | ${row.level ?? '—'} | ${row.measured.value ?? '—'} | ${row.warmup.value ?? '—'} | ${row.window_s.value?.toFixed(1) ?? '—'} | ${load === null ? '—' : `\`${JSON.stringify(load).replaceAll('|', '\\|')}\``} |`,
    );
  });
  L.push('', TODO('why these levels, arrival process and request shapes'), '');

  L.push('## 5. Results', '', renderTableMarkdown(rows));
  // The top errors of each run that had failures, with the hint for each (summary.errors; a
  // report.json from before it existed has none).
  const erring = runs.filter((r) => (r.summary.errors ?? []).length > 0);
  if (erring.length) {
    L.push('Top errors:', '');
    for (const r of erring)
      for (const g of r.summary.errors)
        L.push(
          `- ${cellMd(r.label)}: ${cellMd(formatErrorGroup(g))}${g.hint ? ` (hint: ${cellMd(g.hint)})` : ''}`,
        );
    L.push('');
  }
  // Runs read from a vLLM result file: whose definitions, what the file lacks, and every
  // statistic it gives (the table shows p50/p95/p99 only).
  const foreign = runs.filter((r) => r.source);
  if (foreign.length) {
    L.push(
      "Runs read from a vLLM result file (`vllm bench serve --save-result`) follow vLLM's definitions:",
      '',
    );
    for (const d of foreign[0].source?.definitions ?? []) L.push(`- ${d}`);
    L.push('');
  }
  for (const r of foreign) {
    if (!r.source) continue;
    L.push(`**${cellMd(r.label)}** (definitions vLLM): the statistics as the file gives them`, '');
    const t = sourceStatsRows(r);
    if (t) {
      L.push(
        `| ${t.header.map(cellMd).join(' | ')} |`,
        `|${t.header.map((_, i) => (i ? ' ---: |' : ' --- |')).join('')}`,
      );
      for (const row of t.rows) L.push(`| ${row.map(cellMd).join(' | ')} |`);
      L.push('');
    }
    for (const n of r.source.notes) L.push(`- ${cellMd(n)}`);
    if (r.source.notes.length) L.push('');
  }
  for (let i = 0; i < charts.length; i++) L.push(`![${charts[i].title}](${files[i].path})`, '');

  L.push('## 6. Explanation', '');
  if (diagnosis.findings.length === 0) L.push('No diagnosis rule matched.', '');
  for (const f of diagnosis.findings) {
    L.push(`### ${f.symptom}`, '', `Runs: ${f.runs.join(', ')} · rule \`${f.rule}\``, '');
    for (const e of f.evidence) L.push(`- ${e}`);
    if (f.request_ids.length) L.push(`- requests: ${f.request_ids.map((x) => `\`${x}\``).join(', ')}`);
    L.push('', `**Likely mechanism.** ${f.mechanism}`, '');
  }
  if (diagnosis.unexplained.length) {
    L.push('### Unexplained', '');
    for (const u of diagnosis.unexplained) L.push(`- [${u.run}] ${u.observation}`);
    L.push('');
  }
  if ((diagnosis.skipped ?? []).length) {
    L.push('### Not checked', '');
    for (const x of diagnosis.skipped)
      L.push(`- [${x.run}] ${x.checks.map((c) => `\`${c}\``).join(', ')}: ${x.reason}`);
    L.push('');
  }

  L.push("## 7. Notes on reading the engine's source", '');
  for (const s of SOURCE_MAP) {
    L.push(`### ${s.object}`, '', `What to trace: ${s.question}.`, '');
    L.push(`- vLLM: ${s.vllm.map((p) => `\`${p}\``).join(', ')}`);
    L.push(`- SGLang: ${s.sglang.map((p) => `\`${p}\``).join(', ')}`, '');
    L.push(
      TODO(
        `what the ${s.object.toLowerCase()} does with a request in these runs, and which finding it explains`,
      ),
      '',
    );
  }

  L.push(
    '## 8. Conclusion',
    '',
    TODO('the answer to the question in section 1, with the numbers that carry it'),
    '',
  );

  L.push('## 9. Next hypotheses', '');
  if (diagnosis.findings.length === 0) L.push(TODO('what to test next'));
  for (const f of diagnosis.findings) L.push(`- ${f.rule}: \`${f.next.command}\`, ${f.next.change}`);
  L.push('');
  return { markdown: L.join('\n'), files };
}
