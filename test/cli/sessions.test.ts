/**
 * @module test/cli/sessions
 * Sessions through the CLI: `plan --users` in virtual time (the sessions block in report.json
 * and in the table: TTFT and the cache hit rate rising with the turn, the intended sharing next
 * to the server's hit rate), `plan --find-max-users`, a real-time `run --users` against the
 * simulator over loopback HTTP (records with session_id and turn), and the flag problems.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { ExitCode } from '../../src/core/errors.js';
import type { RequestRecord } from '../../src/record/types.js';
import { type SimServer, startSimServer } from '../../src/sim/server/index.js';
import '../helpers/node-warnings.js';

const dir = mkdtempSync(join(tmpdir(), 'servelab-sessions-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const PLAN = ['plan', '--model', 'llama-3.1-8b', '--gpu', 'h100', '--no-db'];

describe('plan --users', () => {
  it('reports per-turn TTFT and cache hit rates that rise as the history grows', async () => {
    const io = memoryIo({}, dir);
    const args = [
      ...PLAN,
      '--users',
      '8',
      '--turns',
      '5',
      '--think-time',
      'exp:2',
      '--ramp-up',
      '4',
      '--input-len',
      '400',
      '--output-len',
      '100',
      '--no-enable-prefix-caching',
      '--json',
    ];
    assert.equal(await main(args, io), 0, io.err());
    const report = JSON.parse(io.out());
    const s = report.sessions;
    assert.equal(s.sessions.planned, 8);
    assert.equal(s.turns.planned, 40);
    assert.equal(s.turns.succeeded, 40);
    assert.equal(report.summary.requests.measured, 40);
    const p50 = s.per_turn.map((t: { ttft_ms: { p50: number } }) => t.ttft_ms.p50);
    // Without a prefix cache every turn prefills its whole history: TTFT grows with the turn.
    for (let k = 1; k < p50.length; k++) assert.ok(p50[k] > p50[k - 1], `ttft p50 by turn ${p50}`);
    assert.equal(s.cache_hit_rate, 0);

    const cached = memoryIo({}, dir);
    assert.equal(
      await main(
        args.filter((a) => a !== '--no-enable-prefix-caching'),
        cached,
      ),
      0,
      cached.err(),
    );
    const c = JSON.parse(cached.out()).sessions;
    const hit = c.per_turn.map((t: { cache_hit_rate: number }) => t.cache_hit_rate);
    for (let k = 1; k < hit.length; k++) assert.ok(hit[k] > hit[k - 1], `hit rate by turn ${hit}`);
    assert.ok(c.intended_sharing > 0.5 && c.intended_sharing < 1);
    // The client's cached/prompt and the server's counters describe the same cache.
    assert.ok(
      Math.abs(c.cache_hit_rate - c.server_prefix_hit_rate) < 0.05,
      `${c.cache_hit_rate} vs ${c.server_prefix_hit_rate}`,
    );
    // The caching run's late turns are faster than the uncached run's.
    assert.ok(c.per_turn[4].ttft_ms.p50 < s.per_turn[4].ttft_ms.p50);
    assert.equal(report.config.load.mode, 'sessions');
    assert.equal(report.config.workload.sessions.users, 8);
  });

  it('prints the sessions block, with documents shared across sessions', async () => {
    const io = memoryIo({}, dir);
    const args = [
      ...PLAN,
      '--users',
      '6',
      '--turns',
      '3',
      '--think-time',
      '1',
      '--input-len',
      '32',
      '--output-len',
      '16',
    ];
    assert.equal(
      await main([...args, '--documents', '2', '--doc-len', '1000', '--doc-popularity', 'zipf:1'], io),
      0,
      io.err(),
    );
    const out = io.out();
    assert.match(out, /^sessions$/m);
    assert.match(out, /turns per user-minute/);
    assert.match(out, /per turn \(ms/);
    assert.match(out, /of it, shared documents\s+\d+\.\d%/);
    assert.match(out, /server's prefix-cache hit rate \(\/metrics\)\s+\d+\.\d%/);
  });

  it('--find-max-users answers how many users fit under the SLO', async () => {
    const io = memoryIo({}, dir);
    const args = [
      ...PLAN,
      '--users',
      '64',
      '--turns',
      '3',
      '--think-time',
      'exp:1',
      '--input-len',
      '2000',
      '--output-len',
      '200',
      '--slo',
      'ttft_ms=150',
      '--find-max-users',
      '--json',
    ];
    assert.equal(await main(args, io), 0, io.err());
    const report = JSON.parse(io.out());
    const search = report.config.find_max_users;
    assert.ok(search.users >= 1 && search.users < 64, JSON.stringify(search.probes));
    const ok = search.probes.filter((p: { ok: boolean }) => p.ok).map((p: { users: number }) => p.users);
    const bad = search.probes.filter((p: { ok: boolean }) => !p.ok).map((p: { users: number }) => p.users);
    assert.equal(Math.max(...ok), search.users);
    assert.equal(Math.min(...bad), search.users + 1);
    assert.equal(report.sessions.sessions.planned, search.users);
    assert.match(
      io.err() + io.out(),
      new RegExp(`most users at think time exp:1 s .*: ${search.users} \\(searched up to 64\\)`),
    );
  });

  it('refuses what does not combine with sessions, with hints', async () => {
    for (const [args, re] of [
      [['--users', '4', '--concurrency', '2'], /does not combine with --concurrency/],
      [['--users', '4', '--requests', '9'], /does not combine with --requests/],
      [['--turns', '3'], /--users is missing/],
      [['--users', '4', '--ramp-up', '2', '--session-rate', '1'], /both say how sessions start/],
      [['--users', '4', '--turns', '1.5'], /a count must be a whole number/],
      [['--users', '4', '--documents', '2'], /shared documents need a length/],
      [['--users', '4', '--warmup', '2'], /no warm-up/],
      [['--users', '4', '--find-max-users'], /SLO/],
      [['--rate', '2', '--slo', 'ttft_ms=100', '--find-max-users'], /searches over the users/],
    ] as const) {
      const io = memoryIo({}, dir);
      const code = await main([...PLAN, ...args], io);
      assert.equal(code, ExitCode.usage, `${args.join(' ')}: ${io.err()}`);
      assert.match(io.err(), re, args.join(' '));
      assert.match(io.err(), /hint:/);
    }
  });
});

describe('run --users against the simulator in real time', () => {
  let sim: SimServer;
  before(async () => {
    sim = await startSimServer({ model: 'llama-3.1-8b', gpu: 'h100', timeScale: 20 }, { log: () => {} });
  });
  after(() => sim.close());

  it('writes records with session_id and turn, and refuses --shard', async () => {
    const out = join(dir, 'run');
    const io = memoryIo({}, dir);
    const args = [
      'run',
      '--url',
      `${sim.url}/v1`,
      '--no-db',
      '--users',
      '3',
      '--turns',
      '2',
      '--think-time',
      '0.05',
    ];
    const code = await main(
      [...args, '--input-len', '24', '--output-len', '8', '--out', out, '--session-header', 'x-affinity'],
      io,
    );
    assert.equal(code, 0, io.err());
    const recs = readFileSync(join(out, 'requests.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as RequestRecord);
    assert.equal(recs.length, 6);
    assert.deepEqual(recs.map((r) => `${r.session_id}/${r.turn}`).sort(), [
      's0/0',
      's0/1',
      's1/0',
      's1/1',
      's2/0',
      's2/1',
    ]);
    const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8'));
    assert.equal(report.sessions.turns.succeeded, 6);
    assert.equal(report.config.target.session_header, 'x-affinity');
    const refused = memoryIo({}, dir);
    assert.equal(await main([...args, '--shard', '0/2', '--start-in', '5'], refused), ExitCode.usage);
    assert.match(refused.err(), /cannot be sharded/);
  });
});
