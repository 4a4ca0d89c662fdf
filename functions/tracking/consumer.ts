import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { logger } from '../../shared/logger.ts';
import { GUIDE_ENTITY } from '../invoicing/guides/guard.ts';
import { guideChangeShows } from './guide-views.ts';
import { projectOrder, projectRoute } from './projection.ts';

/** The item kinds whose changes move a tracking view. */
const watched = new Set(['order', 'route', 'stop', 'route-position']);

/**
 * An order change that only took an assignment's hold off or put a cancel's mark on
 * (functions/orders/assignment-holds.ts, route-release.ts): no view moves.
 */
const onlyMarksChanged = (oldImage: Record<string, unknown>, newImage: Record<string, unknown>): boolean => {
  const rest = ({ assigning: _hold, releasing: _mark, ...others }: Record<string, unknown>) => JSON.stringify(Object.entries(others).sort());
  return rest(oldImage) === rest(newImage);
};

/**
 * The tracking projection: a table stream consumer that rebuilds the views touched by a batch
 * from the items as they are now (not from the images), so that redelivered or reordered records
 * converge on the same view. Reading a view is then one GetItem.
 */
export const handler = async (event: DynamoDBStreamEvent): Promise<void> => {
  // The time before any read: a view built from older reads never replaces a newer one.
  const builtAt = new Date().toISOString();
  const orders = new Map<string, { tenantId: string; orderId: string }>();
  const routes = new Map<string, { tenantId: string; routeId: string }>();
  // Routes where only a guide's folio appeared: just those stops' views are rebuilt.
  const guideStops = new Map<string, { tenantId: string; routeId: string; stopIds: Set<string> }>();
  for (const record of event.Records) {
    const image = record.dynamodb?.NewImage ?? record.dynamodb?.OldImage;
    if (!image) continue;
    const item = unmarshall(image as Record<string, AttributeValue>);
    if (item.entity === GUIDE_ENTITY) {
      const images = [record.dynamodb?.OldImage, record.dynamodb?.NewImage].map((i) => (i ? unmarshall(i as Record<string, AttributeValue>) : undefined));
      if (!guideChangeShows(images[0], images[1])) continue;
      const key = `${item.tenantId}/${item.routeId}`;
      const entry = guideStops.get(key) ?? { tenantId: item.tenantId as string, routeId: item.routeId as string, stopIds: new Set<string>() };
      entry.stopIds.add(item.stopId as string);
      guideStops.set(key, entry);
      continue;
    }
    if (!watched.has(item.entity as string)) continue;
    if (item.entity === 'order' && record.dynamodb?.OldImage && record.dynamodb?.NewImage) {
      const images = [record.dynamodb.OldImage, record.dynamodb.NewImage].map((i) => unmarshall(i as Record<string, AttributeValue>));
      // Moved by an assignment that has not finished: it reads as before until the route exists,
      // and the route's own item then rebuilds its views.
      if (images[1].assigning !== undefined || onlyMarksChanged(images[0], images[1])) continue;
    }
    const tenantId = item.tenantId as string;
    if (item.entity === 'order') orders.set(`${tenantId}/${item.orderId}`, { tenantId, orderId: item.orderId as string });
    else routes.set(`${tenantId}/${item.routeId}`, { tenantId, routeId: item.routeId as string });
  }
  for (const { tenantId, orderId } of orders.values()) {
    const { routeId } = await projectOrder(tenantId, orderId, builtAt);
    if (routeId) routes.set(`${tenantId}/${routeId}`, { tenantId, routeId });
  }
  for (const { tenantId, routeId } of routes.values()) await projectRoute(tenantId, routeId, builtAt);
  for (const [key, { tenantId, routeId, stopIds }] of guideStops) if (!routes.has(key)) await projectRoute(tenantId, routeId, builtAt, stopIds);
  if (orders.size + routes.size > 0) logger.debug('tracking views rebuilt', { orders: orders.size, routes: routes.size });
};
