/** Prose of the "writeup" section (keys `writeup.*`). */
export const writeup = {} as const;
