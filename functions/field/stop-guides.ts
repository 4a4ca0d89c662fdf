import { findStopGuide, GUIDE_ENTITY, toStopGuide, type StopGuideRecord } from '../invoicing/guides/guard.ts';
import type { StopDispatchGuide } from './dispatch-guide-schemas.ts';

/** What the stop shows of its guide item (issue 17). */
export const stopGuideView = (guide: StopGuideRecord | undefined): StopDispatchGuide =>
  guide ? { intentId: guide.intentId, number: guide.number, localState: guide.localState } : null;

/** The route partition's guide items, by stop: read by the route's one Query with its stops. */
export const guidesByStop = (items: Record<string, unknown>[]): Map<string, StopGuideRecord> =>
  new Map(items.filter((item) => item.entity === GUIDE_ENTITY).map((item) => [item.stopId as string, toStopGuide(item)]));

export const readStopGuide = async (tenantId: string, routeId: string, stopId: string): Promise<StopDispatchGuide> => stopGuideView(await findStopGuide(tenantId, routeId, stopId));
