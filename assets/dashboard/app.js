/**
 * @module assets/dashboard/app
 * The dashboard page: plain JS + echarts (a global from /vendor/echarts.min.js), no build step.
 * Views by URL hash: `#/` runs and experiments (refreshed every few seconds), `#/experiment/ID`
 * one experiment (the report's headline, its load curve with the knee, a verdict per level and
 * the diagnosis), `#/run/ID` one run (headline, summary, the report's table and charts, server
 * series as small panels on the run's time axis; while it runs, the headline, the summary and
 * the charts all follow the one live stream of server-sent events), `#/compare/A,B` runs side by
 * side. Chart options and the headline, table and diagnosis fragments come from the server,
 * built by the same functions as `servelab report`; every other sentence comes from the
 * dashboard's message catalogue (`/api/i18n`), in the language `servelab dashboard --lang` chose.
 * All text from the store goes in through textContent; only the report's fragments (escaped on
 * the server) are inserted as HTML.
 */

/* global echarts */

const view = document.getElementById('view');
const statusLine = document.getElementById('status');
/** Charts and the live stream of the current view, disposed when the view changes. */
let charts = [];
let liveSource = null;
/** The home list's refresh timer. */
let refreshTimer = null;
/** Bumped on every navigation: a response that arrives for an older view is dropped. */
let generation = 0;
/** The dashboard's messages (`dashboard.*`), from /api/i18n. */
let messages = {};

/** How often the home list refreshes, ms. */
const HOME_REFRESH_MS = 3000;

class StaleView extends Error {}

// ---- helpers ---------------------------------------------------------------------------------

/** A message in the dashboard's language, `{name}` placeholders filled; the key itself when unknown. */
function t(key, params = {}) {
  const m = messages[`dashboard.${key}`] ?? key;
  return m.replace(/\{(\w+)\}/g, (whole, name) => (params[name] === undefined ? whole : String(params[name])));
}

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null) continue;
    if (k === 'class') e.className = v;
    else if (k === 'text') e.textContent = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const c of children) if (c !== null && c !== undefined) e.append(c);
  return e;
}

/** A fragment rendered (and escaped) by the server's report functions. */
function fragment(id, html) {
  const d = el('div', { id });
  d.innerHTML = html; // escaped by report/ on the server
  return d;
}

/** A number for a table cell: '—' for no data, fewer decimals as it grows. */
function fmt(v) {
  if (v === null || v === undefined || Number.isNaN(v)) return '—';
  if (typeof v !== 'number') return String(v);
  const a = Math.abs(v);
  if (a === 0 || Number.isInteger(v)) return String(v);
  return v.toFixed(a >= 100 ? 0 : a >= 10 ? 1 : a >= 1 ? 2 : 3);
}

/**
 * An axis label (report/chart-kit axisNumber): a tick, a round multiple of the axis's step, whole
 * with up to 3 decimals (`104.05`: a narrow axis keeps its ticks apart); anything else at most 3
 * significant decimals, no float noise (`7.630594756000001` → `7.63`); thousands as `12k`.
 */
function axisNumber(v) {
  if (!Number.isFinite(v)) return String(v);
  const round = (x, rest) => {
    const clean = Number(x.toPrecision(12));
    for (let d = 0; d <= 3; d++) if (Number(clean.toFixed(d)) === clean) return String(clean);
    return rest(x);
  };
  const a = Math.abs(v);
  if (a >= 10000) return `${round(v / 1000, (x) => String(Number(x.toPrecision(3))))}k`;
  return round(v, (x) => (a >= 100 ? String(Math.round(x)) : String(Number(x.toPrecision(3)))));
}

/** Every value and log axis of an option labelled through {@link axisNumber}. */
function roundAxes(option) {
  const fix = (axis) => {
    if (Array.isArray(axis)) return axis.map(fix);
    if (!axis || typeof axis !== 'object') return axis;
    const type = axis.type ?? 'value';
    if (type !== 'value' && type !== 'log') return axis;
    return { ...axis, axisLabel: { ...(axis.axisLabel || {}), formatter: axisNumber } };
  };
  return { ...option, xAxis: fix(option.xAxis), yAxis: fix(option.yAxis) };
}

/** The plot's top under a title and one legend row, px (report/chart-kit ONE_ROW_TOP). */
const ONE_ROW_TOP = 78;

/**
 * An option as the page draws it: axes labelled through {@link axisNumber}, and a legend that
 * pages in one row (the page can turn a legend's pages; the SVG report wraps it instead), so it
 * never runs onto the plot whatever the box's width.
 */
function forPage(option) {
  const o = roundAxes(option);
  if (!o.legend || o.legend.show === false) return o;
  const top = typeof o.grid?.top === 'number' ? Math.min(o.grid.top, ONE_ROW_TOP) : ONE_ROW_TOP;
  return { ...o, legend: { ...o.legend, type: 'scroll', left: 10, right: 10 }, grid: { ...o.grid, top } };
}

function when(unixMs) {
  return unixMs ? new Date(unixMs).toISOString().replace('T', ' ').slice(0, 19) : '—';
}

async function api(path) {
  const mine = generation;
  const res = await fetch(path, { headers: { accept: 'application/json' } });
  const body = await res.json();
  if (mine !== generation) throw new StaleView();
  if (!res.ok) {
    const err = new Error(body.error || `HTTP ${res.status}`);
    err.hint = body.hint;
    throw err;
  }
  return body;
}

function clearView() {
  for (const c of charts) c.dispose();
  charts = [];
  if (liveSource) {
    liveSource.close();
    liveSource = null;
  }
  if (refreshTimer) {
    clearInterval(refreshTimer);
    refreshTimer = null;
  }
  view.replaceChildren();
  statusLine.textContent = '';
}

/** Charts need a laid-out container: add the box to the page before init. */
function addChart(parent, id, option, size) {
  const box = el('div', { class: `chart${size ? ` ${size}` : ''}`, 'data-chart': id });
  parent.append(box);
  const chart = echarts.init(box, null, { renderer: 'canvas' });
  chart.setOption(forPage(option));
  charts.push(chart);
  return chart;
}

function statusSpan(status) {
  return el('span', { class: `status-${status}`, text: t(`status.${status}`) === `status.${status}` ? status : t(`status.${status}`) });
}

/**
 * A run's validity verdict as stored with it: valid (green), NOT VALID with its codes (red, the
 * reasons' messages on hover), or not judged (a running run, or one that ended before it was).
 * The status says whether the run finished; only this says whether its numbers bear weight.
 */
function verdictSpan(run) {
  const v = run.verdict;
  if (!v)
    return el('span', {
      class: 'verdict-none',
      text: t('verdict.none'),
      title: t(run.status === 'running' ? 'verdict.noneRunning' : 'verdict.noneStored'),
    });
  if (v.valid) return el('span', { class: 'verdict-valid', text: t('verdict.valid') });
  const codes = [...new Set(v.reasons.map((r) => r.code))].join(', ');
  return el('span', {
    class: 'verdict-invalid',
    text: t('verdict.invalid', { codes }),
    title: v.reasons.map((r) => `${r.code}: ${r.message}`).join('\n'),
  });
}

function showError(e) {
  view.append(el('p', { class: 'error', text: `${e.message}${e.hint ? ` — ${e.hint}` : ''}` }));
}

/** A table that scrolls sideways inside its box instead of widening the page. */
function scroller(table) {
  return el('div', { class: 'table-scroll' }, table);
}

// ---- lists -----------------------------------------------------------------------------------

function runsTable(runs, selected = new Set()) {
  const compare = el('button', {
    id: 'compare-btn',
    text: t('compareSelected'),
    onclick: () => {
      location.hash = `#/compare/${[...selected].join(',')}`;
    },
  });
  const enable = () => {
    if (selected.size >= 2) compare.removeAttribute('disabled');
    else compare.setAttribute('disabled', 'disabled');
  };
  enable();
  const cols = [
    ['', 'l'],
    [t('col.id'), 'l'],
    [t('col.label'), 'l'],
    [t('col.kind'), 'l'],
    [t('col.status'), 'l'],
    [t('col.verdict'), 'l'],
    [t('col.started'), 'l'],
    [t('col.records')],
    [t('col.ok')],
    [t('col.failed')],
    ['TTFT p50 ms'],
    ['TTFT p99 ms'],
    ['E2E p50 ms'],
    [t('col.outTokS')],
  ];
  const head = el('tr', {}, ...cols.map(([h, cls]) => el('th', { class: cls, text: h })));
  const rows = runs.map((r) => {
    const box = el('input', {
      type: 'checkbox',
      'data-run': r.id,
      onchange: (ev) => {
        if (ev.target.checked) selected.add(r.id);
        else selected.delete(r.id);
        enable();
      },
    });
    if (selected.has(r.id)) box.checked = true;
    const h = r.headline;
    return el(
      'tr',
      { 'data-run-row': r.id },
      el('td', { class: 'l' }, box),
      el('td', { class: 'l' }, el('a', { href: `#/run/${r.id}`, text: r.id })),
      el('td', { class: 'l', text: r.label }),
      el('td', { class: 'l', text: r.kind }),
      el('td', { class: 'l' }, statusSpan(r.status)),
      el('td', { class: 'l', 'data-verdict': r.verdict ? String(r.verdict.valid) : 'none' }, verdictSpan(r)),
      // The wall-clock start: a virtual-clock run's own origin is virtual time (1970).
      el('td', { class: 'l', text: when(r.wall_started_at_unix_ms) }),
      el('td', { text: fmt(r.records) }),
      el('td', { text: fmt(h?.succeeded) }),
      el('td', { text: fmt(h?.failed) }),
      el('td', { text: fmt(h?.ttft_ms_p50) }),
      el('td', { text: fmt(h?.ttft_ms_p99) }),
      el('td', { text: fmt(h?.e2e_ms_p50) }),
      el('td', { text: fmt(h?.output_tok_s) }),
    );
  });
  return el('div', {}, scroller(el('table', { id: 'runs' }, el('thead', {}, head), el('tbody', {}, ...rows))), compare);
}

function experimentsTable(experiments) {
  const head = el(
    'tr',
    {},
    ...[t('col.id'), t('col.name'), t('col.kind'), t('col.status'), t('col.created'), t('col.runs')].map((h) =>
      el('th', { class: 'l', text: h }),
    ),
  );
  const rows = experiments.map((e) =>
    el(
      'tr',
      {},
      el('td', { class: 'l' }, el('a', { href: `#/experiment/${e.id}`, text: e.id })),
      el('td', { class: 'l', text: e.name }),
      el('td', { class: 'l', text: e.kind }),
      el('td', { class: 'l' }, statusSpan(e.status)),
      el('td', { class: 'l', text: when(e.created_at_unix_ms) }),
      el('td', { text: fmt(e.runs) }),
    ),
  );
  return scroller(el('table', { id: 'experiments' }, el('thead', {}, head), el('tbody', {}, ...rows)));
}

/** The home page: runs and experiments, refreshed every {@link HOME_REFRESH_MS} while it is open. */
async function showHome() {
  const selected = new Set();
  const runsBox = el('div', { id: 'runs-box' });
  const expBox = el('div', { id: 'experiments-box' });
  const updated = el('p', { class: 'muted', id: 'updated' });
  view.append(el('h1', { text: t('runs') }), runsBox, el('h2', { text: t('experiments') }), expBox, updated);
  const fill = async () => {
    const [{ runs }, { experiments }] = await Promise.all([api('/api/runs'), api('/api/experiments')]);
    runsBox.replaceChildren(runs.length ? runsTable(runs, selected) : el('p', { class: 'muted', text: t('noRuns') }));
    expBox.replaceChildren(
      experiments.length ? experimentsTable(experiments) : el('p', { class: 'muted', text: t('noExperiments') }),
    );
    updated.textContent = t('updated', { time: new Date().toISOString().slice(11, 19) });
    view.dataset.refreshed = String(Number(view.dataset.refreshed ?? 0) + 1);
  };
  await fill();
  const mine = generation;
  refreshTimer = setInterval(() => {
    if (mine !== generation) return;
    fill().catch((e) => {
      if (!(e instanceof StaleView)) statusLine.textContent = e.message;
    });
  }, HOME_REFRESH_MS);
}

async function showExperiment(id) {
  const exp = await api(`/api/experiments/${encodeURIComponent(id)}`);
  const { experiment, runs } = exp;
  // The tab is titled with the experiment's name, as its report is.
  document.title = `${experiment.name} · ${t('title')}`;
  view.append(el('h1', {}, `${t('experiment')} ${experiment.name} `, statusSpan(experiment.status)));
  view.append(
    el('p', {
      class: 'muted',
      text: `${experiment.kind} · ${experiment.id} · ${t('created', { time: when(experiment.created_at_unix_ms) })}`,
    }),
  );
  // The kind's answer first: the question, the verdict, its table and chart; the evidence follows.
  if (exp.answer_html) view.append(fragment('experiment-answer', exp.answer_html));
  if (exp.headline_html) view.append(fragment('experiment-headline', exp.headline_html));
  else view.append(el('section', { class: 'headline', id: 'headline' }, el('p', { text: t('noRunsYet') })));
  const grid = el('div', { class: 'charts', id: 'charts' });
  if (exp.charts.length) view.append(grid);
  for (const c of exp.charts) addChart(grid, c.id, c.option, c.size);
  if (exp.table_html) view.append(el('h2', { text: t('levels') }), fragment('report-table', exp.table_html));
  view.append(el('h2', { text: t('runs') }));
  view.append(runs.length ? runsTable(runs) : el('p', { class: 'muted', text: t('noRunsYet') }));
  if (exp.diagnosis_html) view.append(el('h2', { text: t('diagnosis') }), fragment('diagnosis', exp.diagnosis_html));
  if (experiment.summary)
    view.append(
      el(
        'details',
        { class: 'level' },
        el('summary', { text: t('experimentSummary') }),
        el('pre', { text: JSON.stringify(experiment.summary, null, 2) }),
      ),
    );
}

// ---- one run ---------------------------------------------------------------------------------

const STAT_COLS = ['n', 'mean', 'p50', 'p90', 'p95', 'p99', 'max'];
const LATENCY_KEYS = ['ttft_ms', 'ttfr_ms', 'e2e_ms', 'tpot_ms', 'itl_ms', 'max_gap_ms', 'lateness_ms', 'queue_ms'];

/** A two-column table of name → number. */
function scalarTable(id, pairs) {
  return el(
    'table',
    { id },
    el('tbody', {}, ...pairs.map(([k, v]) => el('tr', {}, el('th', { class: 'l', text: k }), el('td', { 'data-key': k, text: fmt(v) })))),
  );
}

/** A latency table: one row per metric, one column per statistic (ms). */
function latencyTable(stats) {
  const head = el('tr', {}, el('th', { class: 'l', text: t('metric') }), ...STAT_COLS.map((c) => el('th', { text: c })));
  const rows = Object.entries(stats).map(([k, s]) =>
    el('tr', { 'data-metric': k }, el('td', { class: 'l', text: k }), ...STAT_COLS.map((c) => el('td', { text: fmt(s[c]) }))),
  );
  return el('table', { id: 'summary-latency' }, el('thead', {}, head), el('tbody', {}, ...rows));
}

/** The run summary as two tables: counts and rates, then latency distributions (ms). */
function summaryTables(s) {
  const t1 = scalarTable('summary-counts', [
    [t('s.planned'), s.requests?.planned],
    [t('s.measured'), s.requests?.measured],
    [t('s.succeeded'), s.requests?.succeeded],
    [t('s.failed'), s.requests?.failed],
    ['error_rate', s.error_rate],
    ['output tok/s', s.output_throughput_tok_s],
    ['total tok/s', s.total_throughput_tok_s],
    ['req/s', s.request_throughput_rps],
    [t('s.achievedRate'), s.achieved_rate_rps],
    ['goodput req/s', s.goodput?.rps],
    [t('s.inputMean'), s.input_tokens?.mean],
    [t('s.outputMean'), s.output_tokens?.mean],
  ]);
  const lat = Object.fromEntries(LATENCY_KEYS.filter((k) => s[k]).map((k) => [k, s[k]]));
  const warn = (s.warnings || []).map((w) => el('li', { text: w }));
  return el('div', { class: 'summary' }, scroller(t1), scroller(latencyTable(lat)), warn.length ? el('ul', { class: 'muted' }, ...warn) : null);
}

/** The summary of a run in progress, from the live stream's statistics (the same numbers as its counters). */
function liveSummaryTables(st) {
  const t1 = scalarTable('summary-counts', [
    [t('live.records'), st.records],
    [t('live.warmup'), st.warmup],
    [t('s.succeeded'), st.succeeded],
    [t('s.failed'), st.failed],
    ['error_rate', st.error_rate],
    ['output tok/s', st.output_tok_s],
    ['req/s', st.request_rps],
  ]);
  return el(
    'div',
    { class: 'summary' },
    scroller(t1),
    scroller(latencyTable({ ttft_ms: st.ttft_ms, e2e_ms: st.e2e_ms })),
    el('p', { class: 'muted', text: t('live.summaryNote') }),
  );
}

/** Largest x of a line/scatter option's data, in the option's own units. */
function maxX(option) {
  let m = 0;
  for (const s of option?.series || []) for (const p of s.data || []) if (Array.isArray(p) && p[0] > m) m = p[0];
  return m;
}

function liveStat(id, label) {
  return el('span', {}, `${label}: `, el('b', { id, text: '—' }));
}

/**
 * A run in progress: its live headline (counters), summary and charts, all fed by one
 * server-sent event stream; on `end` the page reloads the finished run.
 */
function startLive(run, parent, setMeta) {
  const panel = el(
    'section',
    { class: 'live headline', id: 'live' },
    el('div', { id: 'headline' }, el('div', { class: 'verdict running', text: t('live.running') })),
    el(
      'div',
      { class: 'kv' },
      liveStat('live-records', t('live.records')),
      liveStat('live-ok', t('col.ok')),
      liveStat('live-failed', t('col.failed')),
      liveStat('live-ttft-p50', 'TTFT p50 ms'),
      liveStat('live-ttft-p99', 'TTFT p99 ms'),
      liveStat('live-e2e-p50', 'E2E p50 ms'),
      liveStat('live-tok-s', 'output tok/s'),
      liveStat('live-inflight', t('live.inflight')),
      liveStat('live-gpu-util', t('live.gpuUtil')),
      liveStat('live-gpu-mem', t('live.gpuMemory')),
      liveStat('live-updates', t('live.updates')),
    ),
  );
  const noGpu = el('p', { class: 'muted', id: 'live-no-gpu', hidden: 'hidden', text: t('live.noGpu') });
  panel.append(noGpu);
  const summaryBox = el('div', { id: 'summary' }, el('p', { class: 'muted', text: t('live.waiting') }));
  const grid = el('div', { class: 'charts', id: 'charts' });
  parent.append(panel, el('h2', { text: t('summary') }), summaryBox, el('h2', { text: t('charts') }), grid);
  let timeline = null;
  let cdf = null;
  /** The GPU panel: utilisation and memory, the report's named charts, side by side. */
  const gpuGrid = el('div', { class: 'charts panels', id: 'live-gpu' });
  let gpuUtil = null;
  let gpuMem = null;
  let updates = 0;
  const set = (id, v) => {
    document.getElementById(id).textContent = fmt(v);
  };
  const apply = (u) => {
    updates += 1;
    const s = u.stats;
    set('live-records', u.records);
    set('live-ok', s.succeeded);
    set('live-failed', s.failed);
    set('live-ttft-p50', s.ttft_ms.p50);
    set('live-ttft-p99', s.ttft_ms.p99);
    set('live-e2e-p50', s.e2e_ms.p50);
    set('live-tok-s', s.output_tok_s);
    document.getElementById('live-inflight').textContent =
      `${fmt(u.in_flight.server_running)} / ${fmt(u.in_flight.server_waiting)}`;
    set('live-updates', updates);
    set('live-gpu-util', u.gpu?.util_pct);
    set('live-gpu-mem', u.gpu?.memory_gib);
    // Once records arrive the first scrape has come back: no GPU reading then means none is scraped.
    if (u.gpu?.util_pct == null && u.gpu?.memory_gib == null && u.records > 0) noGpu.removeAttribute('hidden');
    else noGpu.setAttribute('hidden', 'hidden');
    panel.dataset.records = String(u.records);
    setMeta(u.records);
    summaryBox.replaceChildren(liveSummaryTables(s));
    summaryBox.dataset.records = String(u.records);
    if (u.charts?.timeline) {
      if (timeline) timeline.setOption(forPage(u.charts.timeline), { notMerge: true });
      else timeline = addChart(grid, 'live-timeline', u.charts.timeline);
    }
    if (u.charts?.ttft_cdf) {
      if (cdf) cdf.setOption(forPage(u.charts.ttft_cdf), { notMerge: true });
      else cdf = addChart(grid, 'live-ttft-cdf', u.charts.ttft_cdf);
    }
    if ((u.charts?.gpu_util || u.charts?.gpu_memory) && !gpuGrid.isConnected)
      grid.after(el('h3', { text: t('live.gpu') }), gpuGrid);
    if (u.charts?.gpu_util) {
      if (gpuUtil) gpuUtil.setOption(roundAxes(u.charts.gpu_util), { notMerge: true });
      else gpuUtil = addChart(gpuGrid, 'live-gpu-util', u.charts.gpu_util, 'panel');
    }
    if (u.charts?.gpu_memory) {
      if (gpuMem) gpuMem.setOption(roundAxes(u.charts.gpu_memory), { notMerge: true });
      else gpuMem = addChart(gpuGrid, 'live-gpu-memory', u.charts.gpu_memory, 'panel');
    }
    grid.dataset.records = String(u.records);
  };
  const es = new EventSource(`/api/runs/${encodeURIComponent(run.id)}/live`);
  liveSource = es;
  es.addEventListener('update', (ev) => apply(JSON.parse(ev.data)));
  es.addEventListener('end', (ev) => {
    const u = JSON.parse(ev.data);
    apply(u);
    es.close();
    liveSource = null;
    panel.dataset.ended = u.status;
    statusLine.textContent = t('live.ended', { status: t(`status.${u.status}`) });
    // The finished run has a stored summary and the full report charts: show those.
    route();
  });
  es.addEventListener('error', (ev) => {
    if (ev.data) statusLine.textContent = t('live.error', { error: JSON.parse(ev.data).error });
    else if (es.readyState === EventSource.CONNECTING) statusLine.textContent = t('live.reconnecting');
  });
}

async function showRun(id) {
  const detail = await api(`/api/runs/${encodeURIComponent(id)}`);
  const run = detail.run;
  view.append(el('h1', {}, `${t('run')} ${run.label} `, statusSpan(run.status), ' · ', verdictSpan(run)));
  const meta = el('p', { class: 'muted', id: 'run-meta' });
  const setMeta = (records) => {
    meta.textContent = t('runMeta', {
      id: run.id,
      kind: run.kind,
      started: when(run.wall_started_at_unix_ms),
      records,
      source: t(`summarySource.${detail.summary_source}`),
    });
  };
  setMeta(run.records);
  view.append(meta);
  if (run.status === 'running') {
    // Everything on a live page follows the stream; the report table comes with the finished run.
    startLive(run, view, setMeta);
  } else {
    view.append(fragment('run-headline', detail.headline_html));
    view.append(el('h2', { text: t('summary') }), summaryTables(detail.summary));
    view.append(el('h2', { text: t('reportTable') }), fragment('report-table', detail.table_html));
    const { charts: specs } = await api(`/api/runs/${encodeURIComponent(run.id)}/charts`);
    view.append(el('h2', { text: t('charts') }));
    const grid = el('div', { class: 'charts', id: 'charts' });
    const panels = el('div', { class: 'charts panels', id: 'server-panels' });
    const panelsHead = el('h3', { text: t('serverSeries') });
    // Laid out before the charts init (a detached box has no size, and echarts draws nothing in it).
    view.append(grid, panelsHead, panels);
    if (!specs.length) grid.append(el('p', { class: 'muted', text: t('noCharts') }));
    // The client timeline and the server panels share one x range (run time, s) so they line up.
    const timed = (c) => c.id.startsWith('timeline-') || c.id.startsWith('server-');
    const xMaxS = Math.ceil(specs.filter(timed).reduce((m, c) => Math.max(m, maxX(c.option)), 0));
    for (const c of specs) {
      const option = timed(c) && xMaxS ? { ...c.option, xAxis: { ...c.option.xAxis, min: 0, max: xMaxS } } : c.option;
      addChart(c.size === 'panel' ? panels : grid, c.id, option, c.size);
    }
    if (!panels.childElementCount) {
      panelsHead.remove();
      panels.remove();
    }
    const group = `run-${run.id}`;
    for (const c of charts) c.group = group;
    echarts.connect(group);
  }
  view.append(
    el('details', { class: 'level' }, el('summary', { text: t('configuration') }), el('pre', { text: run.config ? JSON.stringify(run.config, null, 2) : t('notRecorded') })),
    el('details', { class: 'level' }, el('summary', { text: t('environment') }), el('pre', { text: run.environment ? JSON.stringify(run.environment, null, 2) : t('notRecorded') })),
  );
}

// ---- comparison ------------------------------------------------------------------------------

async function showCompare(ids) {
  const cmp = await api(`/api/compare?ids=${ids.map(encodeURIComponent).join(',')}`);
  view.append(el('h1', { text: t('compareTitle', { runs: cmp.runs.map((r) => r.label).join(' · ') }) }));
  view.append(fragment('compare-headline', cmp.headline_html));
  const head = el('tr', {}, el('th', { class: 'l', text: t('metric') }), ...cmp.runs.map((r) => el('th', {}, el('a', { href: `#/run/${r.id}`, text: r.label }))));
  const line = (name, get) => el('tr', {}, el('td', { class: 'l', text: name }), ...cmp.runs.map((r) => el('td', { text: fmt(get(r.summary)) })));
  view.append(
    scroller(
      el(
        'table',
        { id: 'compare' },
        el('thead', {}, head),
        el(
          'tbody',
          {},
          line(t('s.succeeded'), (s) => s.requests.succeeded),
          line(t('s.failed'), (s) => s.requests.failed),
          ...['ttft_ms', 'e2e_ms', 'tpot_ms'].flatMap((k) => ['p50', 'p95', 'p99'].map((p) => line(`${k} ${p}`, (s) => s[k]?.[p]))),
          line('output tok/s', (s) => s.output_throughput_tok_s),
          line('req/s', (s) => s.request_throughput_rps),
        ),
      ),
    ),
  );
  view.append(el('h2', { text: t('reportTable') }), fragment('report-table', cmp.table_html), el('h2', { text: t('charts') }));
  const grid = el('div', { class: 'charts', id: 'charts' });
  const panels = el('div', { class: 'charts panels' });
  view.append(grid, panels);
  for (const c of cmp.charts) addChart(c.size === 'panel' ? panels : grid, c.id, c.option, c.size);
}

// ---- routing ---------------------------------------------------------------------------------

async function route() {
  generation += 1;
  clearView();
  document.title = t('title');
  const h = location.hash.replace(/^#\/?/, '');
  const [kind, arg] = [h.split('/')[0], h.split('/').slice(1).join('/')];
  try {
    if (kind === 'run' && arg) await showRun(decodeURIComponent(arg));
    else if (kind === 'experiment' && arg) await showExperiment(decodeURIComponent(arg));
    else if (kind === 'compare' && arg) await showCompare(arg.split(',').filter(Boolean));
    else await showHome();
  } catch (e) {
    if (!(e instanceof StaleView)) showError(e);
  }
}

async function start() {
  try {
    const res = await fetch('/api/i18n', { headers: { accept: 'application/json' } });
    const body = await res.json();
    messages = body.messages || {};
    document.documentElement.lang = body.lang || 'en';
    document.title = t('title');
    document.querySelector('nav a').textContent = t('runs');
  } catch {
    // No catalogue: the keys show, the page still works.
  }
  window.addEventListener('hashchange', route);
  window.addEventListener('resize', () => {
    for (const c of charts) c.resize();
  });
  route();
}

start();
