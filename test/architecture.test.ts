/**
 * The source layout rules, enforced: imports run one way along the data flow
 * (workload → schedule → runner → client → record → analysis → report), `sim/` is an engine
 * that knows nothing of the load generator, `cli/` is imported by nobody, and the clock and
 * randomness are only touched in `src/runtime/`; and no source files import each other in a
 * circle, so each file can be read, tested and moved with what it imports alone.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { test } from 'node:test';

const SRC = resolve(import.meta.dirname, '..', 'src');

/**
 * Each folder's tier. A folder may import itself, the ground, and any folder of a lower tier:
 * so imports run one way, from what orchestrates a measurement down to what it is built of,
 * and a new folder must say where it stands.
 *  - 0 ground: contracts (record), errors and names (core), the message catalogues (i18n), the
 *    clock and randomness (runtime);
 *    ground imports only ground;
 *  - 1 analysis: pure metric math over records, callable by every stage;
 *  - 2 report: renders runs and report.json; it never measures nor does I/O, so it sees only
 *    ground and analysis (and see the test below: no module that reads or writes the world);
 *    k8s renders the Kubernetes objects of a sharded run (YAML), a renderer too;
 *  - 2–4 what a request carries and when: tokenizer, workload, schedule; and config, the
 *    declarations of a run's settings, which read a length as workload does (tier 4: the
 *    lowest above workload, so the pipeline, the experiments and cli can all import it);
 *  - 5 the targets: the HTTP client and the simulated engine, which know nothing of each
 *    other or of the load generator;
 *  - 6 runner (the load loops), 7 its observers (monitoring, the store) and the run's files on
 *    disk (output: report.json, summary.csv, vllm.json, the host description they carry);
 *  - 8 pipeline (the one measurement path), 9 what builds on it (experiments, the dashboard);
 *  - 10 the upgrade gate, whose load check reuses the experiments' A/B machinery;
 *  - 11 cli, imported by nobody.
 */
const TIER: Record<string, number> = {
  core: 0,
  i18n: 0,
  runtime: 0,
  record: 0,
  analysis: 1,
  report: 2,
  k8s: 2,
  tokenizer: 2,
  workload: 3,
  schedule: 4,
  config: 4,
  client: 5,
  sim: 5,
  runner: 6,
  monitor: 7,
  store: 7,
  output: 7,
  pipeline: 8,
  exp: 9,
  dashboard: 9,
  gate: 10,
  cli: 11,
};

/** Whether code in folder `from` may import folder `to`. */
function mayImport(from: string, to: string): boolean {
  const a = TIER[from];
  const b = TIER[to];
  if (a === 0) return b === 0;
  return b < a;
}

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? walk(p) : p.endsWith('.ts') && !p.endsWith('.test.ts') ? [p] : [];
  });
}

const files = walk(SRC);
const IMPORT_RE =
  /(?:import|export)\s[^'"]*?from\s+['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;

test('imports follow the one-way layout', () => {
  const bad: string[] = [];
  for (const file of files) {
    const rel = relative(SRC, file);
    const stage = rel.includes('/') ? rel.split('/')[0] : '';
    if (!stage) continue; // src/index.ts is the public surface
    if (TIER[stage] === undefined) {
      bad.push(`${rel}: folder "${stage}" has no tier in test/architecture.test.ts`);
      continue;
    }
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(IMPORT_RE)) {
      const target = relative(SRC, resolve(file, '..', m[1] ?? m[2]));
      const to = target.includes('/') ? target.split('/')[0] : '';
      if (to === stage || to === '') continue;
      if (TIER[to] === undefined || !mayImport(stage, to)) bad.push(`${rel} imports ${target}`);
    }
  }
  assert.deepEqual(bad, []);
});

/**
 * What `report/` and `analysis/` may not import: modules that do I/O (files, the host,
 * processes, sockets, HTTP, SQLite) and the folders that measure or orchestrate a measurement.
 * analysis/ computes and judges, report/ renders, both over already-loaded runs; reading and
 * writing them is their callers' job (`output/`, `store/`, `cli/`).
 */
const IO_MODULES = [
  'node:fs',
  'node:fs/promises',
  'node:os',
  'node:child_process',
  'node:net',
  'node:http',
  'undici',
  'better-sqlite3',
];
const MEASURING_FOLDERS = [
  'runner',
  'client',
  'monitor',
  'store',
  'pipeline',
  'sim',
  'exp',
  'gate',
  'cli',
  'output',
];
const ANY_IMPORT_RE =
  /(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|import\s+['"]([^'"]+)['"]/g;

/** Imports of files under `folder/` that do I/O or reach a folder that measures. */
function impureImports(folder: string): string[] {
  const bad: string[] = [];
  for (const file of files) {
    const rel = relative(SRC, file);
    if (!rel.startsWith(`${folder}/`)) continue;
    const text = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
    for (const m of text.matchAll(ANY_IMPORT_RE)) {
      const spec = m[1] ?? m[2] ?? m[3];
      if (spec.startsWith('.')) {
        const target = relative(SRC, resolve(file, '..', spec));
        const to = target.split('/')[0];
        if (MEASURING_FOLDERS.includes(to)) bad.push(`${rel} imports ${target} (a folder that measures)`);
      } else if (IO_MODULES.includes(spec) || IO_MODULES.includes(`node:${spec}`))
        bad.push(`${rel} imports ${spec} (I/O)`);
    }
  }
  return bad;
}

test('report/ imports no module that does I/O or measures', () => {
  assert.deepEqual(impureImports('report'), []);
});

test('analysis/ (the metric math and the judging) is as pure as report/', () => {
  assert.deepEqual(impureImports('analysis'), []);
});

test('randomness and clocks only in src/runtime', () => {
  const bad: string[] = [];
  for (const file of files) {
    const rel = relative(SRC, file);
    const text = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
    if (/Math\.random\s*\(/.test(text)) bad.push(`${rel}: Math.random (use Rng from runtime/rng)`);
    if (!rel.startsWith('runtime/') && /\b(Date\.now|performance\.now)\s*\(/.test(text))
      bad.push(`${rel}: reads the clock directly (take a Clock from runtime/clock)`);
  }
  assert.deepEqual(bad, []);
});

test('the tiers say what the layout promises', () => {
  const cases: [string, string, boolean][] = [
    ['monitor', 'analysis', true], // every stage may call the metric functions
    ['client', 'analysis', true],
    ['analysis', 'monitor', false], // analysis is pure: ground only
    ['record', 'analysis', false],
    ['report', 'monitor', false], // report never measures
    ['report', 'runner', false],
    ['report', 'output', false], // nor writes files
    ['output', 'report', true], // output writes what report builds
    ['pipeline', 'output', true],
    ['sim', 'client', false], // the engine knows nothing of the load generator
    ['sim', 'runner', false],
    ['client', 'sim', false],
    ['exp', 'pipeline', true], // experiments measure through the pipeline
    ['pipeline', 'exp', false],
    ['exp', 'cli', false], // cli is imported by nobody
    ['pipeline', 'config', true], // every surface derives from the run settings' declarations
    ['exp', 'config', true],
    ['config', 'pipeline', false],
  ];
  for (const [from, to, ok] of cases) assert.equal(mayImport(from, to), ok, `${from} → ${to}`);
});

const fileSet = new Set(files);
/** `import './x.js'`: loaded for its effects, so an edge too. */
const SIDE_EFFECT_RE = /^\s*import\s+['"](\.{1,2}\/[^'"]+)['"]/gm;

/**
 * The source file a relative import names: `./x.js` is `x.ts`, a folder is its `index.ts`.
 * null when no such file exists (a data file, or a mistake the compiler reports anyway).
 */
function resolveImport(from: string, spec: string): string | null {
  const base = resolve(from, '..', spec);
  const candidates = [base.replace(/\.js$/, '.ts'), `${base}.ts`, join(base, 'index.ts')];
  for (const c of candidates) if (fileSet.has(c)) return c;
  return null;
}

/**
 * Every import between source files, type-only and dynamic `import()` included: a circle of
 * type imports still ties the files' meanings together, and a dynamic one still loads both.
 */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files) {
    // Comments that start a line are left out (a doc comment's `{@link import('./x.js')}` loads
    // nothing); a comment opener inside a string, such as a glob, does not start a line.
    const text = readFileSync(file, 'utf8').replace(/^\s*\/\*[\s\S]*?\*\/|^\s*\/\/.*$/gm, '');
    const to = new Set<string>();
    for (const m of [...text.matchAll(IMPORT_RE), ...text.matchAll(SIDE_EFFECT_RE)]) {
      const target = resolveImport(file, m[1] ?? m[2]);
      if (target) to.add(target);
    }
    graph.set(file, [...to].sort());
  }
  return graph;
}

/**
 * The strongly connected components of more than one file (or a file that imports itself),
 * by Tarjan's algorithm, iterative so a long import chain cannot overflow the stack.
 */
function importCircles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const circles: string[][] = [];
  for (const root of graph.keys()) {
    if (index.has(root)) continue;
    const work: { v: string; i: number }[] = [{ v: root, i: 0 }];
    index.set(root, next);
    low.set(root, next++);
    stack.push(root);
    onStack.add(root);
    while (work.length > 0) {
      const top = work[work.length - 1];
      const edges = graph.get(top.v) ?? [];
      if (top.i < edges.length) {
        const w = edges[top.i++];
        if (!index.has(w)) {
          index.set(w, next);
          low.set(w, next++);
          stack.push(w);
          onStack.add(w);
          work.push({ v: w, i: 0 });
        } else if (onStack.has(w)) low.set(top.v, Math.min(low.get(top.v)!, index.get(w)!));
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1].v;
        low.set(parent, Math.min(low.get(parent)!, low.get(top.v)!));
      }
      if (low.get(top.v) === index.get(top.v)) {
        const scc: string[] = [];
        let w: string;
        do {
          w = stack.pop()!;
          onStack.delete(w);
          scc.push(w);
        } while (w !== top.v);
        if (scc.length > 1 || edges.includes(top.v)) circles.push(scc.sort());
      }
    }
  }
  return circles;
}

test('the import graph finds circles', () => {
  const circles = importCircles(
    new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a', 'd']],
      ['d', []],
      ['e', ['e']],
      ['f', ['d']],
    ]),
  );
  assert.deepEqual(circles.map((c) => c.join(' ')).sort(), ['a b c', 'e']);
});

// Known circles, being broken in parallel branches: sim/settings ↔ sim/server/options ↔
// sim/engine/config, sim/server/requests ↔ structured, pipeline/measure ↔ settings, exp/kinds.
test('no import circles between source files', () => {
  const circles = importCircles(importGraph()).map((c) => c.map((f) => relative(SRC, f)).join(' ↔ '));
  assert.deepEqual(circles, [], `import circles:\n${circles.join('\n')}`);
});

/**
 * The folders that may speak HTTP: the client (the load and an engine's plain API,
 * `client/engine-api`), monitoring (the scrape), the gate (the malformed requests it sends on
 * purpose) and the simulator's server. Everywhere else asks the client.
 */
const HTTP_FOLDERS = ['client/', 'monitor/', 'gate/', 'sim/server/'];
/** Files that still send HTTP themselves, each with the reason. */
const HTTP_EXCEPTIONS: Record<string, string> = {};
const SENDERS = new Set(['request', 'fetch', 'stream', 'Agent', 'Pool', 'Client', 'Dispatcher']);

/** What in `text` (comments removed) sends HTTP: value imports of undici or node:http(s) requests, global fetch. */
function httpSends(text: string): string[] {
  const found: string[] = [];
  const IMPORT = /import\s+(type\s+)?([^'";]*?)\s*from\s*['"](undici|node:https?|https?)['"]/g;
  for (const m of text.matchAll(IMPORT)) {
    if (m[1]) continue; // import type { … }
    const from = m[3];
    const names = (m[2].match(/\{([^}]*)\}/)?.[1] ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s && !s.startsWith('type '))
      .map((s) => s.split(/\s+as\s+/)[0]);
    const whole = m[2]
      .replace(/\{[^}]*\}/, '')
      .replace(/,/g, ' ')
      .trim(); // default or namespace import
    const bad =
      from === 'undici'
        ? names.filter((n) => SENDERS.has(n))
        : names.filter((n) => n === 'request' || n === 'get');
    if (whole) bad.push(whole);
    for (const n of bad) found.push(`imports ${n} from ${from}`);
  }
  if (/import\(\s*['"](undici|node:https?)['"]\s*\)/.test(text))
    found.push('imports undici or node:http(s) dynamically');
  if (/(?<![\w.$])fetch\s*\(/.test(text)) found.push('calls fetch(');
  return found;
}

test('only the client, monitoring, the gate and the simulator server send HTTP', () => {
  const bad: string[] = [];
  for (const file of files) {
    const rel = relative(SRC, file);
    if (HTTP_FOLDERS.some((f) => rel.startsWith(f)) || HTTP_EXCEPTIONS[rel]) continue;
    const text = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
    for (const what of httpSends(text)) bad.push(`${rel} ${what} (ask client/engine-api)`);
  }
  assert.deepEqual(bad, []);
});

test('the HTTP rule sees what it forbids', () => {
  assert.deepEqual(httpSends("import { type Dispatcher, request } from 'undici';"), [
    'imports request from undici',
  ]);
  assert.deepEqual(httpSends("import type { Dispatcher } from 'undici';"), []);
  assert.deepEqual(httpSends("import { Agent as A } from 'undici';"), ['imports Agent from undici']);
  assert.deepEqual(httpSends("import { createServer } from 'node:http';"), []);
  assert.deepEqual(httpSends("import { request as r } from 'node:https';"), [
    'imports request from node:https',
  ]);
  assert.deepEqual(httpSends("import * as http from 'node:http';"), ['imports * as http from node:http']);
  assert.deepEqual(httpSends('const r = await fetch(url);'), ['calls fetch(']);
  assert.deepEqual(httpSends('const r = await store.fetch(url); prefetch(x);'), []);
});

/**
 * The declaration tables, which are long because they list: each entry is one declaration, and
 * cutting the list in two would give a setting or a row two homes.
 */
const DECLARATION_TABLES: Record<string, string> = {
  'config/run-settings.ts': 'every run setting, declared once',
  'sim/settings.ts': 'every simulator setting, declared once',
  'report/source-map.ts': 'where each engine keeps the evidence of each rule and kind',
};
const MAX_LINES = 600;

test(`no source file is over ${MAX_LINES} lines but the declaration tables`, () => {
  const long: string[] = [];
  for (const file of files) {
    const rel = relative(SRC, file);
    const lines = readFileSync(file, 'utf8').split('\n').length - 1;
    if (lines > MAX_LINES && !(rel in DECLARATION_TABLES) && !rel.startsWith('i18n/'))
      long.push(`${rel}: ${lines} lines (split it along a concern docs/architecture.md names)`);
  }
  assert.deepEqual(long, []);
});

test('no two exported types share a name', () => {
  const where = new Map<string, string[]>();
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(
      /^export\s+(?:declare\s+)?(?:interface|type|class|enum)\s+([A-Za-z0-9_]+)/gm,
    ))
      where.set(m[1], [...(where.get(m[1]) ?? []), relative(SRC, file)]);
  }
  const twice = [...where].filter(([, at]) => at.length > 1).map(([name, at]) => `${name}: ${at.join(', ')}`);
  assert.deepEqual(twice, [], 'a name means one thing: rename one of them for what it holds');
});
