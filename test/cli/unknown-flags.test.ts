/**
 * Every unknown flag at once, each with the nearest known one, before commander parses.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { nearestFlag } from '../../src/cli/unknown-flags.js';
import '../helpers/node-warnings.js';

describe('unknown flags', () => {
  it('nearestFlag suggests a likely typo and nothing for a stranger', () => {
    const known = ['--concurrency', '--requests', '--num-prompts', '--rate'];
    assert.equal(nearestFlag('--conccurency', known), '--concurrency');
    assert.equal(nearestFlag('--num-promts', known), '--num-prompts');
    assert.equal(nearestFlag('--dataset-name', known), null);
  });

  it('lists every unknown flag of the command at once, exit 1, no stack', async () => {
    const io = memoryIo({});
    const code = await main(
      [
        'run',
        '--url',
        'http://127.0.0.1:1/v1',
        '--num-promts',
        '5',
        '--tensor-parallel-size',
        '2',
        '--rqeuests',
        '3',
      ],
      io,
    );
    assert.equal(code, 1);
    const err = io.err();
    assert.match(err, /unknown options/);
    assert.match(err, /--num-promts \(did you mean --num-prompts\?\)/);
    assert.match(err, /- --tensor-parallel-size\n/);
    assert.match(err, /--rqeuests \(did you mean --requests\?\)/);
    assert.match(err, /see 'servelab run --help'/);
    assert.doesNotMatch(err, /at .*\.ts:\d+/);
  });

  it('values of known flags are not flags, and nested commands are followed', async () => {
    // `--prompt` takes the next token as its value, even when it starts with dashes: no
    // unknown-flag error (the run then fails on the unreachable URL instead).
    const io = memoryIo({});
    const code = await main(['run', '--url', 'http://127.0.0.1:1/v1', '--prompt', '--hi', '--no-db'], io);
    assert.doesNotMatch(io.err(), /unknown option/);
    assert.equal(code, 3);
    const io2 = memoryIo({});
    assert.equal(await main(['exp', 'run', '--bogus', 'x.yaml'], io2), 1);
    assert.match(io2.err(), /see 'servelab exp run --help'/);
  });
});
