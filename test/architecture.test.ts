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
 *  - 2 report: renders runs and report.json; it never measures, so it sees only ground and
 *    analysis;
 *  - 2–4 what a request carries and when: tokenizer, workload, schedule; and config, the
 *    declarations of a run's settings, which read a length as workload does (tier 4: the
 *    lowest above workload, so the pipeline, the experiments and cli can all import it);
 *  - 5 the targets: the HTTP client and the simulated engine, which know nothing of each
 *    other or of the load generator;
 *  - 6 runner (the load loops), 7 its observers (monitoring, the store);
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
  config: 4,
  client: 5,
  sim: 5,
  runner: 6,
  monitor: 7,
  store: 7,
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
