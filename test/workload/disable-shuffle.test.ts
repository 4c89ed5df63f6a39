/**
 * `--disable-shuffle` / `workload.disable_shuffle` (vLLM's `vllm bench serve --disable-shuffle`):
 * a ShareGPT file's prompts are taken in the file's order instead of shuffled with the seed, and
 * both surfaces hand the setting to the workload builder.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseCommon } from '../../src/cli/options.js';
import { workloadOptionValues } from '../../src/config/run-settings.js';
import type { Problem } from '../../src/core/errors.js';
import { workloadSchema } from '../../src/exp/fields.js';
import { workloadOptions } from '../../src/pipeline/load-plan.js';
import { buildWorkload } from '../../src/workload/index.js';

const PROMPTS = [
  'first: how does a scheduler decide which request runs next',
  'second: why does a long prompt slow down the other requests',
  'third: what is the difference between paging and prefix caching',
  'fourth: when does a larger batch hurt the tail latency of a server',
  'fifth: why is the first audio of a voice reply not the text TTFT',
  'sixth: what does speculative decoding roll back when a draft is wrong',
];
const REPLY = 'a reply long enough to be kept by the four-token rule of vLLM sampling';
const SHAREGPT = JSON.stringify(
  PROMPTS.map((p) => ({
    conversations: [
      { from: 'human', value: p },
      { from: 'gpt', value: REPLY },
    ],
  })),
);
const readText = async () => SHAREGPT;

async function promptsOf(disableShuffle: boolean | undefined): Promise<string[]> {
  const w = await buildWorkload(
    {
      seed: 1,
      count: PROMPTS.length,
      dataset: { kind: 'sharegpt', path: 's.json' },
      model: 'llama-3.1-8b',
      ...(disableShuffle === undefined ? {} : { disableShuffle }),
    },
    { readText },
  );
  return w.specs.map((s) => s.prompt as string);
}

describe('disable_shuffle', () => {
  it("takes ShareGPT prompts in the file's order; without it they are shuffled with the seed", async () => {
    assert.deepEqual(await promptsOf(true), PROMPTS);
    const shuffled = await promptsOf(undefined);
    assert.deepEqual([...shuffled].sort(), [...PROMPTS].sort());
    assert.notDeepEqual(shuffled, PROMPTS);
    assert.deepEqual(await promptsOf(false), shuffled);
  });

  it('reaches the workload builder from the command line and from an experiment file', () => {
    const problems: Problem[] = [];
    const common = parseCommon({ dataset: ['sharegpt', 's.json'], disableShuffle: true }, problems);
    assert.deepEqual(problems, []);
    assert.equal(common.workload.disableShuffle, true);
    assert.equal(workloadOptions(common, 'm').disableShuffle, true);
    assert.equal(workloadOptions(parseCommon({}, []), 'm').disableShuffle, false);

    const file = workloadSchema.parse({ disable_shuffle: true });
    assert.deepEqual(workloadOptionValues(file, 'file'), { disableShuffle: true });
    assert.deepEqual(workloadOptionValues(workloadSchema.parse({}), 'file'), { disableShuffle: false });
  });
});
