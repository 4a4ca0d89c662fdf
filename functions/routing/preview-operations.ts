import { defineOperation } from '../../shared/http/operation.ts';
import { IdParams, pageOf } from '../../shared/http/schemas.ts';
import { previewQueue } from '../../shared/ports/preview-queue.ts';
import { CreatePreviewBody, Preview, PreviewQuery, PreviewSummary } from './preview-schemas.ts';
import { getPreview } from './preview-record.ts';
import { createPreview } from './previews/create.ts';
import { listPreviews } from './previews/read.ts';

const tag = 'Routing';

export const createPreviewOperation = defineOperation({
  operationId: 'createRoutePreview',
  method: 'POST',
  path: '/v1/routing/previews',
  summary: 'Ask the optimizer for routes of a service date (solved in the background)',
  tag,
  permission: 'plans.write',
  idempotent: true,
  // Concurrent creates race on the tenant's count of unfinished previews: the loser runs again.
  retryOnConflict: true,
  body: CreatePreviewBody,
  responses: {
    202: {
      description: 'The preview, state queued; read it back until its state is ready or failed',
      schema: Preview,
      headers: { location: { description: 'The preview’s path' } },
    },
    409: {
      description:
        '`previews_limit`: the company already has 5 previews queued or solving (decisions 18); `concurrent_update` when concurrent asks kept racing for the last places; `idempotency_in_progress` (with `Retry-After`)',
    },
    422: { description: '`invalid_preview`: an unknown depot, an order that is not pending or not of the date, no order to plan, an unknown or inactive vehicle, a vehicle named twice, a shift that ends before it starts (each named in `errors`)' },
  },
  handle: async ({ body, caller }) => {
    const { preview, writes } = await createPreview(caller.tenantId, body, caller.now);
    return {
      status: 202,
      body: preview,
      headers: { location: `/v1/routing/previews/${preview.id}` },
      writes,
      resourceId: preview.id,
      // Lost only if this fails or the process dies right here: the sweeper sends a queued preview again after a minute.
      afterCommit: () => previewQueue().send({ tenantId: caller.tenantId, previewId: preview.id }),
    };
  },
});

export const getPreviewOperation = defineOperation({
  operationId: 'getRoutePreview',
  method: 'GET',
  path: '/v1/routing/previews/{id}',
  summary: 'Read a route preview: its state, and once ready its routes and unassigned orders',
  tag,
  permission: 'plans.read',
  params: IdParams,
  responses: { 200: { description: 'The preview', schema: Preview } },
  handle: async ({ params, caller }) => ({ status: 200, body: await getPreview(caller.tenantId, params.id) }),
});

export const listPreviewsOperation = defineOperation({
  operationId: 'listRoutePreviews',
  method: 'GET',
  path: '/v1/routing/previews',
  summary: 'The route previews of a service date, newest first, without their routes (read each preview for them)',
  tag,
  permission: 'plans.read',
  query: PreviewQuery,
  responses: { 200: { description: 'A page of preview summaries (every field but routes and unassigned), newest first', schema: pageOf(PreviewSummary) } },
  handle: async ({ query, caller }) => ({ status: 200, body: await listPreviews(caller.tenantId, query.serviceDate, query.after, Number(query.limit)) }),
});

export const previewOperations = [createPreviewOperation, getPreviewOperation, listPreviewsOperation];
