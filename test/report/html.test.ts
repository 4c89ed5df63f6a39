/**
 * The HTML report and the Markdown write-up: the headline first (verdict, key numbers against
 * the SLOs, the one-line diagnosis), a sweep's load curve next, self-contained (no scripts, no
 * external URLs), every chart inline, findings and missing record fields shown; the write-up
 * has the course's seven sections (in Chinese with zh-CN, no catalogue key left), splits its
 * results table, fills §2 from config and probes, and links the SVG files it returns.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { diagnose } from '../../src/analysis/diagnose/index.js';
import { translator } from '../../src/i18n/index.js';
import { headlineOf, renderHtmlReport } from '../../src/report/html.js';
import { chartsDirFor, renderMarkdownReport, systemFacts } from '../../src/report/markdown.js';
import { buildReportJson, loadedRunFromReport } from '../../src/report/report-json.js';
import { buildRunReport } from '../../src/report/run/report.js';
import { sampleRuns } from './helpers.js';

describe('renderHtmlReport', () => {
  const runs = sampleRuns();
  const d = diagnose(runs);
  const html = renderHtmlReport(runs, d);

  it('opens with the headline, then the load curve, before the table, the other charts and the findings', () => {
    const at = (s: string) => html.indexOf(s);
    assert.ok(at('id="headline"') > 0);
    assert.ok(at('id="headline"') < at('id="verdict"'));
    assert.ok(at('id="verdict"') < at('data-chart="load-curve"'));
    assert.ok(at('data-chart="load-curve"') < at('<table class="comparison">'));
    assert.ok(at('<table class="comparison">') < at('data-chart="ttft-cdf"'));
    assert.ok(at('data-chart="ttft-cdf"') < at('data-rule="cold_start"'));
    assert.equal(d.valid, true);
    assert.match(html, /these numbers can bear weight/);
    // The key numbers, each against its SLO where there is one; the one-line diagnosis names a rule.
    for (const m of [
      'ttft_ms p50',
      'ttft_ms p99',
      'tpot_ms p50',
      'tpot_ms p99',
      'goodput',
      'error_rate',
      'output tok/s',
    ])
      assert.ok(html.includes(`data-metric="${m}"`), m);
    assert.match(html, /<p class="oneline" id="oneline">Diagnosis: .*\(cold_start\)/);
  });

  it('folds each level of a sweep into its own details, and keeps the table scrolling inside its box', () => {
    assert.equal((html.match(/<details class="level" data-run=/g) ?? []).length, 2);
    assert.match(html, /<div class="table-scroll"><table class="comparison">/);
    assert.match(html, /table\.comparison tr>\*:first-child\{position:sticky;left:0/);
  });

  it('in Chinese: the section names and sentences from the zh-CN catalogue, no key left', () => {
    const zh = renderHtmlReport(runs, d, { t: translator('zh-CN') });
    assert.match(zh, /<html lang="zh-CN">/);
    for (const h of ['指标结果', '问题解释', '运行记录']) assert.ok(zh.includes(`<h2>${h}</h2>`), h);
    assert.match(zh, /有效：这些数字可以作为依据/);
    assert.doesNotMatch(zh, /\b(report|writeup|common)\.[a-z]+[.A-Za-z]*/);
    // Metric names stay as they are.
    assert.ok(zh.includes('data-metric="ttft_ms p99"'));
  });

  it('is self-contained: no scripts, no external resources', () => {
    assert.doesNotMatch(html, /<script/i);
    assert.doesNotMatch(html, /<link[^>]+href="(?!data:)/i);
    assert.doesNotMatch(html, /(src|href)\s*=\s*["']?(https?:)?\/\//i);
    assert.doesNotMatch(html, /url\(\s*['"]?https?:/i);
    assert.doesNotMatch(html, /@import/);
  });

  it('inlines every chart and escapes labels', () => {
    const figures = html.match(/<figure data-chart="(?!server-)[^"]+" aria-label="[^"]*"><svg/g) ?? [];
    // Load curve, CDF ×2, TTFT per request, and per run a timeline and a chunk-gap chart…
    assert.equal(figures.length, 4 + 2 * 2);
    // …and the server series, one small panel each, in their own grid.
    assert.ok((html.match(/<figure data-chart="server-/g) ?? []).length > 0);
    assert.match(html, /<div class="charts panels"><figure data-chart="server-0-/);
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

  it("has the course's seven sections in order, after the headline", () => {
    const heads = markdown.split('\n').filter((l) => /^## \d\./.test(l));
    assert.deepEqual(heads, [
      '## 1. Background and goals',
      '## 2. System configuration',
      '## 3. Load design',
      '## 4. Metric results',
      '## 5. Explanation of the problem',
      '## 6. Source code findings',
      '## 7. Conclusion',
    ]);
    // The sample runs pass every validity check: the verdict says so and lists no reason.
    assert.deepEqual([d.valid, d.reasons], [true, []]);
    assert.match(markdown, /^# .*\n\n\*\*valid: these numbers can bear weight\*\*\n\n/);
    assert.match(markdown, /\| ttft_ms p99 \| \d+ ms \|/);
  });

  it("in Chinese: the course's section names, no catalogue key left, metric names as they are", () => {
    const zh = renderMarkdownReport(runs, d, { svgDir: 'charts', t: translator('zh-CN') }).markdown;
    const heads = zh.split('\n').filter((l) => /^## \d\./.test(l));
    assert.deepEqual(
      heads.map((h) => h.slice(6)),
      ['背景与目标', '系统配置', '负载设计', '指标结果', '问题解释', '源码发现', '最终结论'],
    );
    assert.doesNotMatch(zh, /\b(report|writeup|common)\.[a-z]+[.A-Za-z]*/);
    assert.match(zh, /\| ttft_ms p50 \|/);
    // §6: the source map's rows for the measured engine (the simulator), in Chinese
    assert.match(zh, /\| servelab-sim \| 服务入口 \| `src\/sim\/server\/server\.ts` \|/);
  });

  it('puts an invalid verdict first, with each reason under it', () => {
    const bad = { ...runs[0], summary: { ...runs[0].summary, error_rate: 0.5 } };
    const dd = diagnose([bad]);
    const md = renderMarkdownReport([bad], dd, { svgDir: '.' }).markdown;
    assert.equal(dd.valid, false);
    assert.match(
      md,
      new RegExp(
        `^\\*\\*NOT VALID: some numbers cannot bear weight\\*\\*\n\n- \`error_rate\` \\[${bad.label.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;')}\\] error rate`,
        'm',
      ),
    );
  });

  it('links every chart file it returns, under svgDir', () => {
    assert.equal(files.length, 8);
    for (const f of files) {
      assert.match(f.path, /^charts\/[\w-]+\.svg$/);
      assert.ok(markdown.includes(`](${f.path})`), f.path);
      assert.match(f.svg, /^<svg/);
    }
    assert.equal(chartsDirFor('w.md'), 'w.charts');
    assert.equal(chartsDirFor('notes.v2.md'), 'notes.v2.charts');
  });

  it('splits the results table so that none is wider than 12 columns', () => {
    const widths = markdown
      .split('\n')
      .filter((l) => l.startsWith('|'))
      .map((l) => l.replace(/\\\|/g, '').split('|').length - 2);
    assert.ok(Math.max(...widths) <= 12, String(Math.max(...widths)));
    for (const h of [
      '### Requests and verdict',
      '### Latency (ms)',
      '### Tokens, throughput, goodput and cost',
    ])
      assert.ok(markdown.includes(h), h);
  });

  it('explains from the diagnosis and lists its next experiments', () => {
    assert.match(markdown, /## 5\. Explanation of the problem[\s\S]*\*\*likely mechanism\.\*\* cold start/);
    assert.match(markdown, /### Next experiments\n\n- cold_start: `servelab exp init baseline`/);
  });

  it('lists each next experiment once, however many findings name it', () => {
    const f = d.findings[0];
    assert.ok(f, 'the sample runs have a finding');
    const twice = { ...d, findings: [f, { ...f, runs: ['another'] }] };
    const md = renderMarkdownReport(runs, twice, { svgDir: '.' }).markdown;
    const next = md.slice(md.indexOf('### Next experiments'));
    assert.equal(next.split(`\`${f.next.command}\``).length - 1, 1, next);
  });

  it("§6 shows the source map's rows for the measured engine only, or the notes it is given, and says so when there are none", () => {
    const s6 = markdown.slice(markdown.indexOf('## 6.'), markdown.indexOf('## 7.'));
    assert.match(s6, /\| servelab-sim \| request state \| `src\/sim\/engine\/request\.ts` \|/);
    assert.doesNotMatch(s6, /\| (vllm|sglang|llamacpp) \|/, 'only the measured engine');
    const none = renderMarkdownReport(runs, d, { svgDir: '.', sourceNotes: [] }).markdown;
    assert.match(none, /## 6\. Source code findings\n\nNo source notes yet for this engine\./);
    const withNotes = renderMarkdownReport(runs, d, {
      svgDir: '.',
      sourceNotes: [
        {
          engine: 'vllm',
          object: 'Scheduler',
          path: 'vllm/v1/core/sched/scheduler.py',
          symbol: 'Scheduler.schedule',
          version: 'v0.11.0',
        },
      ],
    }).markdown;
    assert.match(
      withNotes,
      /\| engine \| object \| path \| symbol \| version \|\n[^\n]+\n\| vllm \| Scheduler \| `vllm\/v1\/core\/sched\/scheduler\.py` \| `Scheduler\.schedule` \| v0\.11\.0 \|/,
    );
  });

  it('§2 takes engine, model and GPU from the record, else the config and the scrape; missing only when none knows', () => {
    const [r] = runs;
    const plain = {
      ...r,
      record: undefined,
      engine: 'vllm',
      config: { model: 'Qwen/Qwen3-8B', target: { url: 'http://x/v1' } },
    };
    const f = systemFacts(plain);
    assert.deepEqual(f.engine, { value: 'vllm', from: 'scrape' });
    assert.deepEqual(f.model, { value: 'Qwen/Qwen3-8B', from: 'config' });
    assert.equal(f.gpu, null);
    const sim = systemFacts({
      ...plain,
      engine: undefined,
      config: { target: { sim: { model: 'qwen3-8b', gpu: 'h100' } } },
    });
    assert.deepEqual(
      [sim.engine?.value, sim.model?.value, sim.gpu?.value],
      ['servelab-sim', 'qwen3-8b', 'h100'],
    );
    assert.deepEqual(systemFacts(r).engine, { value: 'servelab-sim', from: 'probed' });
  });

  it('shows the record with sources and missing parts, and the load design per run, rounded', () => {
    assert.match(markdown, /\| image \| missing \| — \| digest \|/);
    assert.match(markdown, /\| engine \| probed \| name=servelab-sim, version=0\.1\.0 \| server_header \|/);
    assert.match(markdown, /\| c4 &lt;&amp;&gt; \| c=4 \| 24 \| 0 \| [\d.]+ \| concurrency=4 \|/);
    assert.doesNotMatch(markdown, /\d\.\d{5,}/);
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
      /Top errors:\n\n- c1 &lt;&amp;&gt;: 23 × HTTP 401: Invalid or missing API key \(hint: set INFERENCE_API_KEY \(or name the variable with --api-key-env\)\)/,
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

describe('the headline under an experiment answer', () => {
  it('speaks for the run the answer names (the largest team meeting the SLO), not the busiest level', () => {
    const runs = sampleRuns();
    const d = diagnose(runs);
    // Without an answer the headline picks by its own rule; with one, the answer's run leads.
    const own = headlineOf(runs, d).focus.run.id;
    const other = runs.find((r) => r.id !== own);
    assert.ok(other, 'two runs');
    const answer = {
      kind: 'team-assistant',
      question: 'q',
      verdict: 'v',
      table: { columns: [], rows: [] },
      chart: null,
      run_ids: runs.map((r) => r.id),
      focus_run_id: other.id,
      interval: null,
    };
    const h = headlineOf(runs, d, { answers: [answer] });
    assert.equal(h.focus.run.id, other.id);
    assert.equal(h.focus.why, 'answer');
    const html = renderHtmlReport(runs, d, { answers: [answer] });
    assert.match(html, /the run the answer above speaks of/);
  });
});
