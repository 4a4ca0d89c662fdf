import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { findIntent } from '../../../functions/invoicing/intent-record.ts';
import { useLocalStack } from '../../support/stack.ts';
import { RUT } from '../integrations/support.ts';
import { guideLine, seedGuide } from './guides-seed.ts';
import { invoiceBody, PREFIX } from './support.ts';
import { openProviderWorld, type ProviderWorld } from './world.ts';

// decisions 16: the guides of one month, invoiced by the 10th of the next and then dated the
// month's last day. The service's clock is `new Date()` (shared/clock.ts, the gateway's `now`),
// so the test moves it with vitest's fake Date; timers stay real (the stack's I/O needs them).
const stack = useLocalStack({ env: { LOG_LEVEL: 'ERROR', INVOICE_RECONCILE_SECONDS: '3600' } });
const COMPANY = { clientCode: RUT.b, clientName: 'Distribuidora Atacama SpA' };
const day = (iso: string) => Date.parse(`${iso}T00:00:00Z`) / 1000;

describe('the dates of an invoice made from guides (tenant in America/Santiago)', () => {
  let { fake, tenant, admin, operator, ready, close } = {} as ProviderWorld;
  // 2 x 1495 + 1 x 23000 = 25990 per guide.
  const guideOf = (emissionDay: string) => {
    const at = new Date().toISOString();
    return seedGuide(tenant.id, ready.connectionId, ready.customerId, [guideLine('harina', '2', '1495'), guideLine('flete', '1', '23000')], {
      customerExternalId: '2',
      submission: { documentTypeId: '52', officeId: '1', emissionDate: day(emissionDay), firstSubmittedAt: at, submittedAt: at },
    });
  };
  const body = (ids: string[]) => {
    const { lines: _lines, ...rest } = invoiceBody(ready.connectionId, ready.customerId, { totalMinor: String(25990 * ids.length) });
    return { ...rest, dispatchGuideIds: ids };
  };
  const create = (ids: string[]) => tenant.call(operator, 'POST', PREFIX, { body: body(ids) });
  /** The service's clock at an instant; the members' tokens are minted on it, as a phone would hold them then. */
  const clockAt = async (iso: string) => {
    vi.setSystemTime(new Date(iso));
    [admin, operator] = await Promise.all([tenant.member('admin'), tenant.member('operator')]);
  };
  const approve = async (id: string) => {
    expect((await tenant.call(operator, 'POST', `${PREFIX}/${id}/review`, { body: { version: 1 } })).status).toBe(200);
    expect((await tenant.call(admin, 'POST', `${PREFIX}/${id}/approve`, { body: { version: 2 } })).status).toBe(200);
  };
  const issue = async (id: string) => {
    await approve(id);
    const issued = await tenant.call(admin, 'POST', `${PREFIX}/${id}/issue`);
    expect(issued.body.localState, issued.text).toBe('issued');
    return fake.documents(ready.token).find((d) => String(d.id) === issued.body.externalDocumentId)!;
  };
  const count = async () => (await tenant.call(admin, 'GET', `${PREFIX}?limit=100`)).body.items.length;

  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-11-02T15:00:00Z'));
    ({ fake, tenant, admin, operator, ready, close } = await openProviderWorld(stack(), { company: COMPANY }));
  });
  afterEach(() => vi.setSystemTime(new Date('2026-11-02T15:00:00Z')));
  afterAll(async () => {
    vi.useRealTimers();
    await close?.();
  });

  it('takes last month’s guides until the 10th ends in Santiago and dates the invoice the month’s last day', async () => {
    const guides = [await guideOf('2026-11-03'), await guideOf('2026-11-30')];
    // 23:59 of 10 December in Santiago (UTC-3 in summer) is already the 11th in UTC.
    await clockAt('2026-12-11T02:59:00Z');
    const created = await create(guides.map((g) => g.id));
    expect(created.status, created.text).toBe(201);
    expect((await findIntent(tenant.id, created.body.id))?.emissionDay).toBe(day('2026-11-30'));
    // Issued within the same minute, the provider's document is of 30 November.
    expect((await issue(created.body.id)).emissionDate).toBe(day('2026-11-30'));
    // One accepted on the 10th but first sent on the 11th would reach the SII late: refused, nothing sent.
    const slow = await create([(await guideOf('2026-11-20')).id]);
    expect(slow.status, slow.text).toBe(201);
    await approve(slow.body.id);
    await clockAt('2026-12-11T12:00:00Z');
    const documents = fake.documents(ready.token).length;
    const refused = await tenant.call(admin, 'POST', `${PREFIX}/${slow.body.id}/issue`);
    expect([refused.status, refused.body.code], refused.text).toEqual([422, 'guides_invoice_late']);
    expect((await findIntent(tenant.id, slow.body.id))?.localState).toBe('approved');
    expect(fake.documents(ready.token)).toHaveLength(documents);

    const more = await guideOf('2026-11-15');
    await clockAt('2026-12-11T03:00:00Z');
    const before = await count();
    const late = await create([more.id]);
    expect([late.status, late.body.code, late.body.errors]).toEqual([
      422,
      'guides_invoice_late',
      [{ path: 'body.dispatchGuideIds', message: 'the guides are of 2026-11: their invoice was due by 2026-12-10 (art. 55 DL 825); it is 2026-12-11 in America/Santiago' }],
    ]);
    expect(late.headers.get('content-type')).toContain('application/problem+json');
    expect(await count()).toBe(before);
  });

  it('dates an invoice of this month’s guides on the day it is issued', async () => {
    const guide = await guideOf('2026-11-05');
    await clockAt('2026-11-20T15:00:00Z');
    const created = await create([guide.id]);
    expect(created.status, created.text).toBe(201);
    expect((await findIntent(tenant.id, created.body.id))?.emissionDay).toBeUndefined();
    // 22:30 of the 21st in Santiago, the 22nd in UTC.
    await clockAt('2026-11-22T01:30:00Z');
    expect((await issue(created.body.id)).emissionDate).toBe(day('2026-11-21'));
  });

  it('dates this month’s guides’ invoice the month’s last day when it is first sent in the next month', async () => {
    const guide = await guideOf('2026-11-25');
    await clockAt('2026-11-28T15:00:00Z');
    const created = await create([guide.id]);
    expect(created.status, created.text).toBe(201);
    await clockAt('2026-12-03T15:00:00Z');
    expect((await issue(created.body.id)).emissionDate).toBe(day('2026-11-30'));
  });

  it('crosses the year: December’s guides on 10 January are dated 31 December; October’s in December are late', async () => {
    const december = await guideOf('2026-12-28');
    await clockAt('2027-01-10T12:00:00Z');
    const created = await create([december.id]);
    expect(created.status, created.text).toBe(201);
    expect((await findIntent(tenant.id, created.body.id))?.emissionDay).toBe(day('2026-12-31'));
    const october = await guideOf('2026-10-30');
    await clockAt('2026-12-01T12:00:00Z');
    const late = await create([october.id]);
    expect([late.status, late.body.code]).toEqual([422, 'guides_invoice_late']);
  });

  it('refuses guides of two months (422 guides_mixed_months naming each guide of another month), and names every problem in one 422', async () => {
    const [october, november, alsoNovember] = [await guideOf('2026-10-31'), await guideOf('2026-11-01'), await guideOf('2026-11-02')];
    await clockAt('2026-11-05T12:00:00Z');
    const before = await count();
    const mixed = await create([october.id, november.id, alsoNovember.id]);
    expect([mixed.status, mixed.body.code, mixed.body.errors.map((e: { path: string }) => e.path)]).toEqual([422, 'guides_mixed_months', ['body.dispatchGuideIds.1', 'body.dispatchGuideIds.2']]);
    expect(mixed.body.errors[0].message).toBe('is a guide of 2026-11, the first guide one of 2026-10: an invoice covers the guides of one calendar month');
    // With another problem, one 422 names them all.
    const unknown = randomUUID();
    const both = await create([november.id, october.id, unknown]);
    expect([both.status, both.body.code, both.body.errors.map((e: { path: string }) => e.path)]).toEqual([422, 'invalid_invoice', ['body.dispatchGuideIds.2', 'body.dispatchGuideIds.1']]);
    expect(await count()).toBe(before);
    // Each month alone is taken (October's until 10 November).
    expect((await create([october.id])).status).toBe(201);
    expect((await create([november.id, alsoNovember.id])).status).toBe(201);
  });
});
