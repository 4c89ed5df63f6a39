/**
 * Experiment files: every template validates and documents its fields; an invalid file yields
 * every problem at once with paths, lines and hints; kind-level rules.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { UsageError } from '../../src/core/errors.js';
import { targetGeneration } from '../../src/exp/harness/targets.js';
import { switchesBetween } from '../../src/exp/kinds/ab.js';
import { KINDS } from '../../src/exp/kinds/index.js';
import { DEFAULT_SWEEP_CONCURRENCY } from '../../src/exp/kinds/sweep.js';
import {
  EXPERIMENT_KINDS,
  KIND_SECTIONS,
  loadExperimentFile,
  parseExperiment,
  parseLengthDist,
  readExperimentFile,
  simSchema,
  targetSchema,
  withSeedWritten,
} from '../../src/exp/schema.js';
import { experimentTemplate } from '../../src/exp/templates.js';

const dir = mkdtempSync(join(tmpdir(), 'servelab-exp-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function problemsOf(text: string, label = 's.yaml'): { path?: string; message: string; hint?: string }[] {
  try {
    parseExperiment(text, label);
  } catch (e) {
    assert.ok(e instanceof UsageError, `expected a UsageError, got ${String(e)}`);
    return e.problems;
  }
  assert.fail('expected the file to be refused');
}

const SIM = 'targets:\n  a:\n    sim: {model: qwen3-0.6b, gpu: h100}\n';

describe('templates', () => {
  for (const kind of EXPERIMENT_KINDS) {
    it(`${kind}: validates through loadExperimentFile, targets the simulator, documents every field`, () => {
      const text = experimentTemplate(kind);
      const path = join(dir, `${kind}.yaml`);
      writeFileSync(path, text);
      const spec = loadExperimentFile(path);
      assert.equal(spec.kind, kind);
      const targets = Object.values(spec.targets);
      assert.ok(targets.length >= 1);
      for (const t of targets) assert.ok(t.sim, 'runs as-is against the built-in simulator');
      assert.ok(spec[KIND_SECTIONS[kind]], 'the kind section is present (written or defaulted)');
      // Every field of the file format the kind can use appears in the template, set or commented.
      const sectionKeys = (s: { shape: Record<string, unknown> }) => Object.keys(s.shape);
      const own = KIND_SECTIONS[kind];
      const others = new Set<string>(Object.values(KIND_SECTIONS).filter((s) => s !== own));
      const keys = [
        ...Object.keys(KINDS[kind].schema.shape).filter((k) => !others.has(k)),
        ...sectionKeys(simSchema),
        ...sectionKeys(targetSchema),
      ];
      for (const k of keys)
        assert.match(text, new RegExp(`(^|[\\s{,#])${k}:`, 'm'), `${kind} template documents ${k}`);
      // The comments explain: more comment lines than set lines.
      const lines = text.split('\n').filter((l) => l.trim());
      assert.ok(lines.filter((l) => l.trim().startsWith('#')).length > lines.length / 2);
    });
  }

  it('refuses an unknown kind, listing the valid ones', () => {
    assert.throws(
      () => experimentTemplate('sweep'),
      (e: unknown) =>
        e instanceof UsageError && EXPERIMENT_KINDS.every((k) => (e.problems[0].hint ?? '').includes(k)),
    );
  });
});

describe('invalid files', () => {
  it('lists every problem at once, each with its path, line and hint', () => {
    const text = `kind: concurrency-sweep
name: s
targets:
  a:
    sim: {model: qwen3-0.6b, gpu: h999, tp: 0}
    api_key_env: X
  b:
    url: http://x:8000/v1
workload:
  input_len: uniform:10-5
load:
  concurrency: [1, 2, -4, 8]
  concurrncy: 3
  arrival: weird
thresholds: ["p99 ttft<"]
`;
    const problems = problemsOf(text);
    const by = (path: string) => problems.find((p) => p.path === `s.yaml: ${path}`);
    const expect: [string, RegExp, number][] = [
      ['targets.a.sim.tp', /positive integer/, 5],
      ['targets.a.sim.gpu', /unknown simulator GPU h999/, 5],
      ['targets.a.api_key_env', /url targets only/, 6],
      ['targets.b.model', /no model/, 8],
      ['workload.input_len', /invalid value 'uniform:10-5': the maximum must be ≥ the minimum/, 10],
      ['load.concurrency[2]', /expected a positive integer/, 12],
      ['load.concurrency', /levels must increase/, 12],
      ['load.concurrncy', /unknown field/, 13],
      ['load.arrival', /expected one of constant, poisson, gamma/, 14],
      ['thresholds[0]', /PATH<NUMBER/, 15],
    ];
    for (const [path, re, line] of expect) {
      const p = by(path);
      assert.ok(p, `a problem at ${path}; got ${problems.map((x) => x.path).join(' | ')}`);
      assert.match(p.message, re);
      assert.match(p.message, new RegExp(`\\(line ${line}\\)$`));
      assert.ok(p.hint && p.hint.length > 5, `${path} has a hint`);
    }
    assert.equal(problems.length, expect.length, problems.map((p) => `${p.path}: ${p.message}`).join('\n'));
    assert.match(by('load.concurrncy')?.hint ?? '', /valid fields here: .*concurrency/);
    // The error's message is the formatted list, for printing as is.
    try {
      parseExperiment(text, 's.yaml');
    } catch (e) {
      assert.match(
        (e as Error).message,
        /^s\.yaml: targets\.a\.sim\.tp: expected a positive integer \(line 5\)\n {4}hint: /,
      );
    }
  });

  it('names an unknown kind and lists the valid kinds', () => {
    const [p, ...rest] = problemsOf(`kind: sweep\nname: x\n${SIM}`);
    assert.equal(rest.length, 0);
    assert.equal(p.path, 's.yaml: kind');
    assert.match(p.message, /unknown experiment kind "sweep"/);
    for (const k of EXPERIMENT_KINDS) assert.ok(p.hint?.includes(k));
  });

  it('reports missing required fields, YAML syntax errors, empty files and unreadable paths', () => {
    const missing = problemsOf('kind: matrix\n');
    assert.deepEqual(
      missing.map((p) => [p.path, p.message.replace(/ \(line \d+\)$/, '')]),
      [
        ['s.yaml: name', 'missing required field'],
        ['s.yaml: targets', 'missing required field'],
      ],
    );
    const syntax = problemsOf('kind: ab\nname: [unclosed\n');
    assert.match(syntax[0].message, /^YAML syntax: .*\(line \d+, column \d+\)/);
    assert.match(problemsOf('# nothing\n')[0].message, /empty/);
    assert.match(problemsOf('- a\n- b\n')[0].message, /map of fields/);
    assert.throws(
      () => loadExperimentFile(join(dir, 'nope.yaml')),
      (e: unknown) => e instanceof UsageError && /no such file/.test(e.message),
    );
  });

  it('checks A/B sides, the one-switch rule and quality settings', () => {
    const base = `kind: ab\nname: x\ntargets:\n  a:\n    sim: {model: qwen3-0.6b, gpu: h100}\n  b:\n    sim: {model: qwen3-0.6b, gpu: a100-80gb, dtype: fp8}\n`;
    const p1 = problemsOf(`${base}ab: {a: a, b: c, quality: {samples: 4}}\n`);
    assert.deepEqual(
      p1.map((p) => p.path),
      ['s.yaml: ab.b', 's.yaml: ab.quality'],
    );
    const p2 = problemsOf(`${base}ab: {a: a, b: b}\n`);
    assert.equal(p2.length, 1);
    assert.match(p2[0].message, /exactly one factor; a and b differ in sim\.gpu, sim\.dtype/);
    assert.match(problemsOf(`${base.replace('kind: ab', 'kind: ab')}`)[0].message, /needs an `ab` section/);
    // Identical sides (an A/A check) and one switch are both fine.
    const aa = parseExperiment(
      `kind: ab\nname: x\ntargets:\n  a:\n    sim: {model: qwen3-0.6b, gpu: h100}\n  b:\n    sim: {model: qwen3-0.6b, gpu: h100}\nab: {a: a, b: b, quality: {expected: side-a}}\n`,
    );
    assert.equal(aa.ab?.alpha, 0.05);
    assert.deepEqual(
      switchesBetween(
        { sim: { gpu: 'h100' }, url: 'x' },
        { sim: { gpu: 'h100' }, url: 'y', generation: { thinking: true } },
      ),
      ['generation.thinking'],
    );
    // Turning fault injection on (rate and kinds together) is one switch: a garble A/B is legal.
    assert.deepEqual(
      switchesBetween({ sim: { gpu: 'h100' } }, { sim: { gpu: 'h100', fault_rate: 1, faults: ['garble'] } }),
      ['sim.faults'],
    );
  });

  it('refuses per-target generation in a baseline and sections of another kind', () => {
    const p = problemsOf(
      `kind: baseline\nname: x\ntargets:\n  a:\n    sim: {model: qwen3-0.6b, gpu: h100}\n    generation: {thinking: true}\nload: {concurrency: 4}\nmatrix: {concurrency: [1, 2]}\n`,
    );
    assert.deepEqual(
      p.map((x) => x.path),
      ['s.yaml: matrix', 's.yaml: load', 's.yaml: targets.a.generation'],
    );
  });

  it('refuses per-token objectives without a stream, and keeps whole-request ones', () => {
    const p = problemsOf(
      `kind: baseline\nname: x\n${SIM}generation: {stream: false}\nslo: {ttft_ms: 500, tpot_ms: 50, e2e_ms: 2000}\n`,
    );
    assert.deepEqual(
      p.map((x) => x.path),
      ['s.yaml: slo.ttft_ms', 's.yaml: slo.tpot_ms'],
    );
    assert.match(p[1].message, /generation.stream: false/);
    // A whole-request objective is fine without a stream.
    parseExperiment(
      `kind: baseline\nname: x\n${SIM}generation: {stream: false}\nslo: {e2e_ms: 2000}\n`,
      's.yaml',
    );
  });

  it('checks load shapes: closed vs open, requests vs duration, sweeps need two increasing levels', () => {
    const p = problemsOf(
      `kind: rate-sweep\nname: x\n${SIM}load: {rates: [4, 2], requests: 5, duration_s: 3, burstiness: 0.5}\n`,
    );
    assert.deepEqual(
      p.map((x) => x.path),
      ['s.yaml: load', 's.yaml: load.burstiness', 's.yaml: load.rates'],
    );
    const q = problemsOf(
      `kind: concurrency-sweep\nname: x\n${SIM}load: {concurrency: 4}\nsweep: {find_max_concurrency: true}\n`,
    );
    assert.deepEqual(
      q.map((x) => x.path),
      ['s.yaml: load.concurrency', 's.yaml: sweep.find_max_concurrency'],
    );
  });
});

describe('valid files', () => {
  it('fills defaults, kind sections and accepts empty (all-commented) sections', () => {
    const spec = parseExperiment(
      `kind: concurrency-sweep\nname: x\n${SIM}generation:\n  # thinking: false\nload:\n`,
    );
    assert.deepEqual(spec.load.concurrency, DEFAULT_SWEEP_CONCURRENCY);
    assert.equal(spec.sweep?.stop.error_rate, 0.05);
    assert.equal(spec.repeats, 1);
    assert.equal(spec.generation.stream, true);
    assert.equal(spec.targets.a.sim?.clock, 'real');
    const rs = parseExperiment(`kind: rate-sweep\nname: x\n${SIM}`);
    assert.ok(rs.sweep?.capacity_fractions?.length);
  });

  it('readExperimentFile returns the text as read', () => {
    const path = join(dir, 'm.yaml');
    const text = `kind: matrix\nname: m\n${SIM}load: {requests: 3}\n`;
    writeFileSync(path, text);
    const r = readExperimentFile(path);
    assert.equal(r.text, text);
    assert.equal(r.spec.matrix?.cells.length, 3);
    assert.equal(r.spec.load.requests, 3);
  });

  it("parses length distributions with run --input-len's grammar, kept in canonical form", () => {
    const lens = (input: string, output: string) =>
      parseExperiment(
        `kind: baseline\nname: x\n${SIM}workload: {input_len: ${input}, output_len: ${output}}\n`,
      ).workload;
    assert.deepEqual(lens('512', "'uniform: 256 - 1024'"), {
      ...lens('512', '1'),
      output_len: 'uniform:256-1024',
    });
    assert.equal(lens("'normal:512, 64.5'", '1').input_len, 'normal:512,64.5');
    // What run accepts, a file accepts: the forms are case-insensitive there.
    assert.equal(lens('UNIFORM:8-16', '1').input_len, 'uniform:8-16');
    for (const good of ['64', 'uniform:3-7', 'normal:2,5', 'UNIFORM:8-16'])
      assert.equal(parseLengthDist(good).ok, true, good);
    for (const bad of ['0', 'uniform:5-1', 'normal:0,1', 'gauss:1,2', '1.5', '-3', '5 12']) {
      const [p, ...rest] = problemsOf(`kind: baseline\nname: x\n${SIM}workload: {input_len: '${bad}'}\n`);
      assert.equal(rest.length, 0, bad);
      assert.equal(p.path, 's.yaml: workload.input_len', bad);
      assert.match(p.message, /^invalid value /, bad);
      assert.match(p.hint ?? '', /uniform:MIN-MAX/, bad);
      assert.equal(parseLengthDist(bad).ok, false, bad);
    }
  });
});

describe('defaults a file shares with the command line', () => {
  const file = (extra = '') => `kind: baseline\nname: d\n${SIM}${extra}`;

  it('a target overrides only the generation settings it writes', () => {
    const exp = parseExperiment(
      'kind: ab\nname: d\ngeneration: {temperature: 0.7, ignore_eos: true}\n' +
        'targets:\n  a:\n    sim: {model: qwen3-0.6b, gpu: h100}\n' +
        '  b:\n    sim: {model: qwen3-0.6b, gpu: h100}\n    generation: {thinking: false}\n' +
        'ab: {a: a, b: b}\n',
      'd.yaml',
    );
    const t = exp.targets.b;
    assert.deepEqual(t.generation, { thinking: false });
    assert.deepEqual(targetGeneration(exp, t).temperature, 0.7);
    assert.equal(targetGeneration(exp, t).ignore_eos, true);
    // Left out at the top: the declared defaults, as on the command line (greedy, no ignore_eos).
    const plain = parseExperiment(file(), 'd.yaml');
    assert.equal(plain.generation.temperature, 0);
    assert.equal(plain.generation.ignore_eos, false);
  });

  it('a file without a seed draws one when read; the stored text keeps it', () => {
    const a = parseExperiment(file(), 'd.yaml');
    const b = parseExperiment(file(), 'd.yaml');
    assert.ok(Number.isInteger(a.seed) && Number.isInteger(b.seed));
    assert.notEqual(a.seed, b.seed, 'each read of the file draws its own');
    const stored = withSeedWritten(file(), a.seed);
    assert.equal(parseExperiment(stored, 'd.yaml').seed, a.seed, 'the stored text repeats it');
    assert.equal(withSeedWritten(file('seed: 3\n'), 9), file('seed: 3\n'), 'a written seed stays');
  });
});
