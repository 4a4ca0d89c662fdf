import { toJsonSchema, type JsonSchema } from '@valibot/to-json-schema';
import { eventDataSchemas, type EventType } from './catalogue.ts';

/**
 * The JSON Schema (2020-12) of each event kind's `data`, from the catalogue's valibot schema:
 * the event-type catalogue serves it, and the OpenAPI document names it, so both are one schema.
 * A check JSON Schema cannot say (a date's calendar day beyond `format: date`) is left out, as
 * in the rest of the document.
 */
export const eventDataJsonSchema = (type: EventType): JsonSchema => toJsonSchema(eventDataSchemas[type], { target: 'draft-2020-12', errorMode: 'ignore' });

/** `field.route.finished` → `FieldRouteFinishedEventData`: its name among the OpenAPI components. */
export const eventSchemaName = (type: EventType): string =>
  `${type
    .split('.')
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('')}EventData`;
