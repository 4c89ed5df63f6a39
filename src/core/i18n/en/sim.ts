/** Prose of the "sim" section (keys `sim.*`). */
export const sim = {} as const;
