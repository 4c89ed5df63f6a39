/**
 * @module core/fields
 * Zod field builders with plain-language errors (`expected a positive integer`), shared by the
 * experiment file format (`exp/`) and the simulator settings (`sim/settings`), so that the
 * same kind of value gets the same message wherever it is written.
 */
import { z } from 'zod';

/** A zod error parameter from a message. */
export const err = (message: string) => ({ error: message });

export const POS_INT = 'expected a positive integer';
export const NONNEG_INT = 'expected an integer ≥ 0';
export const POS_NUM = 'expected a positive number';
export const FRACTION = 'expected a number between 0 and 1';

export const posInt = () => z.number(err(POS_INT)).int(err(POS_INT)).positive(err(POS_INT));
export const nonNegInt = () => z.number(err(NONNEG_INT)).int(err(NONNEG_INT)).min(0, err(NONNEG_INT));
export const posNum = () => z.number(err(POS_NUM)).positive(err(POS_NUM));
export const nonNegNum = () => z.number(err('expected a number ≥ 0')).min(0, err('expected a number ≥ 0'));
export const fraction = () => z.number(err(FRACTION)).min(0, err(FRACTION)).max(1, err(FRACTION));
export const str = () => z.string(err('expected a string'));
export const bool = () => z.boolean(err('expected true or false'));
export const oneOf = <T extends readonly [string, ...string[]]>(vals: T) =>
  z.enum(vals, err(`expected one of ${vals.join(', ')}`));

/** A list, or a single value standing for a one-element list. */
export const listOf = <T extends z.ZodType>(item: T) =>
  z.preprocess(
    (v) => (v === undefined || v === null || Array.isArray(v) ? v : [v]),
    z.array(item, err('expected a list')),
  );

/**
 * A section that may be written empty: in YAML, `generation:` followed only by commented-out
 * lines is null, which means "all defaults" here, not a type error.
 */
export const section = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => (v === null ? undefined : v), schema);
