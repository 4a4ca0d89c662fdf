import { eventTypes } from '../events/catalogue.ts';
import { eventDataJsonSchema, eventSchemaName } from '../events/json-schemas.ts';

type Json = Record<string, unknown>;

const withoutDialect = ({ $schema: _dialect, ...schema }: Json): Json => schema;

/** Each event kind's `data` as a component, under the name the event-type catalogue's schema has. */
export const eventDataComponents = (): Record<string, Json> => Object.fromEntries(eventTypes.map((type) => [eventSchemaName(type), withoutDialect(eventDataJsonSchema(type) as Json)]));

/**
 * OpenAPI 3.1 `webhooks`: the notification a destination receives for each kind, the envelope
 * of the specification around the kind's data (signed with the Standard Webhooks headers).
 */
export const webhookNotifications = (): Record<string, Json> =>
  Object.fromEntries(
    eventTypes.map((type) => [
      type,
      {
        post: {
          operationId: `receive${eventSchemaName(type).replace(/EventData$/, '')}`,
          summary: `The ${type} notification`,
          // The receiver checks the signature headers, not a token of this API.
          security: [],
          description: 'Sent to each active destination subscribed to this kind, with the `webhook-id`, `webhook-timestamp` and `webhook-signature` headers (docs/webhooks.md).',
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  properties: {
                    id: { type: 'string', format: 'uuid' },
                    type: { const: type },
                    timestamp: { type: 'string', format: 'date-time' },
                    tenantId: { type: 'string', format: 'uuid' },
                    version: { type: 'integer' },
                    data: { $ref: `#/components/schemas/${eventSchemaName(type)}` },
                  },
                  required: ['id', 'type', 'timestamp', 'tenantId', 'version', 'data'],
                },
              },
            },
          },
          responses: { '2XX': { description: 'Received; any other answer, or none within 10 seconds, is retried' } },
        },
      },
    ]),
  );
