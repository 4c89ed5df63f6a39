/**
 * @module test/exp-kinds/helpers
 * Shared bits of the experiment-kind tests: parse an experiment from YAML text, run it with a
 * collecting logger, and open a throwaway store.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { KINDS } from '../../src/exp/kinds/index.js';
import { type ExperimentResult, runExperiment } from '../../src/exp/run-experiment.js';
import { applyKindDefaults, type ExperimentFile, parseExperiment } from '../../src/exp/schema.js';
import { openStore, type Store } from '../../src/store/index.js';

/** Parse YAML through the real validator. */
export function exp(yaml: string): ExperimentFile {
  return parseExperiment(yaml, 'test.yaml');
}

/** Build an experiment from an object, skipping the cross-field rules (for what they refuse on purpose). */
export function rawExp(obj: unknown): ExperimentFile {
  const kinds = Object.values(KINDS).map((k) => k.file) as unknown as [z.ZodObject, ...z.ZodObject[]];
  return applyKindDefaults(z.discriminatedUnion('kind', kinds).parse(obj) as ExperimentFile);
}

/** Run with a collecting logger; returns the result and the log lines. */
export async function run(
  e: ExperimentFile,
  store?: Store,
  env: Record<string, string> = {},
): Promise<{ result: ExperimentResult; log: string[] }> {
  const log: string[] = [];
  const result = await runExperiment(e, { env, log: (l) => log.push(l), version: 'test', store });
  return { result, log };
}

/** A fresh store in a temp dir; `cleanup` closes and deletes it. */
export function tempStore(): { store: Store; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'servelab-exp-'));
  const store = openStore(join(dir, 'servelab.db'));
  return {
    store,
    cleanup: () => {
      store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
