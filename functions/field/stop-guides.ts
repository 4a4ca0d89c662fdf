import { findStopGuide, GUIDE_ENTITY, toStopGuide, type StopGuideRecord } from '../invoicing/guides/guard.ts';
import { findIntent } from '../invoicing/intent-record.ts';
import type { StopDispatchGuide } from './dispatch-guide-schemas.ts';

/** What the stop shows of its guide item (issue 17), with the route's plate to write on it (decisions 16). */
export const stopGuideView = (guide: StopGuideRecord | undefined): StopDispatchGuide =>
  guide ? { intentId: guide.intentId, number: guide.number, localState: guide.localState, plate: guide.plate } : null;

/**
 * A stop showing another route's guide (a re-planned order's live guide, decisions 16) holds a
 * copy that no move of that guide rewrites: its state and folio are read from the intent. Rare
 * (only re-planned orders whose guide had reached the provider), so the route's reads stay one
 * Query otherwise.
 */
export const refreshAdopted = async (tenantId: string, guides: Map<string, StopGuideRecord>): Promise<Map<string, StopGuideRecord>> => {
  const adopted = [...guides.values()].filter((g) => g.adopted);
  if (adopted.length === 0) return guides;
  // One GetItem each (rare, a few at most): the tracking projection reads routes too, and is granted no BatchGetItem.
  const intents = await Promise.all(adopted.map((g) => findIntent(tenantId, g.intentId)));
  for (const [i, guide] of adopted.entries()) {
    const intent = intents[i];
    if (intent) guides.set(guide.stopId, { ...guide, localState: intent.localState, number: intent.documentNumber ?? null });
  }
  return guides;
};

/** The route partition's guide items, by stop: read by the route's one Query with its stops. */
export const guidesByStop = (items: Record<string, unknown>[]): Map<string, StopGuideRecord> =>
  new Map(items.filter((item) => item.entity === GUIDE_ENTITY).map((item) => [item.stopId as string, toStopGuide(item)]));

export const readStopGuide = async (tenantId: string, routeId: string, stopId: string): Promise<StopDispatchGuide> => {
  const guide = await findStopGuide(tenantId, routeId, stopId);
  return stopGuideView(guide ? (await refreshAdopted(tenantId, new Map([[stopId, guide]]))).get(stopId) : undefined);
};
