/**
 * The simulator flags of `servelab sim` and `servelab plan` come from the settings schema
 * (names, help, defaults, ranges), and each seed has one name: `--sim-seed` seeds the
 * simulator, `--seed` the workload (`sim --seed` is a deprecated alias, with a warning).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { simFlags } from '../../src/sim/settings.js';
import '../helpers/node-warnings.js';

/** Text with its runs of white space as one space, as `--help` wraps and pads it. */
const flat = (s: string) => s.replace(/\s+/g, ' ');

async function help(cmd: string): Promise<string> {
  const io = memoryIo();
  assert.equal(await main([cmd, '--help'], io), 0);
  return flat(io.out());
}

describe('simulator flags', () => {
  for (const cmd of ['sim', 'plan'] as const)
    it(`${cmd} --help lists every ${cmd} setting with its description and default`, async () => {
      const text = await help(cmd);
      for (const f of simFlags(cmd))
        assert.ok(text.includes(flat(`${f.flags} ${f.help}`)), `${cmd}: ${f.flags}`);
    });

  it('plan has no HTTP server flags, and its --seed is the workload seed', async () => {
    const text = await help('plan');
    for (const flag of ['--port', '--host', '--time-scale', '--max-waiting', '--faults'])
      assert.ok(!text.includes(flag), flag);
    assert.match(text, /--seed <n> seed for arrivals, lengths and prompts/);
    assert.match(text, /--sim-seed <n> Seed of the simulated output lengths/);
  });

  it('reports every bad flag at once, with the range from the schema', async () => {
    const io = memoryIo();
    assert.equal(
      await main(['sim', '--tp', '9', '--max-waiting', '0', '--block-size', '10', '--port', '0'], io),
      1,
    );
    const err = io.err();
    assert.match(err, /--tp: expected at most 8, got 9\n\s+hint: an integer from 1 to 8/);
    assert.match(err, /--max-waiting: expected a positive integer, got 0/);
    assert.match(err, /--block-size: expected one of 1, 8, 16, 32, 64, 128, got 10/);
  });

  it('sim --seed is read as --sim-seed with a deprecation warning; both at once is refused', async () => {
    const both = memoryIo();
    assert.equal(await main(['sim', '--seed', '1', '--sim-seed', '2', '--port', '0'], both), 1);
    assert.match(both.err(), /--seed: is the deprecated name of --sim-seed/);

    const io = memoryIo();
    const done = main(['sim', '--model', 'qwen3-0.6b', '--seed', '3', '--port', '0'], io);
    for (let i = 0; i < 400 && !/listening on/.test(io.out()); i++)
      await new Promise((r) => setTimeout(r, 25));
    assert.match(io.out(), /listening on http:\/\/127\.0\.0\.1:\d+/, io.err());
    io.interrupt();
    assert.equal(await done, 130);
    assert.match(
      io.err(),
      /warning: `servelab sim --seed` is deprecated: the simulator's seed is --sim-seed/,
    );
  });

  it('a bad --faults entry with --fault-rate is reported as the bad entry, not as a missing list', async () => {
    const io = memoryIo();
    assert.equal(await main(['sim', '--faults', 'stall:abc', '--fault-rate', '0.1'], io), 1);
    assert.match(io.err(), /--faults: "stall:abc" needs a positive pause in ms/);
    assert.doesNotMatch(io.err(), /needs a list of faults/);
    const none = memoryIo();
    assert.equal(await main(['sim', '--fault-rate', '0.1'], none), 1);
    assert.match(none.err(), /--fault-rate: a fault rate needs a list of faults/);
  });
});
