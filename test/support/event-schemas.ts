import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { eventTypes, type EventType } from '../../shared/events/catalogue.ts';
import { eventDataJsonSchema } from '../../shared/events/json-schemas.ts';

// ajv-formats is CommonJS: its default export arrives wrapped under ESM.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (ajv: Ajv2020) => Ajv2020;

const ajv = addFormats(new Ajv2020({ strict: true, allErrors: true }));
const validators = new Map<EventType, ValidateFunction>();

/** ajv's check of an event's data against the JSON Schema the event-type catalogue serves. */
export const validateEventData = (type: EventType, data: unknown): string | null => {
  let validate = validators.get(type);
  if (!validate) validators.set(type, (validate = ajv.compile(eventDataJsonSchema(type))));
  return validate(data) ? null : ajv.errorsText(validate.errors);
};

/** A received body that is a notification of a known kind, checked; anything else is not an event. */
export const envelopeViolation = (body: string): string | null => {
  let envelope: { type?: unknown; data?: unknown };
  try {
    envelope = JSON.parse(body);
  } catch {
    return null;
  }
  if (typeof envelope?.type !== 'string' || !(eventTypes as string[]).includes(envelope.type)) return null;
  const error = validateEventData(envelope.type as EventType, envelope.data);
  return error ? `${envelope.type}: ${error}` : null;
};
