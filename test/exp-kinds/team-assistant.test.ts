import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { judgeAttainment, wilsonInterval } from '../../src/analysis/binomial.js';
import { searchMaxLevel } from '../../src/analysis/capacity.js';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { shareCell, shareText } from '../../src/exp/kinds/answer-kit.js';
import { levelsAround, replicationSeed } from '../../src/exp/kinds/team-assistant.js';
import {
  largestLine,
  type TeamResult,
  type TeamTargetResult,
} from '../../src/exp/kinds/team-assistant-report.js';
import { formatExperimentResult } from '../../src/exp/run-experiment.js';
import { experimentTemplate } from '../../src/exp/templates.js';
import { translator } from '../../src/i18n/index.js';
import { escapeHtml } from '../../src/report/comparison-table.js';
import { exp, run, tempStore } from './helpers.js';
import '../helpers/node-warnings.js';

const EN = translator('en');

/** The shipped template with its load and workload made small (few users, short documents). */
function small(opts: {
  users: string;
  slo: string;
  bisect?: boolean;
  timeScale?: number;
  minTurns?: number;
}): string {
  return experimentTemplate('team-assistant')
    .replace(/users: \[4, 8, 16, 32, 48, 64\]/, `users: ${opts.users}`)
    .replace(/turns: uniform:3-6/, 'turns: 2')
    .replace(/ramp_up_s: 60/, 'ramp_up_s: 2')
    .replace(/input_len: 100/, 'input_len: 32')
    .replace(/output_len: 200/, 'output_len: 24')
    .replace(/tokens: uniform:2000-8000/, 'tokens: uniform:200-400')
    .replace(/\n {2}time_scale: 1 /, `\n  time_scale: ${opts.timeScale ?? 10} `)
    .replace(/min_turns: 300/, `min_turns: ${opts.minTurns ?? 1}`)
    .replace(/bisect: true/, `bisect: ${opts.bisect ?? true}`)
    .replace(/slo:\n {2}ttft_ms: 2000\n {2}tpot_ms: 100/, `slo:\n${opts.slo}`);
}

const target = (r: TeamResult): TeamTargetResult => {
  assert.equal(r.targets.length, 1);
  return r.targets[0];
};

test('the template asks the course question: 32 colleagues, 3-6 turns, 10-60 s thinking, shared documents, TTFT and TPOT SLO, virtual time', () => {
  const e = exp(experimentTemplate('team-assistant'));
  assert.equal(e.kind, 'team-assistant');
  if (e.kind !== 'team-assistant') return;
  assert.equal(e.team?.colleagues, 32);
  assert.deepEqual(e.load.users, levelsAround(32));
  assert.deepEqual(levelsAround(32), [4, 8, 16, 32, 48, 64]);
  assert.equal(e.load.turns, 'uniform:3-6');
  assert.equal(e.load.think_time_s, 'uniform:10-60');
  assert.equal(e.workload.documents?.count, 3);
  assert.equal(e.workload.documents?.tokens, 'uniform:2000-8000');
  assert.ok(e.slo?.ttft_ms && e.slo?.tpot_ms);
  assert.equal(e.targets.sim.sim?.clock, 'virtual');
});

test('a file without an SLO is refused with a hint', () => {
  const text = experimentTemplate('team-assistant').replace(
    /slo:\n {2}ttft_ms: 2000\n {2}tpot_ms: 100\n/,
    '',
  );
  assert.throws(() => exp(text), /SLO/);
});

test('virtual time: the largest team agrees with the per-level SLO results, and the wait and the cache are reported', async () => {
  // A TTFT limit a few users meet and many do not, whatever the exact numbers.
  const { result } = await run(
    exp(small({ users: '[1, 2, 4, 8, 16]', slo: '  ttft_ms: 150\n  tpot_ms: 1000' })),
  );
  const r = result.results as TeamResult;
  const t = target(r);
  assert.equal(t.undetermined, null);
  assert.ok(t.largest !== null);
  const byUsers = new Map(t.levels.map((l) => [l.users, l]));
  // Every measured level at or below the answer met the SLO, every one above it missed it.
  for (const l of t.levels) assert.equal(l.meets, l.users <= (t.largest as number), `users=${l.users}`);
  if (t.bounded && t.largest > 0)
    assert.equal(byUsers.get(t.largest + 1)?.meets, false, 'bisected to the edge');
  // A level's verdict is its attainment against the file's.
  for (const l of t.levels) assert.equal(l.meets, (l.attainment ?? 0) >= r.attainment);
  const text = formatExperimentResult(result, EN);
  assert.ok(text.includes(largestLine(t, EN)));
  if (t.bounded) assert.match(text, new RegExp(`largest team meeting the SLO: ${t.largest} users`));
  // The wait split: the simulator sends its timings, so queueing + prefill is the user's wait to first content.
  for (const l of t.levels) {
    assert.equal(l.wait.from, 'engine');
    assert.ok(l.wait.queue_ms !== null && l.wait.prefill_ms !== null && l.wait.ttft_ms_mean !== null);
    assert.ok(l.wait.queue_ms + l.wait.prefill_ms >= l.wait.ttft_ms_mean - 1e-6);
    assert.ok(l.wait.dominant !== null);
    // Shared documents: the workload intends sharing, and the simulator's cache serves some of it.
    assert.ok((l.cache.intended ?? 0) > 0);
    assert.ok(l.cache.server_hit_rate !== null);
  }
  assert.match(text, /where the wait is at \d+ users/);
  assert.match(text, /prefix cache at \d+ users: server hit rate/);
  assert.match(text, /think times and session starts were divided by time_scale 10/);
  // The zh-CN rendering carries the same answer.
  const zh = formatExperimentResult(result, translator('zh-CN'));
  assert.ok(zh.includes(largestLine(t, translator('zh-CN'))));
});

test('an SLO every level meets is reported as unbounded, not as a maximum', async () => {
  const { result } = await run(
    exp(small({ users: '[1, 2, 3]', slo: '  ttft_ms: 1000000\n  tpot_ms: 1000000', bisect: false })),
  );
  const t = target(result.results as TeamResult);
  assert.equal(t.bounded, false);
  assert.equal(t.largest, 3);
  assert.ok(t.levels.every((l) => l.meets));
  const text = formatExperimentResult(result, EN);
  assert.match(text, /largest team meeting the SLO: at least 3 users/);
  assert.doesNotMatch(text, /largest team meeting the SLO: 3 users/);
});

test('the level search: given levels, bisection, no bisection, and an undecided probe', async () => {
  const meets = (n: number) => n <= 21;
  const probe = async (n: number) => ({ ok: meets(n), attainment: null });
  const a = await searchMaxLevel(probe, { levels: [4, 8, 16, 32, 48, 64], max: 64 });
  assert.equal(a.level, 21);
  assert.equal(a.bounded, true);
  assert.deepEqual(
    a.probes.map((p) => p.level),
    [4, 8, 16, 32, 24, 20, 22, 21],
  );
  const b = await searchMaxLevel(probe, { levels: [4, 8, 16, 32, 48, 64], max: 64, bisect: false });
  assert.equal(b.level, 16);
  const c = await searchMaxLevel(probe, { levels: [4, 8, 16], max: 16 });
  assert.deepEqual([c.level, c.bounded], [16, false]);
  const d = await searchMaxLevel(
    async (n) => ({ ok: true, attainment: null, undecided: n === 8 ? 'not valid' : null }),
    { levels: [4, 8, 16], max: 16 },
  );
  assert.equal(d.undetermined, 'not valid');
  assert.deepEqual(
    d.probes.map((p) => p.level),
    [4, 8],
  );
  const u = largestLine(
    {
      target: 't',
      levels: [],
      largest: null,
      bounded: false,
      undetermined: 'the run at 8 users is not valid (lateness)',
      deciding: null,
      colleagues_fit: null,
    },
    EN,
  );
  assert.equal(u, 'largest team meeting the SLO: undetermined (the run at 8 users is not valid (lateness))');
});

test('exp run, then report --md: the write-up carries the team section with the same answer, in en and zh-CN', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'servelab-team-'));
  try {
    writeFileSync(join(dir, 't.yaml'), small({ users: '[1, 2, 4]', slo: '  ttft_ms: 150\n  tpot_ms: 1000' }));
    const io = memoryIo({}, dir);
    assert.equal(await main(['exp', 'run', 't.yaml', '--json'], io), 0, io.err().slice(-2000));
    const result = JSON.parse(io.out());
    const t = target(result.results as TeamResult);
    for (const [lang, tr] of [
      ['en', EN],
      ['zh-CN', translator('zh-CN')],
    ] as const) {
      const rep = memoryIo({}, dir);
      assert.equal(
        await main(['report', result.experiment_id, '--md', `w-${lang}.md`, '--lang', lang], rep),
        0,
        rep.err(),
      );
      const md = readFileSync(join(dir, `w-${lang}.md`), 'utf8');
      const s7 = md.slice(md.indexOf('## 7.'));
      assert.ok(s7.includes(tr('team.writeup.title')), `${lang}: the section is in §7`);
      assert.ok(s7.includes(largestLine(t, tr)), `${lang}: the same answer`);
      // The HTML report states the answer at its head, before the results table.
      const page = memoryIo({}, dir);
      assert.equal(
        await main(['report', result.experiment_id, '--html', `r-${lang}.html`, '--lang', lang], page),
        0,
        page.err(),
      );
      const html = readFileSync(join(dir, `r-${lang}.html`), 'utf8');
      const at = html.indexOf('id="conclusion"');
      assert.ok(
        at > 0 && at < html.indexOf(tr('report.h.results')),
        `${lang}: a conclusion before the results`,
      );
      assert.ok(html.includes(escapeHtml(largestLine(t, tr))), `${lang}: the answer in the HTML`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a level is judged with its 95% interval: meets at the target, fails when even the upper bound misses it, cannot tell between', () => {
  // [turns met, planned turns, required share, judgement]
  const table: [number, number, number, string][] = [
    [300, 300, 0.99, 'meets'],
    [297, 300, 0.99, 'meets'], // exactly 99%
    [296, 300, 0.99, 'cannot_tell'], // 98.7%, upper bound 99.5%
    [294, 300, 0.99, 'cannot_tell'], // 98.0%, upper bound 99.1%
    [292, 300, 0.99, 'fails'], // 97.3%, upper bound 98.6%
    [139, 140, 0.99, 'meets'],
    [138, 140, 0.99, 'cannot_tell'], // one turn less: no longer a failure on 140 turns
    [134, 140, 0.99, 'fails'],
    [17, 18, 0.99, 'cannot_tell'], // one miss in a 4-user run of the template
    [16, 18, 0.99, 'fails'],
    [9, 10, 0.9, 'meets'],
    [0, 10, 0.5, 'fails'],
  ];
  for (const [k, n, target, want] of table) {
    const j = judgeAttainment(k, n, target);
    assert.equal(j?.judgement, want, `${k}/${n} against ${target}`);
    // The interval is the Wilson interval, and the rule reads it as documented.
    const w = wilsonInterval(k, n);
    assert.deepEqual([j?.low, j?.high], [w?.low, w?.high]);
    assert.equal(j?.judgement === 'fails', (w?.high ?? 1) < target);
    assert.equal(j?.judgement === 'meets', k / n >= target);
  }
  assert.equal(judgeAttainment(0, 0, 0.99), null, 'no turns: no judgement');
});

test('a level with fewer planned turns than team.min_turns is replicated over new sessions until it has them', async () => {
  const { store, cleanup } = tempStore();
  try {
    // 2 turns per user: 1 user plans 2 turns a run, 2 users 4; min_turns 9 needs 5 and 3 runs.
    const { result, log } = await run(
      exp(
        small({
          users: '[1, 2]',
          slo: '  ttft_ms: 1000000\n  tpot_ms: 1000000',
          bisect: false,
          minTurns: 9,
        }),
      ),
      store,
    );
    const r = result.results as TeamResult;
    assert.equal(r.min_turns, 9);
    const t = target(r);
    const runs = store.listRuns({ experimentId: result.experiment_id as string });
    for (const [users, reps] of [
      [1, 5],
      [2, 3],
    ] as const) {
      const l = t.levels.find((x) => x.users === users);
      assert.ok(l, `level ${users}`);
      assert.equal(l.replications, reps, `users=${users}`);
      assert.equal(l.turns_planned, users * 2 * reps);
      assert.ok(l.turns_planned >= 9);
      // Every replication is its own stored run, and the level names them all.
      assert.equal(new Set(l.run_ids).size, reps);
      for (const id of l.run_ids) assert.ok(runs.some((x) => x.id === id));
      // A loose SLO: every turn met it, pooled over the replications, and the level meets it.
      assert.equal(l.turns_met, l.turns_planned);
      assert.equal(l.judgement, 'meets');
      assert.deepEqual(l.attainment_ci, wilsonInterval(l.turns_met, l.turns_planned));
    }
    // Each replication is labelled as one; the first is the level's own run.
    const labels = runs.map((x) => x.label ?? '');
    assert.ok(labels.some((x) => x.endsWith('users=1')));
    assert.ok(labels.some((x) => x.endsWith('users=1 rep=5')));
    assert.ok(
      log.some((line) => line.includes('5 runs pooled, 10 turns')),
      log.join('\n'),
    );
    // New sessions for every replication: a seed of its own, none shared between two experiment seeds.
    assert.equal(replicationSeed(1, 0), undefined);
    const seeds = [1, 2].flatMap((b) => [1, 2, 3, 4].map((k) => replicationSeed(b, k)));
    assert.equal(new Set(seeds).size, seeds.length);
    assert.ok(!seeds.includes(1) && !seeds.includes(2));
    // min_turns 1: one run per level, as before.
    const once = await run(
      exp(small({ users: '[1, 2]', slo: '  ttft_ms: 1000000\n  tpot_ms: 1000000', bisect: false })),
    );
    for (const l of target(once.result.results as TeamResult).levels) assert.equal(l.replications, 1);
  } finally {
    cleanup();
  }
});

test('a failing level’s attainment never reads as the required share; a meeting one never reads under it', () => {
  // 98.96% of turns under a 99% target: rounded it would print "99.0%", the target it fails.
  assert.equal(shareText(0.9896, 0.99), '98.9%');
  assert.equal(shareCell(0.9896, 0.99), 98.9);
  // Exactly the target (99 of 100 turns) meets it, and reads so.
  assert.equal(shareText(99 / 100, 0.99), '99.0%');
  assert.equal(shareText(139 / 140, 0.99), '99.2%');
  // A target with two decimals gets them: 99.94% under 99.95% is not "99.9%" rounded up to it.
  assert.equal(shareText(0.99949, 0.9995), '99.94%');
  assert.equal(shareText(null, 0.99), '-');
  for (let met = 0; met <= 300; met++) {
    const v = met / 300;
    assert.equal((shareCell(v, 0.99) as number) >= 99, v >= 0.99, `${met}/300`);
  }
});
