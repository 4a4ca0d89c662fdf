import { DAY_SECONDS, epochSeconds } from '../../../shared/clock.ts';

/** decisions 18: a preview is kept this long after it ends (ready or failed), then reads 404. */
export const PREVIEW_RETENTION_DAYS = 30;

/** The TTL (`expiresAt`, epoch seconds) of a preview that ends at `endedAt`. */
export const previewExpiresAt = (endedAt: Date): number => epochSeconds(endedAt) + PREVIEW_RETENTION_DAYS * DAY_SECONDS;

/** DynamoDB's TTL deletes within days, not at the second: a read checks the time itself. */
export const previewExpired = (item: Record<string, unknown>, now: Date = new Date()): boolean =>
  typeof item.expiresAt === 'number' && item.expiresAt <= epochSeconds(now);

/** The same check as a filter of a query (`:now` is epochSeconds of the read). */
export const NOT_EXPIRED_FILTER = 'attribute_not_exists(expiresAt) OR expiresAt > :now';
