/** Prose of the "dashboard" section (keys `dashboard.*`). */
export const dashboard = {} as const;
