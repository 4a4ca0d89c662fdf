import { DAY_SECONDS } from '../../shared/clock.ts';

/** The public view's phases as the projection stores them; the read turns them into spec states. */
export type Phase = 'pending' | 'moving' | 'delivered' | 'failed' | 'cancelled';

/** Decisions 7: 30 s while moving, 120 s while pending, an hour once closed. */
const REFRESH_SECONDS: Record<'moving' | 'pending' | 'closed', number> = { moving: 30, pending: 120, closed: 3600 };

/** The longest refreshSeconds: CloudFront may keep a tracking answer no longer than this. */
export const MAX_REFRESH_SECONDS = REFRESH_SECONDS.closed;

/** The link answers 404 from this long after closedAt. */
export const LINK_LIFETIME_AFTER_CLOSE_SECONDS = 7 * DAY_SECONDS;

/** A position older than this is not shown. */
export const POSITION_MAX_AGE_SECONDS = 10 * 60;

/**
 * TRACKING_REFRESH_SCALE shrinks every refresh interval (tests watch the page reload itself);
 * 1 in any real deployment.
 */
export const refreshSeconds = (kind: keyof typeof REFRESH_SECONDS): number => {
  const scale = Number(process.env.TRACKING_REFRESH_SCALE ?? '1');
  const factor = Number.isFinite(scale) && scale > 0 ? scale : 1;
  return Math.max(1, Math.round(REFRESH_SECONDS[kind] * factor));
};
