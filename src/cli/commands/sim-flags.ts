/**
 * @module cli/commands/sim-flags
 * The simulator flags of `servelab sim` and `servelab plan`: declared from the settings schema
 * (`sim/settings`: each flag's name, help and default come from there) and read back into the
 * simulator's options, every problem at once.
 */
import { resolve } from 'node:path';
import type { Command } from '@commander-js/extra-typings';
import { type Problem, UsageError } from '../../core/errors.js';
import type { T } from '../../i18n/index.js';
import type { SimServerOptions } from '../../sim/server/index.js';
import { parseSimSettings, simFlags, toSimServerOptions } from '../../sim/settings.js';

/** Commander's values of the simulator flags, by attribute (`maxNumSeqs`, `simSeed`). */
export type RawSimFlags = Record<string, unknown>;

/** Declare the simulator flags of `surface` on `cmd`. */
export function addSimOptions<C extends Command<[], Record<string, unknown>>>(
  cmd: C,
  surface: 'sim' | 'plan',
): C {
  for (const f of simFlags(surface)) cmd.option(f.flags, f.help);
  return cmd;
}

/**
 * The simulator flags of `surface` as the simulator's options (the catalogue file loaded);
 * problems are added to `problems`, and the options are complete once there are none. A
 * relative `--catalogue` is read from `cwd` (the command's working directory, which in-process
 * callers set through `Io`), not from the process's.
 */
export function parseSimFlags(
  raw: RawSimFlags,
  problems: Problem[],
  surface: 'sim' | 'plan',
  cwd?: string,
  t?: T,
): SimServerOptions & { model: string; seed: number } {
  // File flags are read from `cwd`.
  const flags: RawSimFlags = { ...raw };
  if (cwd !== undefined)
    for (const k of ['catalogue', 'profile'] as const)
      if (typeof raw[k] === 'string') flags[k] = resolve(cwd, raw[k] as string);
  const { values, problems: found } = parseSimSettings(flags, surface, t);
  problems.push(...found);
  let opts: SimServerOptions;
  try {
    opts = toSimServerOptions(values);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    problems.push(...err.problems);
    opts = toSimServerOptions({
      ...values,
      catalogue: undefined,
      model_config: undefined,
      profile: undefined,
    });
  }
  return opts as SimServerOptions & { model: string; seed: number };
}
