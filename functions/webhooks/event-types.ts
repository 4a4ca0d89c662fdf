import { eventTypes, type EventData, type EventType } from '../../shared/events/catalogue.ts';
import { eventDataJsonSchema } from '../../shared/events/json-schemas.ts';

interface Entry<T extends EventType> {
  description: string;
  /** A `data` object that validates against the kind's schema; ids and references only, no personal data. */
  example: EventData<T>;
}

/** Every kind must have its entry: a kind added to the catalogue does not compile without one. */
const entries: { [T in EventType]: Entry<T> } = {
  'distribution.order.created': {
    description: 'An order was created.',
    example: { orderId: '0192f7a0-3c4e-7a10-8b2d-5e6f7a8b9c01', reference: 'PED-10482', state: 'pending' },
  },
  'distribution.order.cancelled': {
    description: 'An order was cancelled.',
    example: { orderId: '0192f7a0-3c4e-7a10-8b2d-5e6f7a8b9c01', reference: 'PED-10482', state: 'cancelled' },
  },
  'finance.invoice.issued': {
    description: 'The billing provider accepted a document and the tax authority’s state is known (documentKind receipt, invoice, credit_note or dispatch_guide).',
    example: {
      invoiceIntentId: '0192f7a1-1111-7b20-9c3d-6e7f8a9b0c12',
      documentKind: 'invoice',
      localState: 'issued',
      providerState: 'accepted',
      taxState: 'accepted',
      externalDocumentId: 'DOC-33-000184',
    },
  },
  'finance.invoice.rejected': {
    description: 'The billing provider or the tax authority rejected a document (documentKind receipt, invoice, credit_note or dispatch_guide).',
    example: {
      invoiceIntentId: '0192f7a1-1111-7b20-9c3d-6e7f8a9b0c12',
      documentKind: 'receipt',
      localState: 'rejected',
      providerState: 'rejected',
      taxState: 'rejected',
      externalDocumentId: null,
    },
  },
  'routing.plan.approved': {
    description: 'A route plan was approved.',
    example: { routePlanId: '0192f7a2-2222-7c30-8d4e-7f8a9b0c1d23', previewId: '0192f7a2-2222-7c30-8d4e-7f8a9b0c1d24', routeCount: 3, unassignedCount: 1 },
  },
  'routing.preview.completed': {
    description: 'A route preview ended: ready (its routes can be read and turned into a plan) or failed.',
    example: { previewId: '0192f7a2-2222-7c30-8d4e-7f8a9b0c1d24', serviceDate: '2026-03-02', state: 'ready', routeCount: 3, unassignedCount: 1 },
  },
  'field.route.assigned': {
    description: 'A route of an approved plan was assigned to a vehicle.',
    example: {
      routeId: '0192f7a3-3333-7d40-9e5f-8a9b0c1d2e34',
      routePlanId: '0192f7a2-2222-7c30-8d4e-7f8a9b0c1d23',
      vehicleRouteId: 'VR-1',
      serviceDate: '2026-03-02',
      fleetVehicleId: '0192f7a4-4444-7e50-8f60-9b0c1d2e3f45',
      stopCount: 2,
      orderIds: ['0192f7a0-3c4e-7a10-8b2d-5e6f7a8b9c01', '0192f7a0-3c4e-7a10-8b2d-5e6f7a8b9c02'],
    },
  },
  'field.route.cancelled': {
    description: 'An assigned route was cancelled before it finished.',
    example: { routeId: '0192f7a3-3333-7d40-9e5f-8a9b0c1d2e34', serviceDate: '2026-03-02' },
  },
  'field.route.updated': {
    description:
      'An assigned or started route changed in place: a plan was applied over it (orders added or removed, stops re-ordered) or its open stops were re-ordered on the road. stopCount and orderIds cover all its stops after the change, in sequence.',
    example: {
      routeId: '0192f7a3-3333-7d40-9e5f-8a9b0c1d2e34',
      serviceDate: '2026-03-02',
      version: 3,
      stopCount: 2,
      orderIds: ['0192f7a0-3c4e-7a10-8b2d-5e6f7a8b9c02', '0192f7a0-3c4e-7a10-8b2d-5e6f7a8b9c03'],
      addedOrderIds: ['0192f7a0-3c4e-7a10-8b2d-5e6f7a8b9c03'],
      removedOrderIds: ['0192f7a0-3c4e-7a10-8b2d-5e6f7a8b9c01'],
    },
  },
  'field.route.started': {
    description: 'The driver started the route.',
    example: { routeId: '0192f7a3-3333-7d40-9e5f-8a9b0c1d2e34' },
  },
  'field.stop.delivered': {
    description: 'A stop was delivered, with the number of evidence items kept.',
    example: {
      routeId: '0192f7a3-3333-7d40-9e5f-8a9b0c1d2e34',
      stopId: '0192f7a5-5555-7f60-9071-0c1d2e3f4a56',
      orderId: '0192f7a0-3c4e-7a10-8b2d-5e6f7a8b9c01',
      reference: 'PED-10482',
      outcomeAt: '2026-03-02T14:31:07.000Z',
      evidenceCount: 1,
    },
  },
  'field.stop.failed': {
    description: 'A stop could not be delivered.',
    example: {
      routeId: '0192f7a3-3333-7d40-9e5f-8a9b0c1d2e34',
      stopId: '0192f7a5-5555-7f60-9071-0c1d2e3f4a57',
      orderId: '0192f7a0-3c4e-7a10-8b2d-5e6f7a8b9c02',
      reference: 'PED-10483',
      outcomeAt: '2026-03-02T15:02:44.000Z',
      evidenceCount: 0,
    },
  },
  'field.route.finished': {
    description: 'The driver finished the route; the summary counts its stops.',
    example: {
      routeId: '0192f7a3-3333-7d40-9e5f-8a9b0c1d2e34',
      finishedAt: '2026-03-02T16:10:00.000Z',
      summary: { stopCount: 2, deliveredCount: 1, failedCount: 1, durationSeconds: 9000 },
    },
  },
  'webhook.test': {
    description: 'A test notification sent by hand to one destination, whatever it subscribes to.',
    example: { endpointId: '0192f7a6-6666-7a70-8182-1d2e3f4a5b67', message: 'Test notification from the delivery operations service.' },
  },
  'webhook.endpoint.failing': {
    description:
      'Another destination of the company reached 15 dead deliveries in a row; it is disabled at 20. `url` is redacted: its origin, each path segment that is not a lower-case word or a version replaced by `…`, query values `REDACTED`.',
    example: { endpointId: '0192f7a6-6666-7a70-8182-1d2e3f4a5b67', url: 'https://erp.example.com/hooks/…?token=REDACTED', consecutiveFailures: 15, disabledReason: null },
  },
  'webhook.endpoint.disabled': {
    description:
      'Another destination of the company was disabled after 20 dead deliveries in a row. `url` is redacted as in webhook.endpoint.failing.',
    example: { endpointId: '0192f7a6-6666-7a70-8182-1d2e3f4a5b67', url: 'https://erp.example.com/hooks/…?token=REDACTED', consecutiveFailures: 20, disabledReason: 'failures' },
  },
  'integration.import.finished': {
    description: 'An import of records from a connected system finished.',
    example: {
      connectionId: '0192f7a7-7777-7b80-9293-2e3f4a5b6c78',
      importId: '0192f7a7-7777-7b80-9293-2e3f4a5b6c79',
      state: 'succeeded',
      counts: { seen: 120, created: 8, updated: 5, unchanged: 107, conflicts: 0 },
    },
  },
};

type Catalogue = { type: EventType; description: string; schema: Record<string, unknown>; example: Record<string, unknown> }[];
let built: Catalogue | undefined;

/** The catalogue (decisions 5): every kind a destination can receive, ordered by type; built once per container. */
export const eventTypeCatalogue = (): Catalogue =>
  (built ??= [...eventTypes].sort().map((type) => ({ type, description: entries[type].description, schema: eventDataJsonSchema(type) as Record<string, unknown>, example: entries[type].example as Record<string, unknown> })));
