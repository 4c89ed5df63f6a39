/** Prose of the "exp" section (keys `exp.*`). */
export const exp = {} as const;
