import * as v from 'valibot';
import { DateTime, IsoDate, Latitude, Longitude, Uuid, Version } from '../../shared/http/schemas.ts';
import { OrderLine, OrderLineInput, MAX_ORDER_LINES } from './goods-schemas.ts';
import { OrderPlanning, OrderPlanningInput } from './planning-schemas.ts';

const Text = (max: number) =>
  v.pipe(v.string('must be a string'), v.trim(), v.minLength(1, 'must not be empty'), v.maxLength(max, `must be at most ${max} characters`));

export const orderStates = ['pending', 'assigned', 'delivered', 'failed', 'cancelled'] as const;
export type OrderState = (typeof orderStates)[number];

const Recipient = v.strictObject({
  name: Text(120),
  phone: v.optional(v.pipe(v.string('must be a string'), v.regex(/^\+?[0-9 ()-]{6,20}$/, 'must be a phone number'))),
  email: v.optional(v.pipe(v.string('must be a string'), v.maxLength(254), v.email('must be an e-mail address'))),
});

const Address = v.strictObject({
  text: Text(300),
  latitude: Latitude,
  longitude: Longitude,
  /** The comuna and city a dispatch guide carries (decisions 14). */
  municipality: v.optional(v.nullable(Text(60)), null),
  city: v.optional(v.nullable(Text(60)), null),
});

export const CreateOrderBody = v.strictObject({
  reference: Text(64),
  recipient: Recipient,
  address: Address,
  serviceDate: IsoDate,
  // Goods (decisions 14): the lines, and the connection whose records they and the customer name.
  lines: v.optional(v.pipe(v.array(OrderLineInput, 'must be an array of lines'), v.maxLength(MAX_ORDER_LINES, `must have at most ${MAX_ORDER_LINES} lines`)), []),
  customerId: v.optional(v.nullable(Uuid), null),
  connectionId: v.optional(v.nullable(Uuid), null),
  // Route planning (decisions 15): when service may start, how long it takes, what it weighs and needs.
  ...OrderPlanningInput,
});
export type CreateOrderBody = v.InferOutput<typeof CreateOrderBody>;

export const CancelBody = v.strictObject({ version: Version });

/** decisions 16: the order's latest guide, whatever route made it; one the provider may hold stays after a cancel. */
export const OrderDispatchGuide = v.pipe(
  v.nullable(
    v.object({
      intentId: Uuid,
      number: v.pipe(v.nullable(v.string()), v.description('The folio, once the provider gave it')),
      localState: v.string(),
      routeId: v.pipe(v.nullable(Uuid), v.description('The route that made it (the order may be on another now)')),
      stopId: v.nullable(Uuid),
    }),
  ),
  v.description('The order’s latest dispatch guide (at most one is live, whatever its routes), or null; an order cancelled after its guide reached the provider still shows it'),
);

export const Order = v.pipe(
  v.object({
    id: Uuid,
    reference: v.string(),
    recipient: v.object({ name: v.string(), phone: v.nullable(v.string()), email: v.nullable(v.string()) }),
    address: v.object({ text: v.string(), latitude: v.number(), longitude: v.number(), municipality: v.nullable(v.string()), city: v.nullable(v.string()) }),
    serviceDate: IsoDate,
    lines: v.pipe(v.array(OrderLine), v.description('The goods, positions from 1; empty for an order without goods')),
    customerId: v.pipe(v.nullable(Uuid), v.description('A party record of connectionId')),
    connectionId: v.pipe(v.nullable(Uuid), v.description('The billing provider connection whose records the lines and customer name')),
    ...OrderPlanning,
    state: v.picklist(orderStates),
    trackingUrl: v.pipe(v.string(), v.description('`/t/{token}`, absolute: on PUBLIC_BASE_URL when set, else on the host the client called (relative only where neither is known)')),
    routeId: v.nullable(Uuid),
    stopId: v.nullable(Uuid),
    dispatchGuide: OrderDispatchGuide,
    version: Version,
    createdAt: DateTime,
    updatedAt: DateTime,
    cancelledAt: v.nullable(DateTime),
  }),
  v.title('Order'),
);
export type Order = v.InferOutput<typeof Order>;
