import { ROUTE_SEQUENCE_ENTITY } from '../field/route-sequence.ts';
import { GUIDE_ENTITY } from '../invoicing/guides/guard.ts';

/**
 * The item kinds whose changes move a tracking view: the projection reads these and nothing else,
 * and the cloud's stream filter (infra/constructs/tracking-projection.ts) lets exactly these
 * through, so a kind the local stack projects can never be filtered out before it in the cloud.
 */
export const TRACKED_ENTITIES: readonly string[] = ['order', 'route', 'stop', 'route-position', ROUTE_SEQUENCE_ENTITY, 'plan-route-claim', GUIDE_ENTITY];
