import { outboxEvent, type OutboxEvent } from '../../shared/events/outbox.ts';
import type { EventType } from '../../shared/events/catalogue.ts';
import { redactQuery } from './endpoint-record.ts';

/** At this many dead deliveries in a row the company is warned, five before the destination is disabled. */
export const WARN_AFTER_DEAD_DELIVERIES = 15;

/** The kinds about one destination: never delivered to the destination they are about (decisions 5). */
export const operationalEventTypes = ['webhook.endpoint.failing', 'webhook.endpoint.disabled'] as const satisfies EventType[];

export const isAboutDestination = (event: OutboxEvent, endpointId: string): boolean =>
  (operationalEventTypes as readonly string[]).includes(event.type) && (event.data as { endpointId: string }).endpointId === endpointId;

interface About {
  tenantId: string;
  endpointId: string;
  url: string;
  consecutiveFailures: number;
}

/** The outbox write of `webhook.endpoint.failing`; the URL's query values are redacted, as for operators. */
export const failingEvent = (about: About, now: Date) =>
  outboxEvent(about.tenantId, 'webhook.endpoint.failing', { endpointId: about.endpointId, url: redactQuery(about.url), consecutiveFailures: about.consecutiveFailures, disabledReason: null }, now);

export const disabledEvent = (about: About, now: Date) =>
  outboxEvent(about.tenantId, 'webhook.endpoint.disabled', { endpointId: about.endpointId, url: redactQuery(about.url), consecutiveFailures: about.consecutiveFailures, disabledReason: 'failures' }, now);
