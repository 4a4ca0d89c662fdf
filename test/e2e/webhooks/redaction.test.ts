import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { OPERATOR, runAs } from '../../../shared/aws-calls/identity.ts';
import { keys } from '../../../shared/table/keys.ts';
import { table, tableName } from '../../../shared/table/client.ts';
import { eventually } from '../../support/receiver.ts';
import { useWebhookWorld } from './world.ts';

const world = useWebhookWorld({ retryDelay: '0' });
const { receiver } = world;
const create = async (path: string, eventTypes: string[]) => (await world.createEndpoint(eventTypes, path)).endpoint;

// What a receiver could put in its body to make the excerpt read differently from what it holds:
// a right-to-left override, isolates, marks, zero-width characters, a BOM, a soft hyphen, and a
// line separator, around plain text.
const TRICKY = 'denied\u202E exe.txt\u202C\u2066 ok\u2069\u200E\u200F\u200B\u200D\uFEFF\u00AD\u2028 end\u061C\u180E';

describe('what a failing destination gives away (issue 29)', () => {
  it('tells the other receivers its origin and a redacted path, never a token in the path; its answers are kept without format characters', async () => {
    receiver.reply = (r) => (r.path.startsWith('/hooks/erp-events/') ? { status: 500, body: TRICKY } : { status: 204 });
    // A receiver that carries its secret in the path (as Slack's and many ERPs' incoming hooks do).
    const failing = await create('erp-events/T0A1B2C3/xoxb7f2kQ9sEcReT/v2/deliveries?token=s3cr3t&tenant=frutas', ['distribution.order.created']);
    await create('watcher', ['webhook.endpoint.failing']);
    // Fourteen deaths in a row already: the next one warns the company.
    await runAs(OPERATOR, () =>
      table().send(new UpdateCommand({ TableName: tableName(), Key: keys.webhookEndpoint(world.tenant.id, failing.id), UpdateExpression: 'SET consecutiveFailures = :n', ExpressionAttributeValues: { ':n': 14 } })),
    );
    await world.emitOrderCreated();

    const [notice] = await eventually(async () => world.receivedAt('watcher'), (list) => list.length >= 1, 120_000);
    const data = JSON.parse(notice.body).data;
    expect(data).toMatchObject({ endpointId: failing.id, consecutiveFailures: 15, disabledReason: null });
    // The origin and the words of the path; `…` for each other segment; query values REDACTED.
    expect(data.url).toBe(`${new URL(receiver.url).origin}/hooks/erp-events/…/…/v2/deliveries?token=REDACTED&tenant=REDACTED`);
    for (const secret of ['T0A1B2C3', 'xoxb7f2kQ9sEcReT', 's3cr3t', 'frutas']) expect(notice.body).not.toContain(secret);

    // The catalogue's example shows the same form.
    const catalogue = await world.tenant.call(world.admin, 'GET', '/v1/webhooks/event-types');
    const failingType = catalogue.body.items.find((t: { type: string }) => t.type === 'webhook.endpoint.failing');
    expect(failingType.example.url).toMatch(/^https:\/\/[^/]+\/hooks\/…\?token=REDACTED$/);

    // The receiver's body in the attempt log: text only, no mark that would reorder or hide it.
    const dead = await world.readUntil(`/v1/webhooks/endpoints/${failing.id}/deliveries?state=dead`, (r) => r.body.items.length === 1, 120_000);
    const detail = await world.tenant.call(world.admin, 'GET', `/v1/webhooks/deliveries/${dead.body.items[0].id}`);
    expect(detail.body.attemptLog).toHaveLength(8);
    for (const entry of detail.body.attemptLog) expect(entry.responseExcerpt).toBe('denied exe.txt ok end');
  }, 240_000);
});
