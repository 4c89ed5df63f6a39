/** Prose of the "report" section (keys `report.*`). */
export const report = {} as const;
