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

/** A path segment shown to other receivers: lower-case words joined by `-` or `_`, or a version (`v2`). */
const WORD_SEGMENT = /^(?:[a-z]{1,14}(?:[-_][a-z]{1,14}){0,3}|v\d{1,3})$/;

/**
 * The URL as the company's other receivers get it in an operational event: the origin, each path
 * segment kept only if it reads as a word (`hooks`, `erp-events`, `v1`) and `…` in place of any
 * other (a token or an id in the path: `T0123`, `xoxb-8f2k…`, mixed case, digits, `%`-escapes),
 * and the query's names with the value `REDACTED`, as operators see them. Receivers are other
 * systems, often another party's: a secret in the path must not travel to them.
 */
export const redactForReceivers = (url: string): string => {
  const parsed = new URL(redactQuery(url));
  const path = parsed.pathname
    .split('/')
    .map((segment, i) => (i === 0 || segment === '' || WORD_SEGMENT.test(segment) ? segment : '…'))
    .join('/');
  return `${parsed.origin}${path}${parsed.search}`;
};

/** The outbox write of `webhook.endpoint.failing`, with the URL redacted for receivers. */
export const failingEvent = (about: About, now: Date) =>
  outboxEvent(about.tenantId, 'webhook.endpoint.failing', { endpointId: about.endpointId, url: redactForReceivers(about.url), consecutiveFailures: about.consecutiveFailures, disabledReason: null }, now);

export const disabledEvent = (about: About, now: Date) =>
  outboxEvent(about.tenantId, 'webhook.endpoint.disabled', { endpointId: about.endpointId, url: redactForReceivers(about.url), consecutiveFailures: about.consecutiveFailures, disabledReason: 'failures' }, now);
