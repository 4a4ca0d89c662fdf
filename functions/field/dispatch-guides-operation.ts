import { defineOperation } from '../../shared/http/operation.ts';
import { IdParams } from '../../shared/http/schemas.ts';
import { importQueue } from '../../shared/ports/import-queue.ts';
import { DispatchGuidesBody, RouteDispatchGuides } from './dispatch-guide-schemas.ts';
import { createRouteGuides } from './dispatch-guides.ts';

export const dispatchGuidesOperation = defineOperation({
  operationId: 'createRouteDispatchGuides',
  method: 'POST',
  path: '/v1/field/routes/{id}/dispatch-guides',
  summary: 'Make the dispatch guides of an assigned route’s stops with goods, and issue them through the billing provider',
  tag: 'Field',
  // Issuing tax documents is an admin's (as issuing an invoice intent).
  permission: 'invoices.approve',
  idempotent: true,
  // Concurrent calls meet on the route and the stops' guards: run again, a loser finds the winner's guides.
  retryOnConflict: true,
  params: IdParams,
  body: DispatchGuidesBody,
  responses: {
    202: { description: 'The route’s guides (made now or before), approved and being issued outside the request', schema: RouteDispatchGuides },
    422: {
      description:
        '`invalid_guides`: what the SII needs of the guides is missing (a sale’s order without customerId or with a line without unitPriceMinor, more than 60 lines, an internal_transfer without a valid destinationOfficeId); `errors[]` names each order and field, and no guide is made for any stop',
    },
    409: {
      description:
        '`invalid_state` (the route is not assigned), `connection_not_ready` (a connection of the orders has no guide settings; `connectionId`), `connection_revoked`, `concurrent_update`',
    },
  },
  handle: async ({ params, body, caller }) => {
    const { items, writes, pending } = await createRouteGuides(caller, params.id, body);
    // Issued by the import worker (functions/invoicing/guides); a lost message is made good by the reconciler.
    const afterCommit = pending ? () => importQueue().send({ kind: 'guides', tenantId: caller.tenantId, routeId: params.id }) : undefined;
    const answer = { status: 202, body: { items }, afterCommit };
    return writes.length > 0 ? { ...answer, writes, resourceId: params.id } : answer;
  },
});
