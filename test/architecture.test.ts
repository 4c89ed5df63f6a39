/**
 * The source layout rules, enforced: imports run one way along the data flow
 * (workload → schedule → runner → client → record → analysis → report), `sim/` is an engine
 * that knows nothing of the load generator, `cli/` is imported by nobody, and the clock and
 * randomness are only touched in `src/runtime/`.
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
 *  - 0 ground: contracts (record), errors and names (core), the clock and randomness (runtime);
 *    ground imports only ground;
 *  - 1 analysis: pure metric math over records, callable by every stage;
 *  - 2 report: renders runs and report.json; it never measures nor does I/O, so it sees only
 *    ground and analysis (and see the test below: no module that reads or writes the world);
 *  - 2–4 what a request carries and when: tokenizer, workload, schedule;
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
  runtime: 0,
  record: 0,
  analysis: 1,
  report: 2,
  tokenizer: 2,
  workload: 3,
  schedule: 4,
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
  ];
  for (const [from, to, ok] of cases) assert.equal(mayImport(from, to), ok, `${from} → ${to}`);
});
