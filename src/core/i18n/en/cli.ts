/** Prose of the "cli" section (keys `cli.*`). */
export const cli = {} as const;
