/** Prose of the "gate" section (keys `gate.*`). */
export const gate = {} as const;
