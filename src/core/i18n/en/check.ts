/** Prose of the "check" section (keys `check.*`). */
export const check = {} as const;
