import { randomUUID } from 'node:crypto';
import type { InitializeMiddleware } from '@smithy/types';
import { beforeAll, describe, expect, it } from 'vitest';
import { dynamoEndpoint } from '../support/dynamo-endpoint.ts';
import { getCareItem, putVehicleCare } from '../../functions/fleet/care.ts';
import { recordOdometer } from '../../functions/fleet/odometer.ts';
import { deleteReading, listReadings } from '../../functions/fleet/odometer-readings.ts';
import { createVehicle } from '../../functions/fleet/vehicles.ts';
import { ensureTable } from '../../infra/local/create-table.ts';
import { ProblemError } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import { resetTableClient, table } from '../../shared/table/client.ts';
import { commit, ReadOutdatedError } from '../../shared/table/transaction.ts';
import { putTenant } from '../../shared/tenancy/tenants.ts';

const noCare = { technicalReview: null, circulationPermit: null, soap: null, service: null, serviceKm: null };
const codeOf = (promise: Promise<unknown>) => promise.then(() => 'committed', (error: ProblemError) => error.code);

/**
 * Holds the next read of a care item at the table client's door until `open()`, and counts the
 * Queries under way meanwhile: `settled` once the read is held and no Query is in flight.
 */
const holdCareRead = () => {
  let inFlight = 0;
  let open!: () => void;
  let held = false;
  let armed = true;
  let check = () => {};
  const settled = new Promise<void>((resolve) => (check = () => held && inFlight === 0 && resolve()));
  const opened = new Promise<void>((resolve) => (open = resolve));
  const door: InitializeMiddleware<any, any> = (next, context) => async (args) => {
    if (context.commandName === 'QueryCommand') {
      inFlight += 1;
      try {
        return await next(args);
      } finally {
        inFlight -= 1;
        check();
      }
    }
    if (armed && context.commandName === 'GetItemCommand' && JSON.stringify(args.input.Key).includes('CARE#')) {
      armed = false;
      held = true;
      // Queries sent in the same turn are counted before the check.
      setImmediate(check);
      await opened;
    }
    return next(args);
  };
  table().middlewareStack.add(door, { step: 'initialize', priority: 'high', name: 'holdCareRead' });
  return { settled, open: () => (open(), table().middlewareStack.remove('holdCareRead')) };
};

/**
 * Two requests that both read before either writes: the interleaving a real race produces now
 * and then, made certain here by holding the first request's writes back.
 */
describe('care writes under races', () => {
  let tenantId: string;
  let vehicleId: string;
  const now = new Date();
  beforeAll(async () => {
    const name = `care-races-${randomUUID()}`;
    await ensureTable(dynamoEndpoint(), name);
    Object.assign(process.env, { DYNAMODB_ENDPOINT: dynamoEndpoint(), TABLE_NAME: name });
    resetTableClient();
    tenantId = newId();
    await putTenant({ id: tenantId, name: 'Carreras SpA' });
    const { vehicle, writes } = createVehicle(tenantId, { plate: 'RACE01', label: 'Camión', active: true }, now);
    await commit(writes);
    vehicleId = vehicle.id;
  });

  it('commits one of two readings that each fit alone but not together', async () => {
    const earlier = await recordOdometer(tenantId, vehicleId, { km: 5_000, readAt: new Date(now.getTime() - 3 * 86_400_000).toISOString() }, now);
    const later = await recordOdometer(tenantId, vehicleId, { km: 4_000, readAt: new Date(now.getTime() - 2 * 86_400_000).toISOString() }, now);
    expect(await codeOf(commit(earlier.writes))).toBe('committed');
    expect(await codeOf(commit(later.writes))).toBe('concurrent_update');
    expect((await getCareItem(tenantId, vehicleId))?.odometer).toMatchObject({ lastKm: 5_000, days: [[expect.any(Number), 5_000, 1]] });
  });

  it('refuses a reading whose neighbours changed between its reads: the sequence is read first', async () => {
    const { vehicle, writes } = createVehicle(tenantId, { plate: 'RACE02', label: 'Furgón', active: true }, now);
    await commit(writes);
    // The first reading's read of the sequence waits while the second commits in between.
    const door = holdCareRead();
    const first = recordOdometer(tenantId, vehicle.id, { km: 5_000, readAt: new Date(now.getTime() - 2 * 86_400_000).toISOString() }, now).then((r) => commit(r.writes));
    await door.settled;
    const second = await recordOdometer(tenantId, vehicle.id, { km: 6_000, readAt: new Date(now.getTime() - 3 * 86_400_000).toISOString() }, now);
    expect(await codeOf(commit(second.writes))).toBe('committed');
    door.open();
    // 5,000 km read after 6,000 km: it must not commit, whichever of its reads saw the other.
    expect(['odometer_backwards', 'concurrent_update']).toContain(await codeOf(first));
    expect((await getCareItem(tenantId, vehicle.id))?.odometer).toMatchObject({ lastKm: 6_000, days: [[expect.any(Number), 6_000, 1]] });
  });

  it('commits one of two care writes of the same version', async () => {
    const first = await putVehicleCare(tenantId, vehicleId, { version: 0, ...noCare, soap: '2027-03-31' }, now);
    const second = await putVehicleCare(tenantId, vehicleId, { version: 0, ...noCare, soap: '2028-03-31' }, now);
    expect(await codeOf(commit(first.writes))).toBe('committed');
    expect(await codeOf(commit(second.writes))).toBe('version_mismatch');
    const item = await getCareItem(tenantId, vehicleId);
    expect(item).toMatchObject({ careVersion: 1, care: { soap: '2027-03-31' } });
    // The care write left the odometer of the same item as it was.
    expect(item?.odometer?.lastKm).toBe(5_000);
  });

  it('loses nothing when a removal races a new reading, whichever commits first', async () => {
    const day = (daysAgo: number) => new Date(now.getTime() - daysAgo * 86_400_000).toISOString();
    for (const readingFirst of [true, false]) {
      const { vehicle, writes } = createVehicle(tenantId, { plate: readingFirst ? 'RACE03' : 'RACE04', label: 'Camioneta', active: true }, now);
      await commit(writes);
      const good = await recordOdometer(tenantId, vehicle.id, { km: 1_000, readAt: day(10) }, now);
      await commit(good.writes);
      const typo = await recordOdometer(tenantId, vehicle.id, { km: 2_999_999, readAt: day(5) }, now);
      await commit(typo.writes);
      // Both read the same odometer sequence before either writes.
      const removal = (await deleteReading(tenantId, vehicle.id, typo.view.readingId, now))!;
      // Checked against the typo still there, the new reading can only match it.
      const reading = await recordOdometer(tenantId, vehicle.id, { km: 2_999_999, readAt: day(1) }, now);
      const [won, lost] = readingFirst ? [reading.writes, removal.writes] : [removal.writes, reading.writes];
      expect(await codeOf(commit(won))).toBe('committed');
      const refused = await commit(lost).then(() => undefined, (error: unknown) => error);
      expect(refused).toBeInstanceOf(readingFirst ? ReadOutdatedError : ProblemError);
      expect((refused as ProblemError).code).toBe('concurrent_update');
      // Run afresh, as the request path does: the removal again, or the reading sent again.
      if (readingFirst) await commit((await deleteReading(tenantId, vehicle.id, typo.view.readingId, now))!.writes);
      else {
        // Without the typo, the reading is checked afresh against the good one: a sane value commits.
        await commit((await recordOdometer(tenantId, vehicle.id, { km: 1_400, readAt: day(1) }, now)).writes);
      }
      const kms = (await listReadings(tenantId, vehicle.id, { limit: 10 })).items.map((r) => r.km);
      expect(kms, `reading first: ${readingFirst}`).toEqual([readingFirst ? 2_999_999 : 1_400, 1_000]);
      const digest = (await getCareItem(tenantId, vehicle.id))?.odometer;
      expect(digest).toMatchObject({ lastKm: kms[0], days: [[expect.any(Number), 1_000, 1], [expect.any(Number), kms[0], 1]] });
    }
  });
});
