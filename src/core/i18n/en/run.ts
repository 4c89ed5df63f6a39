/** Prose of the "run" section (keys `run.*`). */
export const run = {} as const;
