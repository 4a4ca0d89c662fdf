import * as v from 'valibot';
import { defineOperation } from '../../shared/http/operation.ts';
import { IdParams } from '../../shared/http/schemas.ts';
import { findOrders, type OrderRecord } from '../orders/records.ts';
import { getDepot } from './depots.ts';
import { PreviewNotReadyError } from './plan-from-preview.ts';
import { renderPreviewMap, type MapMarker } from './preview-map.ts';
import type { MapLang } from './preview-map-style.ts';
import { getPreview } from './preview-record.ts';

const svg = 'image/svg+xml';

const MapQuery = v.strictObject({
  lang: v.pipe(v.optional(v.picklist(['es', 'en'], 'must be es or en'), 'es'), v.description('The language of the labels: Spanish (default) or English')),
});

/**
 * A marker's tooltip names the order by its reference (the distributor's own number, which the
 * webhooks carry too) and the planned arrival; never the recipient, the phone or the address.
 */
const marker = (order: OrderRecord | undefined, arrivalAt?: string): MapMarker | undefined =>
  order ? { latitude: order.address.latitude, longitude: order.address.longitude, detail: [order.reference, arrivalAt?.slice(11, 16)].filter(Boolean).join(' · ') } : undefined;

/**
 * The picture of a ready preview. A preview that is not ready answers 409 preview_not_ready as
 * problem+json, as a plan from it would: a client that asks too early learns why in the code it
 * already handles, instead of an image to parse.
 */
export const renderMapOfPreview = async (tenantId: string, previewId: string, lang: MapLang): Promise<string> => {
  const preview = await getPreview(tenantId, previewId);
  if (preview.state !== 'ready') throw new PreviewNotReadyError(preview.state);
  const depot = await getDepot(tenantId, preview.depotId);
  const orders = await findOrders(tenantId, [...preview.routes.flatMap((r) => r.stops.map((s) => s.orderId)), ...preview.unassigned.map((u) => u.orderId)]);
  return renderPreviewMap({
    serviceDate: preview.serviceDate,
    depot: { name: depot.name, latitude: depot.address.latitude, longitude: depot.address.longitude },
    routes: preview.routes.map((route) => ({
      vehicleRouteId: route.vehicleRouteId,
      distanceMeters: route.distanceMeters,
      vehicle: { label: route.label, plate: route.plate },
      // The preview's times carry the tenant's offset: their clock part is the local time.
      leavesAt: route.startAt.slice(11, 16),
      backAt: route.endAt.slice(11, 16),
      stops: route.stops.map((stop) => marker(orders.get(stop.orderId), stop.arrivalAt)).filter((m): m is MapMarker => m !== undefined),
    })),
    unassigned: preview.unassigned.map((u) => marker(orders.get(u.orderId))).filter((m): m is MapMarker => m !== undefined),
    lang,
  });
};

export const previewMapOperation = defineOperation({
  operationId: 'getRoutePreviewMap',
  method: 'GET',
  path: '/v1/routing/previews/{id}/map.svg',
  summary: 'The picture of a ready route preview (SVG)',
  tag: 'Routing',
  permission: 'plans.read',
  params: IdParams,
  query: MapQuery,
  responses: {
    200: {
      description:
        'The depot, each route as a line of its own colour with its stops numbered in order, unassigned orders as hollow circles, and a legend. It names no person and loads nothing from other hosts; each marker’s tooltip gives the order reference and planned arrival.',
      contentType: svg,
      schema: v.string(),
    },
    404: { description: 'No route preview with this id (or another tenant’s)' },
    409: { description: '`preview_not_ready` (with `state`): the preview is queued, solving or failed' },
  },
  handle: async ({ params, query, caller }) => ({
    status: 200,
    body: await renderMapOfPreview(caller.tenantId, params.id, query.lang),
    headers: {
      'content-type': `${svg}; charset=utf-8`,
      'content-disposition': `inline; filename="preview-${params.id}.svg"`,
      // Opened on its own, the picture may run nothing and fetch nothing.
      'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
      'x-content-type-options': 'nosniff',
      'cache-control': 'private, no-store',
    },
  }),
});
