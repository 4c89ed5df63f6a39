/**
 * A run's settings are declared once (`src/config/run-settings.ts`): every key says its flag,
 * its experiment-file path and its default; `run --help` lists every flag; docs/cli.md's table
 * is the declaration's; the command line and an experiment file read each key alike (default,
 * type); and a problem names the setting in the spelling of where it was written.
 */
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { parseCommon } from '../../src/cli/options.js';
import type { RawCommon } from '../../src/cli/raw-flags.js';
import {
  aliasFlags,
  fileDefaultOf,
  numberRange,
  RUN_SETTING_KEYS,
  type RunSettingKey,
  runFlag,
  runSetting,
  runSettingsTable,
  spellKey,
} from '../../src/config/run-settings.js';
import type { Problem } from '../../src/core/errors.js';
import { UsageError } from '../../src/core/errors.js';
import { generationSchema, loadSchema, SHARED_FIELDS, workloadSchema } from '../../src/exp/fields.js';
import { parseExperiment } from '../../src/exp/schema.js';
import { workloadOptions } from '../../src/pipeline/load-plan.js';
import { type CommonSettings, commonSettings } from '../../src/pipeline/settings.js';
import { assertGeneratedSection } from '../helpers/generated-doc.js';
import '../helpers/node-warnings.js';

const DOC = resolve(import.meta.dirname, '..', '..', 'docs', 'cli.md');

/** A value at a dotted path. */
const at = (o: unknown, path: string): unknown =>
  path
    .split('.')
    .reduce<unknown>(
      (v, k) => (v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined),
      o,
    );
/** Unset is unset, whether a surface says null or leaves it out. */
const unset = (v: unknown) => (v === undefined ? null : v);

/** The experiment file's value of a key when the file (or its section) does not write it. */
function emptyFileValue(key: RunSettingKey, given: Record<string, unknown> = {}): unknown {
  const path = runSetting(key).file as string;
  const [head, ...rest] = path.split('.');
  if (!rest.length)
    return (SHARED_FIELDS as Record<string, { parse(v: unknown): unknown }>)[head].parse(undefined);
  const schema = { load: loadSchema, workload: workloadSchema, generation: generationSchema }[head];
  assert.ok(schema, `${key}: ${path} is in a section the declarations make`);
  return at(schema.parse(given[head] ?? {}), rest.join('.'));
}

const cli = (raw: RawCommon, draw?: () => number) => {
  const problems: Problem[] = [];
  const settings = parseCommon(raw, problems, [], undefined, draw);
  assert.deepEqual(problems, []);
  return settings;
};

/** The lengths `run` hands the workload builder. */
const syntheticLengths = (c: CommonSettings) => {
  const o = workloadOptions(c, 'm');
  return { input: o.inputLen, output: o.outputLen };
};

/** What a key needs beside it to mean something, on each surface. */
const CONTEXT: Partial<Record<RunSettingKey, { flags: RawCommon; file: Record<string, unknown> }>> = {
  num_prefix_groups: {
    flags: { sharedPrefixLen: '8' },
    file: { workload: { shared_prefix: { tokens: 8 } } },
  },
  stage_pause: {
    flags: { stages: '2x5' },
    file: { load: { stages: '2x5' } },
  },
  prompts_per_group: {
    flags: { sharedPrefixLen: '8' },
    file: { workload: { shared_prefix: { tokens: 8 } } },
  },
  doc_popularity: {
    flags: { users: '2', documents: '2', docLen: '64' },
    file: { workload: { documents: { count: 2, tokens: 64 } } },
  },
};

/** A session setting means something with users only. */
const contextOf = (key: RunSettingKey) =>
  CONTEXT[key] ??
  (runSetting(key).needs === 'users' ? { flags: { users: '2' }, file: { load: { users: [2] } } } : undefined);

describe('run settings', () => {
  it('every key has a flag, an experiment-file path (null: declared absent) and a default', () => {
    for (const key of RUN_SETTING_KEYS) {
      const d = runSetting(key);
      assert.match(key, /^[a-z][a-z0-9_]*$/, `${key} is snake_case`);
      assert.ok(d.flag === null || /^[a-z][a-z0-9-]*$/.test(d.flag), `${key}: flag ${d.flag}`);
      assert.ok(
        d.file === null || /^[a-z_.]+$|^targets\.<name>\.[a-z_]+$/.test(d.file),
        `${key}: file path ${d.file}`,
      );
      assert.ok(d.flag !== null || d.file !== null, `${key} is written somewhere`);
      assert.ok('default' in d, `${key} declares a default (null: unset)`);
      assert.ok(d.description.endsWith('.') && d.description.length > 10, `${key} has a sentence`);
    }
    const flags = RUN_SETTING_KEYS.flatMap((k) => (runSetting(k).flag ? [runSetting(k).flag] : []));
    assert.equal(new Set(flags).size, flags.length, 'one key per flag');
    const files = RUN_SETTING_KEYS.flatMap((k) => (runSetting(k).file ? [runSetting(k).file] : []));
    assert.equal(new Set(files).size, files.length, 'one key per file path');
  });

  it('`run --help` lists every flag of the declarations, and their vLLM/SGLang names', async () => {
    const io = memoryIo({});
    await main(['run', '--help'], io);
    const help = io.out();
    for (const key of RUN_SETTING_KEYS) {
      if (runSetting(key).flag === null) continue;
      const { flags } = runFlag(key);
      assert.ok(help.includes(flags), `run --help lists ${flags}`);
    }
    for (const a of aliasFlags()) assert.ok(help.includes(`--${a.flag} `), `run --help lists --${a.flag}`);
  });

  it('docs/cli.md holds the table the declarations generate', () => {
    assertGeneratedSection(DOC, 'run-settings', runSettingsTable(), import.meta.filename);
  });

  it('the experiment file and the command line agree on every default', () => {
    for (const key of RUN_SETTING_KEYS) {
      const d = runSetting(key);
      assert.ok(!('fileDefault' in d), `${key}: one default for both surfaces`);
      if (d.file === null || d.field === undefined || d.fileRequired) continue;
      const ctx = contextOf(key);
      if (d.fresh) {
        // Drawn fresh on both surfaces: the injected source's on the command line, and a new
        // one each time a file that leaves it out is read.
        assert.equal(
          at(
            cli(ctx?.flags ?? {}, () => 7),
            d.field,
          ),
          7,
          `${key}: the flags draw it`,
        );
        const a = emptyFileValue(key, ctx?.file);
        const b = emptyFileValue(key, ctx?.file);
        assert.ok(Number.isInteger(a) && Number.isInteger(b), `${key}: a file draws it`);
        assert.notEqual(a, b, `${key}: each file read draws its own`);
        continue;
      }
      const fromFlags = unset(at(cli(ctx?.flags ?? {}), d.field));
      const fromFile = unset(emptyFileValue(key, ctx?.file));
      const fileDefault = unset(fileDefaultOf(key) ?? (d.list ? d.default : undefined));
      if (d.defaultText === undefined) assert.deepEqual(fromFlags, d.default, `${key}: the flags' default`);
      if (!d.list) assert.deepEqual(fromFile, fileDefault, `${key}: the file's default`);
      // A file keeps what it writes (a rule reads whether it was), and is read with the default.
      if (d.fileKeepsWritten) assert.equal(fromFile, null, `${key}: a file keeps what it writes`);
      else if (d.defaultText === undefined)
        assert.deepEqual(fromFile, fromFlags, `${key}: one default, ${String(fromFlags)}`);
    }
    // The programmatic defaults (`commonSettings`) are the command line's, the seed given.
    assert.deepEqual(
      commonSettings({ load: { seed: 7 } }),
      cli({}, () => 7),
    );
    // Synthetic prompts: one length on both surfaces; a prompt source brings its own.
    assert.deepEqual(syntheticLengths(cli({ requests: '4' })), { input: '1024', output: '128' });
    assert.deepEqual(syntheticLengths(cli({ requests: '4', prompt: 'hi' })), {
      input: undefined,
      output: undefined,
    });
  });

  it('the experiment file and the command line read every number alike, in the same range', () => {
    for (const key of RUN_SETTING_KEYS) {
      const d = runSetting(key);
      const range = numberRange(key);
      if (!range || d.file === null || d.field === undefined || d.fileRequired) continue;
      const v = range.int ? Math.max(2, range.min ?? 0) : range.max !== undefined ? 0.5 : 2.5;
      const ctx = contextOf(key);
      const flags = { ...ctx?.flags, [runFlag(key).attribute]: String(v) } as RawCommon;
      // vLLM's reading: --max-concurrency without a rate is a closed loop; give the rate.
      if (key === 'max_concurrency') Object.assign(flags, { rate: '1' });
      const path = (d.file as string).split('.');
      const file: Record<string, unknown> = structuredClone(ctx?.file ?? {});
      let o = file;
      for (const p of path.slice(0, -1)) {
        o[p] ??= {};
        o = o[p] as Record<string, unknown>;
      }
      o[path[path.length - 1]] = d.list ? [v] : v;
      const fromFile =
        path.length === 1 ? v : at({ [path[0]]: emptyFileValueOf(path[0], file) }, d.file as string);
      assert.deepEqual(
        at(cli(flags), d.field),
        d.list && d.field === 'output.thresholds' ? [v] : v,
        `${key} flag`,
      );
      assert.deepEqual(d.list ? (fromFile as unknown[])[0] : fromFile, v, `${key} file`);
      // Just outside the range: refused on both surfaces.
      const bad = range.min !== undefined ? range.min - 1 : range.gt !== undefined ? range.gt : null;
      if (bad === null) continue;
      const problems: Problem[] = [];
      parseCommon({ ...ctx?.flags, [runFlag(key).attribute]: String(bad) } as RawCommon, problems);
      assert.ok(
        problems.some((p) => p.path === spellKey(key, 'flag')),
        `${key}: --${d.flag} ${bad} is refused`,
      );
      o[path[path.length - 1]] = d.list ? [bad] : bad;
      if (path.length > 1) assert.throws(() => emptyFileValueOf(path[0], file), `${key}: ${d.file} ${bad}`);
    }
  });

  it('a problem names the setting as its surface writes it', async () => {
    const io = memoryIo({});
    assert.equal(await main(['plan', '--rate', '-3', '--prompt', 'hi', '--no-db'], io), 1);
    assert.match(io.err(), /--rate: must be greater than 0, got -3/);
    const spec = (load: string) =>
      `kind: sweep\nname: x\ntargets:\n  a:\n    sim: {model: qwen3-0.6b, gpu: h100}\nload: ${load}\n`;
    let problems: Problem[] = [];
    try {
      parseExperiment(spec('{rates: [-3]}'), 'x.yaml');
    } catch (e) {
      assert.ok(e instanceof UsageError);
      problems = e.problems;
    }
    assert.ok(
      problems.some((p) => p.path === 'x.yaml: load.rates[0]'),
      JSON.stringify(problems),
    );
    assert.ok(!problems.some((p) => /--rate/.test(`${p.path} ${p.message} ${p.hint}`)));
    // A rule between settings names them too: the file's sessions settings without users.
    try {
      parseExperiment(spec('{turns: 3, ramp_up_s: 1}'), 'x.yaml');
    } catch (e) {
      assert.ok(e instanceof UsageError);
      problems = e.problems;
    }
    const users = problems.find((p) => p.path === 'x.yaml: load.users');
    assert.match(users?.message ?? '', /turns, ramp_up_s describe sessions, and load\.users is missing/);
    assert.ok(!problems.some((p) => /--users/.test(`${p.message} ${p.hint}`)), JSON.stringify(problems));
    const io2 = memoryIo({});
    await main(['plan', '--turns', '3', '--prompt', 'hi', '--no-db'], io2);
    assert.match(io2.err(), /--turns: --turns describe sessions, and --users is missing/);
  });
});

/** A section of a file, parsed. */
function emptyFileValueOf(section: string, file: Record<string, unknown>): unknown {
  const schema = { load: loadSchema, workload: workloadSchema, generation: generationSchema }[section];
  assert.ok(schema, section);
  return schema.parse(file[section] ?? {});
}
