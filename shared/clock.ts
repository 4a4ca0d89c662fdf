/** One place for "now", so that every timestamp is UTC ISO 8601 with milliseconds. */
export const nowIso = (at: Date = new Date()): string => at.toISOString();

export const epochSeconds = (at: Date = new Date()): number => Math.floor(at.getTime() / 1000);

export const addSeconds = (at: Date, seconds: number): Date => new Date(at.getTime() + seconds * 1000);

export const DAY_SECONDS = 86_400;
