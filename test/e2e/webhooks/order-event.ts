import { outboxEvent } from '../../../shared/events/outbox.ts';
import { newId } from '../../../shared/ids.ts';

/**
 * A `distribution.order.created` outbox item as the orders operation writes it (its `event`, and
 * the `write` that commits it), for the webhook files that feed the stream without an order.
 */
export const orderCreatedEvent = (tenantId: string, options: { at?: Date; reference?: string } = {}) =>
  outboxEvent(tenantId, 'distribution.order.created', { orderId: newId(), reference: options.reference ?? `PED-${newId().slice(-6)}`, state: 'pending' }, options.at ?? new Date());
