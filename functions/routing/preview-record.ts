import { gunzipSync, gzipSync } from 'node:zlib';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { NotFoundError } from '../../shared/errors.ts';
import { opsKeys } from '../../shared/table/keys-operations.ts';
import { table, tableName } from '../../shared/table/client.ts';
import type { Preview, PreviewSummary } from './preview-schemas.ts';
import { previewExpired } from './previews/retention.ts';

/**
 * A preview's routes and unassigned orders are stored as one gzipped JSON attribute: 1,000 stops
 * with their times are about 250 KB as plain attributes, near DynamoDB's 400 KB item limit, and
 * under 60 KB compressed. Nothing queries inside them.
 */
interface StoredResult {
  routes: Preview['routes'];
  unassigned: Preview['unassigned'];
}

const packResult = (result: StoredResult): Uint8Array => gzipSync(Buffer.from(JSON.stringify(result)));
const unpackResult = (packed: unknown): StoredResult =>
  packed instanceof Uint8Array ? (JSON.parse(gunzipSync(packed).toString('utf8')) as StoredResult) : { routes: [], unassigned: [] };

/**
 * The stored preview: its public fields, plus whatever the writer keeps beside them (`extra`: the
 * request the worker solves, its lease). `extra` never reaches a reader of `toPreview`.
 */
export const previewItem = (tenantId: string, preview: Preview, extra: Record<string, unknown> = {}) => {
  const { routes, unassigned, ...rest } = preview;
  return {
    ...extra,
    ...opsKeys.preview(tenantId, preview.id),
    ...opsKeys.previewsByDate(tenantId, preview.serviceDate, preview.id),
    entity: 'route-preview',
    tenantId,
    ...rest,
    previewId: preview.id,
    result: routes.length + unassigned.length > 0 ? packResult({ routes, unassigned }) : undefined,
  };
};

/** Every field but the routes and unassigned orders: what the list shows (decisions 18), never unpacking them. */
export const toPreviewSummary = (item: Record<string, unknown>): PreviewSummary => ({
  id: item.previewId as string,
  serviceDate: item.serviceDate as string,
  depotId: item.depotId as string,
  objective: item.objective as Preview['objective'],
  state: item.state as Preview['state'],
  failure: (item.failure as Preview['failure'] | undefined) ?? null,
  totals: (item.totals as Preview['totals'] | undefined) ?? null,
  // Previews solved before decisions 18 did not record what stopped the search.
  solver: { stoppedBy: null, ...(item.solver as Partial<Preview['solver']>) } as Preview['solver'],
  earliestStartAt: (item.earliestStartAt as string | undefined) ?? null,
  version: item.version as number,
  createdAt: item.createdAt as string,
  updatedAt: item.updatedAt as string,
});

/** Previews solved before decisions 17 stored no sequence, reference, routeId, label or plate. */
const withGlance = (routes: Preview['routes']): Preview['routes'] =>
  routes.map((route) => ({
    ...route,
    routeId: route.routeId ?? null,
    label: route.label ?? null,
    plate: route.plate ?? null,
    stops: route.stops.map((stop, i) => ({ ...stop, sequence: stop.sequence ?? i + 1, reference: stop.reference ?? null })),
  }));

export const toPreview = (item: Record<string, unknown>): Preview => {
  const { routes: stored, unassigned } = unpackResult(item.result);
  // In the order the specification lists the fields: the routes and unassigned orders after failure.
  const { totals, solver, earliestStartAt, version, createdAt, updatedAt, ...head } = toPreviewSummary(item);
  return { ...head, routes: withGlance(stored), unassigned, totals, solver, earliestStartAt, version, createdAt, updatedAt };
};

/** The stored item itself, for writers that need its extra fields (the worker, the plan). */
export const getPreviewItem = async (tenantId: string, previewId: string): Promise<Record<string, unknown>> => {
  const { Item } = await table().send(new GetCommand({ TableName: tableName(), Key: opsKeys.preview(tenantId, previewId), ConsistentRead: true }));
  // Past its 30 days (decisions 18) it is gone, even before DynamoDB's TTL deletes it.
  if (!Item || previewExpired(Item)) throw new NotFoundError('No route preview with this id.');
  return Item;
};

export const getPreview = async (tenantId: string, previewId: string): Promise<Preview> => toPreview(await getPreviewItem(tenantId, previewId));
