/** Prose of the "diagnose" section (keys `diagnose.*`). */
export const diagnose = {} as const;
