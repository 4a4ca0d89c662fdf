import * as v from 'valibot';
import { Uuid } from '../../shared/http/schemas.ts';
import { localStates, transfers } from '../invoicing/schemas.ts';

/** What a stop shows of its dispatch guide (decisions 14): null until the route made one. */
export const StopDispatchGuide = v.pipe(
  v.nullable(
    v.object({
      intentId: Uuid,
      number: v.pipe(v.nullable(v.string()), v.description('The guide’s folio, once the provider gave it')),
      localState: v.picklist(localStates),
    }),
  ),
  v.description('The stop’s latest dispatch guide (an invoice intent of documentKind dispatch_guide), or null'),
);
export type StopDispatchGuide = v.InferOutput<typeof StopDispatchGuide>;

export const DispatchGuidesBody = v.strictObject({
  transfer: v.pipe(
    v.picklist(transfers, 'must be sale, internal_transfer or other_transfer'),
    v.description('Why the goods move: a sale, an internal transfer between the company’s own places, or another transfer (the shipping types of the connection’s issue settings)'),
  ),
});

export const RouteDispatchGuides = v.pipe(
  v.object({
    items: v.array(v.object({ stopId: Uuid, orderId: Uuid, intentId: Uuid })),
  }),
  v.description('Every live guide of the route’s stops with goods, in stop order: those made now and those made before'),
  v.title('RouteDispatchGuides'),
);
