import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { driveMix } from '../../../bench/load/drive.ts';
import { checkEffects } from '../../../bench/load/effects.ts';
import { stepNames, Tally } from '../../../bench/load/mix.ts';
import { LoadReceiver } from '../../../bench/load/receiver.ts';
import { seedTenants } from '../../../bench/load/seed.ts';
import { OPERATOR, runAs } from '../../../shared/aws-calls/identity.ts';
import { newId } from '../../../shared/ids.ts';
import { opsKeys } from '../../../shared/table/keys-operations.ts';
import { table, tableName } from '../../../shared/table/client.ts';
import { call } from '../../support/api.ts';
import { useLocalStack } from '../../support/stack.ts';
import { WAIT_LIMIT_MS } from '../../support/wait-limit.ts';

// The load driver's mix, briefly and at low concurrency (`npm run load` is the real measurement).
const stack = useLocalStack({ env: { WEBHOOK_ALLOW_PRIVATE_DESTINATIONS: '1', TRACKING_RATE_LIMIT_PER_MINUTE: '100000' } });

describe('the load mix, as a smoke test', () => {
  it('answers every request as expected, replays retried creates, and delivers every event', { timeout: 240_000 }, async () => {
    const receiver = await new LoadReceiver().start();
    try {
      const tenants = await seedTenants({ baseUrl: stack().baseUrl, mint: (subject, mfa) => stack().devIssuer.mint({ subject, mfa }) }, 2, receiver);
      const tally = new Tally();
      // Three whole cycles per connection, tenants taking turns.
      const measured = await driveMix({ baseUrl: stack().baseUrl, tenants, tally, connections: 2, amount: 2 * 3 * stepNames.length });

      expect(tally.samples).toEqual([]);
      expect(measured.failures).toBe(0);
      for (const [step, counts] of tally.perStep) expect(counts.ok, step).toBeGreaterThan(0);
      expect(tally.replays).toBeGreaterThan(0);
      const effects = await checkEffects({ tenants, tally, receiver, timeoutMs: WAIT_LIMIT_MS });
      expect(effects.missing).toEqual([]);
      expect(effects.lost).toEqual([]);
      expect(effects.duplicated).toEqual([]);
      expect(receiver.refused).toBe(0);
      expect(tally.expectedEvents.size).toBeGreaterThan(0);

      // And the check would see a create applied twice: a second order with an answered one's reference.
      const [tenant] = tenants;
      const answered = (await call(stack(), 'GET', '/v1/distribution/orders?limit=5', { token: tenant.operator, tenantId: tenant.id })).body.items.find((o: { id: string }) => tally.orders.has(o.id));
      await runAs(OPERATOR, () => table().send(new PutCommand({ TableName: tableName(), Item: { ...opsKeys.order(tenant.id, newId()), entity: 'order', tenantId: tenant.id, reference: answered.reference } })));
      const twice = await checkEffects({ tenants, tally, receiver, timeoutMs: 0 });
      expect(twice.duplicated).toEqual([answered.reference]);
      expect(twice.ok).toBe(false);
    } finally {
      await receiver.stop();
    }
  });
});
