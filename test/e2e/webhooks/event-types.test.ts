import { beforeAll, describe, expect, it } from 'vitest';
import { eventTypes, type EventType } from '../../../shared/events/catalogue.ts';
import { eventSchemaName } from '../../../shared/events/json-schemas.ts';
import { TestTenant, type TestMember } from '../../support/api.ts';
import { envelopeViolation, validateEventData } from '../../support/event-schemas.ts';
import { useLocalStack } from '../../support/stack.ts';

const stack = useLocalStack();
let tenant: TestTenant;
let admin: TestMember;

interface Item {
  type: EventType;
  description: string;
  schema: Record<string, unknown>;
  example: Record<string, unknown>;
}
let items: Item[];

beforeAll(async () => {
  tenant = await TestTenant.create(stack());
  admin = await tenant.member('admin');
  const answer = await tenant.call(admin, 'GET', '/v1/webhooks/event-types');
  expect(answer.status, answer.text).toBe(200);
  items = answer.body.items;
});

// The specification's nine, the test, and the kinds decisions 9, 14, 5 and 17 add.
const expected = [
  'distribution.order.cancelled',
  'distribution.order.created',
  'field.route.assigned',
  'field.route.cancelled',
  'field.route.finished',
  'field.route.started',
  'field.route.updated',
  'field.stop.delivered',
  'field.stop.failed',
  'finance.invoice.issued',
  'finance.invoice.rejected',
  'integration.import.finished',
  'routing.plan.approved',
  'webhook.endpoint.disabled',
  'webhook.endpoint.failing',
  'webhook.test',
];

describe('GET /v1/webhooks/event-types (decisions 5)', () => {
  it('lists every kind a destination can receive, ordered by type, each described', () => {
    const types = items.map((i) => i.type);
    expect(types).toEqual([...types].sort());
    for (const type of expected) expect(types).toContain(type);
    expect(new Set(types)).toEqual(new Set(eventTypes));
    for (const item of items) expect(item.description.length, item.type).toBeGreaterThan(10);
  });

  it('gives each kind a JSON Schema (2020-12) and an example that validates against it with ajv', () => {
    for (const item of items) {
      expect(item.schema.$schema, item.type).toBe('https://json-schema.org/draft/2020-12/schema');
      expect(validateEventData(item.type, item.example), item.type).toBeNull();
      // The schema is strict: the example with a field added, or one taken away, fails it.
      expect(validateEventData(item.type, { ...item.example, extra: 1 }), item.type).not.toBeNull();
      const [first] = Object.keys(item.example);
      const { [first!]: _dropped, ...missing } = item.example;
      expect(validateEventData(item.type, missing), item.type).not.toBeNull();
    }
  });

  it('holds no personal data in the examples', () => {
    const text = JSON.stringify(items.map((i) => i.example)).toLowerCase();
    for (const word of ['recipient', 'phone', 'email', 'address', 'name', '@']) expect(text).not.toContain(word);
  });

  it('serves the same schema the OpenAPI document names for each kind', async () => {
    const document = (await tenant.call(undefined, 'GET', '/v1/openapi.json')).body;
    for (const item of items) {
      const { $schema: _dialect, ...schema } = item.schema;
      expect(document.components.schemas[eventSchemaName(item.type)], item.type).toEqual(schema);
      expect(document.webhooks[item.type].post.requestBody.content['application/json'].schema.properties.data).toEqual({ $ref: `#/components/schemas/${eventSchemaName(item.type)}` });
    }
  });

  it('is for admins and operators', async () => {
    expect((await tenant.call(await tenant.member('operator'), 'GET', '/v1/webhooks/event-types')).status).toBe(200);
    for (const role of ['viewer', 'driver'] as const) {
      const refused = await tenant.call(await tenant.member(role), 'GET', '/v1/webhooks/event-types');
      expect(refused.status, role).toBe(403);
      expect(refused.body.code).toBe('role_forbidden');
    }
  });

  it('catches, in every e2e receiver, a notification whose data breaks its kind’s schema', () => {
    const envelope = (data: unknown) => JSON.stringify({ id: 'x', type: 'field.route.started', timestamp: 't', tenantId: 't', version: 1, data });
    expect(envelopeViolation(envelope({ routeId: '0192f7a3-3333-7d40-9e5f-8a9b0c1d2e34' }))).toBeNull();
    expect(envelopeViolation(envelope({ routeId: 'not-a-uuid' }))).toMatch(/field.route.started/);
    expect(envelopeViolation(envelope({ routeId: '0192f7a3-3333-7d40-9e5f-8a9b0c1d2e34', driverName: 'x' }))).not.toBeNull();
    expect(envelopeViolation('not json')).toBeNull();
  });
});
