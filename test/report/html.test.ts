/**
 * The HTML report and the Markdown write-up: verdict first, self-contained (no scripts, no
 * external URLs), every chart inline, findings and missing record fields shown; the write-up
 * has its nine sections and links the SVG files it returns.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { diagnose } from '../../src/report/diagnose/index.js';
import { renderHtmlReport } from '../../src/report/html.js';
import { renderMarkdownReport, SOURCE_MAP } from '../../src/report/markdown.js';
import { buildReportJson, loadedRunFromReport } from '../../src/report/report-json.js';
import { buildRunReport } from '../../src/report/run/report.js';
import { sampleRuns } from './helpers.js';

describe('renderHtmlReport', () => {
  const runs = sampleRuns();
  const d = diagnose(runs);
  const html = renderHtmlReport(runs, d);

  it('opens with the validity verdict, before the table, charts and findings', () => {
    const at = (s: string) => html.indexOf(s);
    assert.ok(at('id="verdict"') > 0);
    assert.ok(at('id="verdict"') < at('<table class="comparison">'));
    assert.ok(at('<table class="comparison">') < at('<svg'));
    assert.ok(at('<svg') < at('data-rule="cold_start"'));
    assert.match(html, new RegExp(`valid: ${d.valid}`));
  });

  it('is self-contained: no scripts, no external resources', () => {
    assert.doesNotMatch(html, /<script/i);
    assert.doesNotMatch(html, /<link[^>]+href="(?!data:)/i);
    assert.doesNotMatch(html, /(src|href)\s*=\s*["']?(https?:)?\/\//i);
    assert.doesNotMatch(html, /url\(\s*['"]?https?:/i);
    assert.doesNotMatch(html, /@import/);
  });

  it('inlines every chart and escapes labels', () => {
    const figures = html.match(/<figure data-chart="[^"]+"><svg/g) ?? [];
    // CDF ×2, load curve, TTFT vs input, and per run a timeline and a chunk-gap chart.
    assert.equal(figures.length, 4 + 2 * 2);
    assert.match(html, /c1 &lt;&amp;&gt;/);
    assert.doesNotMatch(html, /c1 <&>/);
  });

  it("shows the findings and each run's record with missing fields marked missing", () => {
    assert.match(html, /data-rule="cold_start"/);
    assert.match(html, /servelab exp init baseline/);
    assert.match(
      html,
      /<td>image<\/td><td class="src-missing">missing<\/td><td[^>]*>digest: <span class="missing">missing<\/span>/,
    );
    assert.match(html, /server_header: <span class="missing">missing<\/span>/);
    assert.match(html, /version: 0\.1\.0/);
  });

  it('never prints a secret from the config, even when the caller left one in', () => {
    const key = 'sk-test-0123456789abcdef';
    const leaky = {
      ...runs[0],
      config: {
        target: { url: 'http://x/v1', api_key: key, headers: { Authorization: `Bearer ${key}` } },
        load: { token: key },
      },
    };
    const out = renderHtmlReport([leaky], diagnose([leaky]));
    assert.ok(!out.includes(key));
    assert.match(out, /&quot;api_key&quot;: &quot;\[redacted\]&quot;/);
    assert.ok(!renderMarkdownReport([leaky], diagnose([leaky]), { svgDir: '.' }).markdown.includes(key));
  });

  it('shows token counts and the tokenization method while hiding an authorization header', () => {
    const key = 'sk-test-auth-0123456789';
    const r = {
      ...runs[0],
      config: {
        target: { url: 'http://x/v1', headers: { authorization: `Bearer ${key}` } },
        generation: { max_tokens: 64 },
        workload: { tokenization: 'remote', tokenizer: 'Qwen/Qwen3-8B' },
      },
    };
    const out = renderHtmlReport([r], diagnose([r]));
    assert.ok(!out.includes(key));
    assert.match(out, /&quot;authorization&quot;: &quot;\[redacted\]&quot;/);
    assert.match(out, /&quot;tokenization&quot;: &quot;remote&quot;/);
    assert.match(out, /&quot;tokenizer&quot;: &quot;Qwen\/Qwen3-8B&quot;/);
    assert.match(out, /&quot;max_tokens&quot;: 64/);
  });

  it('renders a record as `servelab exp run` stores it (schema_version and target beside the fields)', () => {
    const stored = {
      ...runs[0],
      record: {
        schema_version: 1,
        target: 'a',
        ...runs[0].record,
      } as unknown as (typeof runs)[0]['record'],
    };
    const d = diagnose([stored]);
    const out = renderHtmlReport([stored], d);
    assert.match(out, /<td>image<\/td><td class="src-missing">missing<\/td>/);
    assert.doesNotMatch(out, /<td>schema_version<\/td>|<td>target<\/td>/);
    const md = renderMarkdownReport([stored], d, { svgDir: '.' }).markdown;
    assert.match(md, /\| image \| missing \|/);
    assert.doesNotMatch(md, /\| schema_version \||\| target \|/);
  });

  it('never prints a secret held in a record field', () => {
    const key = 'sk-test-record-0123456789';
    const leaky = {
      ...runs[0],
      record: {
        ...runs[0].record,
        endpoint: {
          value: { url: 'http://x/v1', headers: { Authorization: `Bearer ${key}` } },
          source: 'declared',
        },
      } as (typeof runs)[0]['record'],
    };
    assert.ok(!renderHtmlReport([leaky], diagnose([leaky])).includes(key));
    assert.ok(!renderMarkdownReport([leaky], diagnose([leaky]), { svgDir: '.' }).markdown.includes(key));
  });

  it('the write-up shows a null record part as missing, even when the field does not list it', () => {
    const r = {
      ...runs[0],
      record: {
        cache: { value: { state: 'warm', prefix_rule: null }, source: 'declared' },
      } as (typeof runs)[0]['record'],
    };
    const md = renderMarkdownReport([r], diagnose([r]), { svgDir: '.' }).markdown;
    assert.match(md, /\| cache \| declared \| state=warm \| prefix_rule \|/);
    assert.match(renderHtmlReport([r], diagnose([r])), /prefix_rule: <span class="missing">missing<\/span>/);
  });

  it('says missing for a run with no experiment record', () => {
    const bare = { ...runs[0], record: undefined };
    assert.match(renderHtmlReport([bare], diagnose([bare])), /missing: no experiment record/);
  });
});

describe('renderMarkdownReport', () => {
  const runs = sampleRuns();
  const d = diagnose(runs);
  const { markdown, files } = renderMarkdownReport(runs, d, { svgDir: 'charts/' });

  it('has the nine sections in order', () => {
    const heads = markdown.split('\n').filter((l) => /^## \d\./.test(l));
    assert.deepEqual(
      heads.map((h) => h.replace(/^## (\d)\..*/, '$1')),
      ['1', '2', '3', '4', '5', '6', '7', '8', '9'],
    );
    // The sample runs pass every validity check: the verdict says so and lists no reason.
    assert.deepEqual([d.valid, d.reasons], [true, []]);
    assert.match(markdown, /^# .*\n\n\*\*valid: true\*\*\n\n## 1\. /);
  });

  it('puts an invalid verdict first, with each reason under it', () => {
    const bad = { ...runs[0], summary: { ...runs[0].summary, error_rate: 0.5 } };
    const dd = diagnose([bad]);
    const md = renderMarkdownReport([bad], dd, { svgDir: '.' }).markdown;
    assert.equal(dd.valid, false);
    assert.match(
      md,
      new RegExp(`^\\*\\*valid: false\\*\\*\n\n- \`error_rate\` \\[${bad.id}\\] error rate`, 'm'),
    );
  });

  it('links every chart file it returns, under svgDir', () => {
    assert.equal(files.length, 8);
    for (const f of files) {
      assert.match(f.path, /^charts\/[\w-]+\.svg$/);
      assert.ok(markdown.includes(`](${f.path})`), f.path);
      assert.match(f.svg, /^<svg/);
    }
  });

  it('explains from the diagnosis and lists its next experiments', () => {
    assert.match(markdown, /## 6\. Explanation[\s\S]*\*\*Likely mechanism\.\*\* cold start/);
    assert.match(markdown, /## 9\. Next hypotheses\n\n- cold_start: `servelab exp init baseline`/);
  });

  it('names the vLLM and SGLang files for the four objects to trace', () => {
    assert.deepEqual(
      SOURCE_MAP.map((s) => s.object),
      ['Service entry', 'Request state', 'Scheduler', 'Execution backend'],
    );
    for (const p of [
      'vllm/entrypoints/openai/api_server.py',
      'vllm/v1/request.py',
      'vllm/v1/core/sched/scheduler.py',
      'vllm/v1/worker/gpu_model_runner.py',
      'python/sglang/srt/entrypoints/http_server.py',
      'python/sglang/srt/managers/schedule_batch.py',
      'python/sglang/srt/managers/scheduler.py',
      'python/sglang/srt/model_executor/model_runner.py',
    ])
      assert.ok(markdown.includes(`\`${p}\``), p);
  });

  it('shows the record with sources and missing parts, and the load design per run', () => {
    assert.match(markdown, /\| image \| missing \| — \| digest \|/);
    assert.match(markdown, /\| engine \| probed \| name=servelab-sim, version=0\.1\.0 \| server_header \|/);
    assert.match(markdown, /\| c4 <&> \| c=4 \| 24 \| 0 \| [\d.]+ \| `\{"concurrency":4\}` \|/);
  });
});

describe('report JSON and loading', () => {
  it('wraps a report.json as a run and builds the JSON report from it', () => {
    const [src] = sampleRuns();
    const rr = buildRunReport({
      config: src.config,
      environment: { servelab_version: 't', node_version: 'v20' },
      window: { start_ms: 0, end_ms: 1000 },
      started_at_unix_ms: 0,
      summary: src.summary,
      records: src.records,
      embedRecords: true,
    });
    const run = loadedRunFromReport('runs/1', rr, undefined, { label: 'one', level: { concurrency: 1 } });
    assert.equal(run.records.length, src.records.length);
    assert.deepEqual(run.window, { start_ms: 0, end_ms: 1000 });
    const json = buildReportJson([run], diagnose([run]));
    assert.equal(json.table[0].window_s.value, 1);
    assert.deepEqual(json.runs, [
      { id: 'runs/1', label: 'one', kind: null, level: { concurrency: 1 }, definitions: 'servelab' },
    ]);
    assert.deepEqual(JSON.parse(JSON.stringify(json)), json);
  });
});

describe('top errors in the write-up', () => {
  it('lists each run’s top errors with counts and hints in the Markdown and the HTML; none when nothing failed', () => {
    const runs = sampleRuns();
    const clean = renderMarkdownReport(runs, diagnose(runs), { svgDir: '.' }).markdown;
    assert.doesNotMatch(clean, /Top errors/);
    const failing = {
      ...runs[0],
      summary: {
        ...runs[0].summary,
        errors: [
          {
            count: 23,
            outcome: 'http_error' as const,
            http_status: 401,
            message: 'HTTP 401: Invalid or missing API key',
            hint: 'set INFERENCE_API_KEY (or name the variable with --api-key-env)',
          },
        ],
      },
    };
    const md = renderMarkdownReport([failing], diagnose([failing]), { svgDir: '.' }).markdown;
    assert.match(
      md,
      /Top errors:\n\n- c1 <&>: 23 × HTTP 401: Invalid or missing API key \(hint: set INFERENCE_API_KEY \(or name the variable with --api-key-env\)\)/,
    );
    const html = renderHtmlReport([failing], diagnose([failing]));
    assert.match(
      html,
      /<p>top errors<\/p><ul><li>23 × HTTP 401: Invalid or missing API key <small>\(hint: set INFERENCE_API_KEY/,
    );
    // A summary from before `errors` existed renders as before.
    const old = { ...runs[0], summary: { ...runs[0].summary, errors: undefined as never } };
    assert.doesNotMatch(renderMarkdownReport([old], diagnose([old]), { svgDir: '.' }).markdown, /Top errors/);
    assert.doesNotMatch(renderHtmlReport([old], diagnose([old])), /top errors/);
  });
});
