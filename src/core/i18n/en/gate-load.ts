/** Prose of the "gate-load" section (keys `gate-load.*`). */
export const gateLoad = {} as const;
