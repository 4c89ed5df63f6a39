/**
 * @module assets/dashboard/app
 * The dashboard page: plain JS + echarts (a global from /vendor/echarts.min.js), no build step.
 * Views by URL hash: `#/` runs and experiments, `#/experiment/ID` one experiment's runs,
 * `#/run/ID` one run (summary, the report's table and charts, server series on the run's time
 * axis, and a live panel fed by server-sent events while it runs), `#/compare/A,B` runs side by
 * side. Chart options come from the server, built by the same functions as `servelab report`.
 * All text from the store goes in through textContent; only the report's table (escaped on the
 * server) is inserted as HTML.
 */

/* global echarts */

const view = document.getElementById('view');
const statusLine = document.getElementById('status');
/** Charts and the live stream of the current view, disposed when the view changes. */
let charts = [];
let liveSource = null;
/** Bumped on every navigation: a response that arrives for an older view is dropped. */
let generation = 0;

class StaleView extends Error {}

// ---- helpers ---------------------------------------------------------------------------------

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

/** A number for a table cell: '—' for no data, fewer decimals as it grows. */
function fmt(v) {
  if (v === null || v === undefined || Number.isNaN(v)) return '—';
  if (typeof v !== 'number') return String(v);
  const a = Math.abs(v);
  if (a === 0 || Number.isInteger(v)) return String(v);
  return v.toFixed(a >= 100 ? 0 : a >= 10 ? 1 : a >= 1 ? 2 : 3);
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
  view.replaceChildren();
  statusLine.textContent = '';
}

/** Charts need a laid-out container: add the box to the page before init. */
function addChart(parent, id, option) {
  const box = el('div', { class: 'chart', 'data-chart': id });
  parent.append(box);
  const chart = echarts.init(box, null, { renderer: 'canvas' });
  chart.setOption(option);
  charts.push(chart);
  return chart;
}

function statusSpan(status) {
  return el('span', { class: `status-${status}`, text: status });
}

function showError(e) {
  view.append(el('p', { class: 'error', text: `${e.message}${e.hint ? ` — ${e.hint}` : ''}` }));
}

// ---- lists -----------------------------------------------------------------------------------

function runsTable(runs) {
  const selected = new Set();
  const compare = el('button', {
    id: 'compare-btn',
    disabled: 'disabled',
    text: 'compare selected',
    onclick: () => {
      location.hash = `#/compare/${[...selected].join(',')}`;
    },
  });
  const head = el(
    'tr',
    {},
    ...['', 'id', 'label', 'kind', 'status', 'started (UTC)', 'records', 'ok', 'failed', 'TTFT p50 ms', 'TTFT p99 ms', 'E2E p50 ms', 'output tok/s'].map(
      (h, i) => el('th', { class: i <= 5 ? 'l' : undefined, text: h }),
    ),
  );
  const rows = runs.map((r) => {
    const box = el('input', {
      type: 'checkbox',
      'data-run': r.id,
      onchange: (ev) => {
        if (ev.target.checked) selected.add(r.id);
        else selected.delete(r.id);
        if (selected.size >= 2) compare.removeAttribute('disabled');
        else compare.setAttribute('disabled', 'disabled');
      },
    });
    const h = r.headline;
    return el(
      'tr',
      { 'data-run-row': r.id },
      el('td', { class: 'l' }, box),
      el('td', { class: 'l' }, el('a', { href: `#/run/${r.id}`, text: r.id })),
      el('td', { class: 'l', text: r.label }),
      el('td', { class: 'l', text: r.kind }),
      el('td', { class: 'l' }, statusSpan(r.status)),
      el('td', { class: 'l', text: when(r.started_at_unix_ms) }),
      el('td', { text: fmt(r.records) }),
      el('td', { text: fmt(h?.succeeded) }),
      el('td', { text: fmt(h?.failed) }),
      el('td', { text: fmt(h?.ttft_ms_p50) }),
      el('td', { text: fmt(h?.ttft_ms_p99) }),
      el('td', { text: fmt(h?.e2e_ms_p50) }),
      el('td', { text: fmt(h?.output_tok_s) }),
    );
  });
  return el('div', {}, el('table', { id: 'runs' }, el('thead', {}, head), el('tbody', {}, ...rows)), compare);
}

async function showHome() {
  const [{ runs }, { experiments }] = await Promise.all([api('/api/runs'), api('/api/experiments')]);
  view.append(el('h1', { text: 'Runs' }));
  view.append(runs.length ? runsTable(runs) : el('p', { class: 'muted', text: 'No runs in this store yet.' }));
  view.append(el('h2', { text: 'Experiments' }));
  if (!experiments.length) {
    view.append(el('p', { class: 'muted', text: 'No experiments in this store.' }));
    return;
  }
  const head = el('tr', {}, ...['id', 'name', 'kind', 'status', 'created (UTC)', 'runs'].map((h) => el('th', { class: 'l', text: h })));
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
  view.append(el('table', { id: 'experiments' }, el('thead', {}, head), el('tbody', {}, ...rows)));
}

async function showExperiment(id) {
  const { experiment, runs } = await api(`/api/experiments/${encodeURIComponent(id)}`);
  view.append(el('h1', {}, `Experiment ${experiment.name} `, statusSpan(experiment.status)));
  view.append(el('p', { class: 'muted', text: `${experiment.kind} · ${experiment.id} · created ${when(experiment.created_at_unix_ms)}` }));
  view.append(runs.length ? runsTable(runs) : el('p', { class: 'muted', text: 'No runs yet.' }));
  if (experiment.summary) view.append(el('h2', { text: 'Summary' }), el('pre', { text: JSON.stringify(experiment.summary, null, 2) }));
}

// ---- one run ---------------------------------------------------------------------------------

const STAT_COLS = ['n', 'mean', 'p50', 'p90', 'p95', 'p99', 'max'];
const LATENCY_KEYS = ['ttft_ms', 'ttfr_ms', 'e2e_ms', 'tpot_ms', 'itl_ms', 'max_gap_ms', 'lateness_ms', 'queue_ms'];

/** The run summary as two tables: counts and rates, then latency distributions (ms). */
function summaryTables(s) {
  const scalars = [
    ['planned', s.requests?.planned],
    ['measured', s.requests?.measured],
    ['succeeded', s.requests?.succeeded],
    ['failed', s.requests?.failed],
    ['error rate', s.error_rate],
    ['output tok/s', s.output_throughput_tok_s],
    ['total tok/s', s.total_throughput_tok_s],
    ['requests/s', s.request_throughput_rps],
    ['achieved send rate/s', s.achieved_rate_rps],
    ['goodput req/s', s.goodput?.rps],
    ['mean input tokens', s.input_tokens?.mean],
    ['mean output tokens', s.output_tokens?.mean],
  ];
  const t1 = el(
    'table',
    { id: 'summary-counts' },
    el('tbody', {}, ...scalars.map(([k, v]) => el('tr', {}, el('th', { class: 'l', text: k }), el('td', { 'data-key': k, text: fmt(v) })))),
  );
  const head = el('tr', {}, el('th', { class: 'l', text: 'metric' }), ...STAT_COLS.map((c) => el('th', { text: c })));
  const rows = LATENCY_KEYS.filter((k) => s[k]).map((k) =>
    el('tr', { 'data-metric': k }, el('td', { class: 'l', text: k }), ...STAT_COLS.map((c) => el('td', { text: fmt(s[k][c]) }))),
  );
  const t2 = el('table', { id: 'summary-latency' }, el('thead', {}, head), el('tbody', {}, ...rows));
  const warn = (s.warnings || []).map((w) => el('li', { text: w }));
  return el('div', {}, t1, t2, warn.length ? el('ul', { class: 'muted' }, ...warn) : null);
}

/** Largest x of a line/scatter option's data, in the option's own units. */
function maxX(option) {
  let m = 0;
  for (const s of option?.series || []) for (const p of s.data || []) if (Array.isArray(p) && p[0] > m) m = p[0];
  return m;
}

/**
 * Every scraped server series other than those the timeline already draws, one line per
 * (name, source, labels), on run time in seconds: the same axis as the client's timeline.
 */
function serverSeriesOption(points, xMaxS, skip) {
  const groups = new Map();
  for (const p of points) {
    if (skip.has(p.name)) continue;
    const lab = Object.entries(p.labels || {})
      .map(([k, v]) => `${k}=${v}`)
      .join(',');
    const key = `${p.name}${lab ? `{${lab}}` : ''} · ${p.source}`;
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push([p.t_ms / 1000, p.value]);
  }
  if (groups.size === 0) return null;
  return {
    animation: false,
    title: { text: 'Server series', left: 'center', textStyle: { fontSize: 14 } },
    legend: { top: 28, type: 'scroll' },
    tooltip: { trigger: 'axis' },
    grid: { left: 70, right: 70, top: 60, bottom: 55 },
    xAxis: { type: 'value', name: 'run time (s)', nameLocation: 'middle', nameGap: 30, min: 0, max: xMaxS || undefined },
    yAxis: { type: 'value', scale: true },
    series: [...groups].map(([name, data]) => ({
      type: 'line',
      name,
      showSymbol: false,
      data: data.sort((a, b) => a[0] - b[0]),
    })),
  };
}

function liveStat(id, label) {
  return el('span', {}, `${label}: `, el('b', { id, text: '—' }));
}

/** The live panel of a running run: counters and the report's timeline/TTFT CDF, fed by SSE. */
function startLive(run, parent) {
  const panel = el(
    'section',
    { class: 'live', id: 'live' },
    el('h2', { text: 'Live' }),
    el(
      'div',
      { class: 'kv' },
      liveStat('live-records', 'records'),
      liveStat('live-ok', 'ok'),
      liveStat('live-failed', 'failed'),
      liveStat('live-ttft-p50', 'TTFT p50 ms'),
      liveStat('live-ttft-p99', 'TTFT p99 ms'),
      liveStat('live-e2e-p50', 'E2E p50 ms'),
      liveStat('live-tok-s', 'output tok/s'),
      liveStat('live-inflight', 'in flight (server running / waiting)'),
      liveStat('live-updates', 'updates'),
    ),
  );
  const chartsDiv = el('div', { class: 'charts' });
  panel.append(chartsDiv);
  parent.append(panel);
  let timeline = null;
  let cdf = null;
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
    panel.dataset.records = String(u.records);
    if (u.charts?.timeline) {
      if (timeline) timeline.setOption(u.charts.timeline, { notMerge: true });
      else timeline = addChart(chartsDiv, 'live-timeline', u.charts.timeline);
    }
    if (u.charts?.ttft_cdf) {
      if (cdf) cdf.setOption(u.charts.ttft_cdf, { notMerge: true });
      else cdf = addChart(chartsDiv, 'live-ttft-cdf', u.charts.ttft_cdf);
    }
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
    statusLine.textContent = `run ${u.status}; reloading`;
    // The finished run has a stored summary and the full report charts: show those.
    route();
  });
  es.addEventListener('error', (ev) => {
    if (ev.data) statusLine.textContent = `live stream: ${JSON.parse(ev.data).error}`;
    else if (es.readyState === EventSource.CONNECTING) statusLine.textContent = 'live stream: reconnecting…';
  });
}

async function showRun(id) {
  const detail = await api(`/api/runs/${encodeURIComponent(id)}`);
  const run = detail.run;
  view.append(el('h1', {}, `Run ${run.label} `, statusSpan(run.status)));
  view.append(
    el('p', {
      class: 'muted',
      text: `${run.id} · ${run.kind} · started ${when(run.started_at_unix_ms)} UTC · ${run.records} records · summary ${detail.summary_source}`,
    }),
  );
  if (run.status === 'running') startLive(run, view);
  view.append(el('h2', { text: 'Summary' }), summaryTables(detail.summary));
  const table = el('div', { id: 'report-table' });
  table.innerHTML = detail.table_html; // escaped by report/table on the server
  view.append(el('h2', { text: 'Report table' }), table);

  const [{ charts: specs }, { series }] = await Promise.all([
    api(`/api/runs/${encodeURIComponent(run.id)}/charts`),
    api(`/api/runs/${encodeURIComponent(run.id)}/series`),
  ]);
  view.append(el('h2', { text: 'Charts' }));
  const grid = el('div', { class: 'charts', id: 'charts' });
  view.append(grid);
  if (!specs.length) grid.append(el('p', { class: 'muted', text: 'Not enough data for any chart yet.' }));
  // Client timeline and server series share one x range (run time, s) so they line up.
  const timelineSpec = specs.find((c) => c.id.startsWith('timeline-'));
  const seriesMaxS = series.reduce((m, p) => Math.max(m, p.t_ms / 1000), 0);
  const xMaxS = Math.max(timelineSpec ? maxX(timelineSpec.option) : 0, seriesMaxS);
  for (const c of specs) {
    const option = c === timelineSpec ? { ...c.option, xAxis: { ...c.option.xAxis, min: 0, max: xMaxS || undefined } } : c.option;
    addChart(grid, c.id, option);
  }
  // The timeline already draws running/waiting/KV usage next to the client's in-flight count.
  const so = serverSeriesOption(series, xMaxS, new Set(timelineSpec ? ['running', 'waiting', 'kv_usage'] : []));
  if (so) addChart(grid, 'server-series', so);
  const group = `run-${run.id}`;
  for (const c of charts) c.group = group;
  echarts.connect(group);

  view.append(
    el('h2', { text: 'Configuration' }),
    el('pre', { text: run.config ? JSON.stringify(run.config, null, 2) : 'not recorded' }),
    el('h2', { text: 'Environment' }),
    el('pre', { text: run.environment ? JSON.stringify(run.environment, null, 2) : 'not recorded' }),
  );
}

// ---- comparison ------------------------------------------------------------------------------

async function showCompare(ids) {
  const cmp = await api(`/api/compare?ids=${ids.map(encodeURIComponent).join(',')}`);
  view.append(el('h1', { text: `Compare ${cmp.runs.map((r) => r.label).join(' · ')}` }));
  const head = el('tr', {}, el('th', { class: 'l', text: 'metric' }), ...cmp.runs.map((r) => el('th', {}, el('a', { href: `#/run/${r.id}`, text: r.label }))));
  const line = (name, get) => el('tr', {}, el('td', { class: 'l', text: name }), ...cmp.runs.map((r) => el('td', { text: fmt(get(r.summary)) })));
  view.append(
    el(
      'table',
      { id: 'compare' },
      el('thead', {}, head),
      el(
        'tbody',
        {},
        line('succeeded', (s) => s.requests.succeeded),
        line('failed', (s) => s.requests.failed),
        ...['ttft_ms', 'e2e_ms', 'tpot_ms'].flatMap((k) => ['p50', 'p95', 'p99'].map((p) => line(`${k} ${p}`, (s) => s[k]?.[p]))),
        line('output tok/s', (s) => s.output_throughput_tok_s),
        line('requests/s', (s) => s.request_throughput_rps),
      ),
    ),
  );
  const table = el('div', { id: 'report-table' });
  table.innerHTML = cmp.table_html; // escaped by report/table on the server
  view.append(el('h2', { text: 'Report table' }), table, el('h2', { text: 'Charts' }));
  const grid = el('div', { class: 'charts', id: 'charts' });
  view.append(grid);
  for (const c of cmp.charts) addChart(grid, c.id, c.option);
}

// ---- routing ---------------------------------------------------------------------------------

async function route() {
  generation += 1;
  clearView();
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

window.addEventListener('hashchange', route);
window.addEventListener('resize', () => {
  for (const c of charts) c.resize();
});
route();
