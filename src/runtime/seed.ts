/**
 * @module runtime/seed
 * A fresh seed for a run or an experiment that was given none. Drawn once at the top (the
 * command line, the experiment file's parse, the programmatic defaults), then printed and
 * stored with what it seeded, so `--seed N` (`seed: N` in a file) reproduces it exactly. Every
 * stochastic choice below that is an {@link Rng} of this seed; this is the one source of fresh
 * randomness for workloads and arrivals.
 */
import { randomInt } from 'node:crypto';

/** Where fresh seeds come from: injected by callers that need to know the seed they get. */
export type SeedSource = () => number;

/** A fresh seed in [0, 2^31): a plain non-negative integer, easy to read back and type. */
export const drawSeed: SeedSource = () => randomInt(0, 2 ** 31);
