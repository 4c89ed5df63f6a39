/**
 * @module test/report/helpers
 * Sample runs for the report tests, made on the simulator in virtual time.
 */
import type { LoadedRun } from '../../src/analysis/loaded-run.js';
import { many, simRun } from '../diagnose/helpers.js';

/** A two-level sweep with a cold start in the first run and an experiment record on each. */
export function sampleRuns(): LoadedRun[] {
  return [1, 4].map((c) =>
    simRun({
      label: `c${c} <&>`,
      engine: { model: 'qwen3-0.6b', gpu: 'h100', coldStartMs: c === 1 ? 2000 : 0 },
      shapes: many(24, { input: 256, output: 32 }),
      load: { kind: 'closed', concurrency: c },
      level: { concurrency: c },
      config: { ignore_eos: true, load: { concurrency: c } },
      record: {
        engine: {
          value: { name: 'servelab-sim', version: '0.1.0', server_header: null },
          source: 'probed',
          missing: ['server_header'],
        },
        image: { value: { digest: null }, source: 'missing', missing: ['digest'] },
      },
    }),
  );
}
