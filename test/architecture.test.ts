/**
 * Layout rules from docs/architecture.md, enforced: imports run one way along the data flow
 * (workload → schedule → runner → client → record → report), `analysis/` is pure metric math
 * over records that every stage may use, `sim/` is an engine that knows nothing of the load
 * generator, `cli/` is imported by nobody, and the clock and randomness are only touched in
 * `src/runtime/`.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { test } from 'node:test';

const SRC = resolve(import.meta.dirname, '..', 'src');

/** The metric math: pure functions over records, the one place every metric is computed. */
const METRICS = 'analysis';
/** All that {@link METRICS} stands on: errors, clock types and the record it reads. */
const METRICS_GROUND = ['runtime', 'core', 'record'];

/** What the two orchestrating layers (experiments and the measurement pipeline) may use. */
const ORCHESTRATION = [
  'runtime',
  'core',
  'tokenizer',
  'workload',
  'schedule',
  'runner',
  'client',
  'record',
  'report',
  'store',
  'monitor',
];

/**
 * Which top-level folders each folder may import from, besides itself and {@link METRICS}:
 * every folder may import the metric math, so that no stage recomputes a metric of its own.
 */
const ALLOWED: Record<string, string[]> = {
  runtime: ['core'],
  core: ['runtime'],
  tokenizer: ['runtime', 'core'],
  workload: ['runtime', 'core', 'tokenizer'],
  schedule: ['runtime', 'core', 'workload'],
  record: ['runtime', 'core'],
  client: ['runtime', 'core', 'record', 'workload', 'tokenizer'],
  runner: ['runtime', 'core', 'record', 'workload', 'schedule', 'client'],
  [METRICS]: METRICS_GROUND,
  report: ['runtime', 'core', 'record', 'monitor'],
  sim: ['runtime', 'core', 'tokenizer', 'record', 'workload'],
  store: ['runtime', 'core', 'record', 'runner'],
  monitor: ['runtime', 'core', 'record', 'runner'],
  exp: [...ORCHESTRATION, 'sim', 'pipeline'],
  pipeline: ORCHESTRATION,
  server: ['runtime', 'core', 'record', 'report', 'store', 'monitor', 'runner'],
  cli: ['*'],
};

/** Whether a file in folder `from` may import from folder `to` (two different folders). */
function mayImport(from: string, to: string): boolean {
  if (to === 'cli') return false;
  // The metric math depends on nothing but its ground, so any stage can use it.
  if (from === METRICS) return METRICS_GROUND.includes(to);
  if (to === METRICS) return true;
  const allowed = ALLOWED[from];
  return allowed.includes('*') || allowed.includes(to);
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
    if (!ALLOWED[stage]) {
      bad.push(`${rel}: folder "${stage}" has no rule in test/architecture.test.ts`);
      continue;
    }
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(IMPORT_RE)) {
      const target = relative(SRC, resolve(file, '..', m[1] ?? m[2]));
      const to = target.includes('/') ? target.split('/')[0] : '';
      if (to === stage || to === '') continue;
      if (!mayImport(stage, to)) bad.push(`${rel} imports ${target}`);
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
