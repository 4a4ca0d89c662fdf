import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { logger } from '../../shared/logger.ts';
import { ROUTE_SEQUENCE_ENTITY } from '../field/route-sequence.ts';
import { GUIDE_ENTITY } from '../invoicing/guides/guard.ts';
import { guideChangeShows } from './guide-views.ts';
import { projectOrder, projectRoute } from './projection.ts';
import { TRACKED_ENTITIES } from './tracked-entities.ts';
import { mergeScopes, positionScope, routeChangeScope, stopChangeScope, stopsScope, type RouteScope } from './route-scope.ts';

const watched = new Set(TRACKED_ENTITIES);

/**
 * An order change that only took an assignment's hold off or put a cancel's mark on
 * (functions/orders/assignment-holds.ts, route-release.ts): no view moves.
 */
const onlyMarksChanged = (oldImage: Record<string, unknown>, newImage: Record<string, unknown>): boolean => {
  const rest = ({ assigning: _hold, releasing: _mark, releasingChange: _change, ...others }: Record<string, unknown>) => JSON.stringify(Object.entries(others).sort());
  return rest(oldImage) === rest(newImage);
};

/**
 * The tracking projection: a table stream consumer that rebuilds the views touched by a batch
 * from the items as they are now (not from the images), so that redelivered or reordered records
 * converge on the same view. Reading a view is then one GetItem. The images only say which views
 * a change can move (route-scope.ts): every record that moves a view rebuilds it.
 */
export const handler = async (event: DynamoDBStreamEvent): Promise<void> => {
  // The time before any read: a view built from older reads never replaces a newer one.
  const builtAt = new Date().toISOString();
  const orders = new Map<string, { tenantId: string; orderId: string }>();
  const routes = new Map<string, { tenantId: string; routeId: string; scope: RouteScope }>();
  const touch = (tenantId: string, routeId: string, scope: RouteScope | null) => {
    if (!scope) return;
    const key = `${tenantId}/${routeId}`;
    routes.set(key, { tenantId, routeId, scope: mergeScopes(routes.get(key)?.scope, scope) });
  };
  for (const record of event.Records) {
    const image = record.dynamodb?.NewImage ?? record.dynamodb?.OldImage;
    if (!image) continue;
    const item = unmarshall(image as Record<string, AttributeValue>);
    // Most records are other items (the views this consumer writes among them): only the watched
    // ones have both images read.
    if (!watched.has(item.entity as string)) continue;
    const [oldImage, newImage] = [record.dynamodb?.OldImage, record.dynamodb?.NewImage].map((i) => (i ? unmarshall(i as Record<string, AttributeValue>) : undefined));
    const tenantId = item.tenantId as string;
    if (item.entity === GUIDE_ENTITY) {
      if (guideChangeShows(oldImage, newImage)) touch(tenantId, item.routeId as string, stopsScope([item.stopId as string]));
      continue;
    }
    if (item.entity === 'plan-route-claim') {
      // A plan applied in place (decisions 17) stands once its claim reads assigned: every view of
      // the route moves (new stops, new places, new planned windows), and the removed orders read pending.
      if (newImage?.changesRoute && newImage.state === 'assigned' && oldImage?.state !== 'assigned') {
        touch(tenantId, item.routeId as string, 'all');
        for (const orderId of (newImage.removedOrderIds as string[] | undefined) ?? []) orders.set(`${tenantId}/${orderId}`, { tenantId, orderId });
      }
      continue;
    }
    if (item.entity === 'order') {
      // Moved by an assignment that has not finished: it reads as before until the route exists,
      // and the route's own item then rebuilds its views.
      if (oldImage && newImage && (newImage.assigning !== undefined || onlyMarksChanged(oldImage, newImage))) continue;
      orders.set(`${tenantId}/${item.orderId}`, { tenantId, orderId: item.orderId as string });
    } else if (item.entity === 'route') touch(tenantId, item.routeId as string, routeChangeScope(oldImage, newImage));
    else if (item.entity === 'stop') touch(tenantId, item.routeId as string, stopChangeScope(oldImage, newImage));
    // A resequence (decisions 17) moves any open stop: each one's stops before and travel.
    else if (item.entity === ROUTE_SEQUENCE_ENTITY) touch(tenantId, item.routeId as string, 'all');
    else touch(tenantId, item.routeId as string, positionScope());
  }
  for (const { tenantId, orderId } of orders.values()) {
    const { routeId, stopId } = await projectOrder(tenantId, orderId, builtAt);
    // On a route the order's view is its stop's (its order's while a cancel releases it).
    if (routeId) touch(tenantId, routeId, stopId ? stopsScope([stopId]) : 'all');
  }
  for (const { tenantId, routeId, scope } of routes.values()) await projectRoute(tenantId, routeId, builtAt, scope);
  if (orders.size + routes.size > 0) logger.debug('tracking views rebuilt', { orders: orders.size, routes: routes.size });
};
