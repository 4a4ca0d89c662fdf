import { describe, expect, it } from 'vitest';
import { careList } from '../../../functions/fleet/care-rules.ts';
import type { Care, CareVehicle } from '../../../functions/fleet/care-schemas.ts';
import { addReading, odometerView, type OdometerDigest } from '../../../functions/fleet/odometer-digest.ts';
import { localDate } from '../../../shared/calendar.ts';

const zone = 'America/Santiago';
const noCare: Care = { technicalReview: null, circulationPermit: null, soap: null, service: null, serviceKm: null };
let n = 0;
const id = () => `0190a0a0-0000-7000-8000-${String(++n).padStart(12, '0')}`;

/** Readings as the API records them, one after the other, each on the day it was posted. */
const digestOf = (readings: [km: number, readAt: string][]): OdometerDigest | undefined =>
  readings.reduce<OdometerDigest | undefined>((digest, [km, readAt]) => addReading(digest, { km, readAt }, localDate(new Date(readAt), zone), zone), undefined);

const vehicle = (care: Partial<Care>, options: { label?: string; active?: boolean; readings?: [number, string][]; today?: string } = {}): CareVehicle => ({
  vehicleId: id(),
  label: options.label ?? 'Camión 1',
  active: options.active ?? true,
  care: { ...noCare, ...care },
  version: 1,
  updatedAt: '2026-01-01T00:00:00.000Z',
  odometer: odometerView(digestOf(options.readings ?? []), options.today ?? '2026-06-15', zone),
});

const listOn = (today: string, vehicles: CareVehicle[]) => careList(vehicles, today, zone);
const listAt = (instant: string, vehicles: CareVehicle[]) => careList(vehicles, localDate(new Date(instant), zone), zone);

describe('date items', () => {
  const today = '2026-06-15';
  const one = (care: Partial<Care>) => listOn(today, [vehicle(care)]).due;

  it('lists a date from 30 days before it, not 31', () => {
    expect(one({ soap: '2026-07-15' })).toEqual([expect.objectContaining({ item: 'soap', date: '2026-07-15', daysLeft: 30, status: 'soon', attention: false, km: null })]);
    expect(one({ soap: '2026-07-16' })).toEqual([]);
  });

  it('says today on the date, soon the day before, expired the day after', () => {
    const [onDay] = one({ technicalReview: today });
    expect(onDay).toMatchObject({ daysLeft: 0, status: 'today', attention: true, text: 'Revisión técnica de Camión 1: vence hoy.' });
    const [before] = one({ technicalReview: '2026-06-16' });
    expect(before).toMatchObject({ daysLeft: 1, status: 'soon', attention: false, text: 'Revisión técnica de Camión 1: vence en 1 día (16-06-2026).' });
    const [after] = one({ technicalReview: '2026-06-14' });
    expect(after).toMatchObject({ daysLeft: -1, status: 'expired', attention: true, text: 'Revisión técnica de Camión 1: venció hace 1 día (14-06-2026).' });
    expect(one({ service: '2025-01-01' })[0]).toMatchObject({ status: 'expired', daysLeft: -530 });
  });

  it('orders by daysLeft, then label as people sort it, and lists nothing for inactive vehicles', () => {
    const list = listOn(today, [
      vehicle({ soap: '2026-06-20', technicalReview: '2026-06-17' }, { label: 'Bravo' }),
      vehicle({ circulationPermit: '2026-06-20' }, { label: 'Ábaco' }),
      vehicle({ soap: '2026-06-10' }, { label: 'camión 10' }),
      vehicle({ soap: '2026-06-10' }, { label: 'Camión 9' }),
      vehicle({ soap: '2026-06-15', serviceKm: 10 }, { label: 'Parado', active: false }),
    ]);
    expect(list.due.map((i) => [i.label, i.item, i.daysLeft])).toEqual([
      ['Camión 9', 'soap', -5],
      ['camión 10', 'soap', -5],
      ['Bravo', 'technical_review', 2],
      ['Ábaco', 'circulation_permit', 5],
      ['Bravo', 'soap', 5],
    ]);
    expect(list.vehicles).toHaveLength(5);
    expect(list.kmLimited).toBe(false);
  });
});

describe('service_km items', () => {
  const today = '2026-06-15';
  // 100 km a day: 10,000 on June 1st, 11,000 on June 11th (afternoon in Santiago).
  const readings: [number, string][] = [[10_000, '2026-06-01T16:00:00.000Z'], [11_000, '2026-06-11T16:00:00.000Z']];
  const kmItem = (serviceKm: number) => listOn(today, [vehicle({ serviceKm }, { readings, today })]);

  it('projects the odometer to today at the 90-day average', () => {
    // 4 days since the last reading: 11,000 + 400.
    const list = kmItem(12_000);
    expect(list.due).toEqual([
      expect.objectContaining({ item: 'service_km', status: 'soon', km: { dueKm: 12_000, estimatedKm: 11_400, leftKm: 600 }, date: '2026-06-21', daysLeft: 6, attention: false }),
    ]);
    expect(list.vehicles[0].odometer).toEqual({ lastKm: 11_000, lastReadAt: '2026-06-11T16:00:00.000Z', dailyKm: 100, readings: 2 });
    expect(list.kmLimited).toBe(false);
  });

  it('lists at 1,000 km left, not at 1,001', () => {
    expect(kmItem(12_400).due).toEqual([expect.objectContaining({ status: 'soon', km: { dueKm: 12_400, estimatedKm: 11_400, leftKm: 1_000 }, date: '2026-06-25', daysLeft: 10 })]);
    expect(kmItem(12_401).due).toEqual([]);
  });

  it('says today at 0 km left and expired below, dated today', () => {
    expect(kmItem(11_400).due[0]).toMatchObject({ status: 'today', date: today, daysLeft: 0, attention: true, km: { leftKm: 0 } });
    expect(kmItem(11_399).due[0]).toMatchObject({ status: 'expired', date: today, daysLeft: 0, attention: true, km: { leftKm: -1 } });
    expect(kmItem(11_399).due[0].text).toBe('Mantención por kilometraje de Camión 1: atrasada por 1 km (11.400 km estimado, pauta a los 11.399 km).');
  });

  it('uses the last reading, dated today, and says kmLimited with fewer than two readings', () => {
    const list = listOn(today, [vehicle({ serviceKm: 11_500 }, { readings: [[11_000, '2026-06-11T16:00:00.000Z']], today })]);
    expect(list.vehicles[0].odometer).toMatchObject({ dailyKm: null, readings: 1 });
    expect(list.due).toEqual([expect.objectContaining({ status: 'soon', date: today, daysLeft: 0, km: { dueKm: 11_500, estimatedKm: 11_000, leftKm: 500 } })]);
    expect(list.due[0].text).toContain('según la última lectura');
    expect(list.kmLimited).toBe(true);
  });

  it('has no km item but says kmLimited for a vehicle with serviceKm and no reading', () => {
    const list = listOn(today, [vehicle({ serviceKm: 5 })]);
    expect(list).toMatchObject({ due: [], kmLimited: true });
  });

  it('does not count a reading 91 days old, and counts one 90 days old', () => {
    const recent: [number, string] = [20_000, '2026-06-14T16:00:00.000Z'];
    const old91 = vehicle({ serviceKm: 30_000 }, { readings: [[11_000, '2026-03-16T16:00:00.000Z'], recent], today });
    expect(old91.odometer).toEqual({ lastKm: 20_000, lastReadAt: recent[1], dailyKm: null, readings: 1 });
    expect(listOn(today, [old91]).kmLimited).toBe(true);
    const old90 = vehicle({ serviceKm: 30_000 }, { readings: [[11_000, '2026-03-17T16:00:00.000Z'], recent], today });
    // 9,000 km over the 89 days between the two readings.
    expect(old90.odometer).toEqual({ lastKm: 20_000, lastReadAt: recent[1], dailyKm: 101.1, readings: 2 });
  });

  it('keeps an old reading out of the window as days pass, without a new reading', () => {
    const digest = digestOf(readings)!;
    expect(odometerView(digest, '2026-08-30', zone)).toMatchObject({ readings: 2, dailyKm: 100 });
    expect(odometerView(digest, '2026-08-31', zone)).toMatchObject({ readings: 1, dailyKm: null });
    expect(odometerView(digest, '2026-09-10', zone)).toMatchObject({ readings: 0, dailyKm: null, lastKm: 11_000 });
  });

  it('counts an average of 0 as none: dated today on the last reading, with kmLimited', () => {
    const still = vehicle({ serviceKm: 11_500 }, { readings: [[11_000, '2026-06-01T16:00:00.000Z'], [11_000, '2026-06-11T16:00:00.000Z']], today });
    expect(still.odometer?.dailyKm).toBe(0);
    const list = listOn(today, [still]);
    expect(list).toMatchObject({ kmLimited: true, due: [expect.objectContaining({ date: today, status: 'soon', km: { dueKm: 11_500, estimatedKm: 11_000, leftKm: 500 } })] });
    expect(list.due[0].text).toContain('según la última lectura');
  });

  it('lists readings stored out of order (an average below 0) on the last reading, with kmLimited', () => {
    // Once two racing readings could store this; projecting it forward never reached serviceKm.
    const back = vehicle({ serviceKm: 11_500 }, { readings: [[12_000, '2026-06-01T16:00:00.000Z'], [11_000, '2026-06-11T16:00:00.000Z']], today });
    expect(back.odometer?.dailyKm).toBe(-100);
    const list = listOn(today, [back]);
    expect(list).toMatchObject({ kmLimited: true, due: [expect.objectContaining({ date: today, daysLeft: 0, status: 'soon', km: { dueKm: 11_500, estimatedKm: 11_000, leftKm: 500 } })] });
  });

  it('dates the first day the projection reaches serviceKm, for slow and fast averages', () => {
    // 0.1 km a day, 3 km to go: 30 days (3 / 0.1 is 30.000000000000004 in floating point).
    const slow = vehicle({ serviceKm: 11_006 }, { readings: [[11_000, '2026-05-15T16:00:00.000Z'], [11_003, '2026-06-14T16:00:00.000Z']], today });
    expect(slow.odometer?.dailyKm).toBe(0.1);
    expect(listOn(today, [slow]).due).toEqual([expect.objectContaining({ date: '2026-07-14', daysLeft: 29, km: { dueKm: 11_006, estimatedKm: 11_003, leftKm: 3 } })]);
    // 1,001 km a day, 1,999 km to go from the last reading: the second day after it.
    const fast = vehicle({ serviceKm: 13_000 }, { readings: [[10_000, '2026-06-13T16:00:00.000Z'], [11_001, '2026-06-14T16:00:00.000Z']], today });
    expect(fast.odometer?.dailyKm).toBe(1001);
    expect(listOn(today, [fast]).due).toEqual([expect.objectContaining({ date: '2026-06-16', daysLeft: 1, km: { dueKm: 13_000, estimatedKm: 12_002, leftKm: 998 } })]);
  });
});

describe('days in Santiago across the daylight-saving changes', () => {
  // 2026: summer time ends on Sunday April 5 (00:00 UTC-3 becomes 23:00 UTC-4 of the 4th) and
  // starts on Sunday September 6 (00:00 UTC-4 becomes 01:00 UTC-3).
  const soap = (date: string) => vehicle({ soap: date });

  it('first Sunday of April: the repeated hour still belongs to Saturday', () => {
    const item = { soap: '2026-04-05' };
    expect(listAt('2026-04-05T02:30:00Z', [soap(item.soap)])).toMatchObject({ today: '2026-04-04', due: [{ status: 'soon', daysLeft: 1 }] });
    // 23:30 again, now UTC-4: a fixed UTC-3 offset would already say Sunday.
    expect(listAt('2026-04-05T03:30:00Z', [soap(item.soap)])).toMatchObject({ today: '2026-04-04', due: [{ status: 'soon', daysLeft: 1 }] });
    expect(listAt('2026-04-05T04:30:00Z', [soap(item.soap)])).toMatchObject({ today: '2026-04-05', due: [{ status: 'today', daysLeft: 0 }] });
    // The 25-hour day counts as one day.
    expect(listAt('2026-04-01T12:00:00Z', [soap('2026-04-10')]).due[0].daysLeft).toBe(9);
  });

  it('first Sunday of September: Sunday starts at 01:00', () => {
    expect(listAt('2026-09-06T03:59:00Z', [soap('2026-09-06')])).toMatchObject({ today: '2026-09-05', due: [{ status: 'soon', daysLeft: 1 }] });
    expect(listAt('2026-09-06T04:00:00Z', [soap('2026-09-06')])).toMatchObject({ today: '2026-09-06', due: [{ status: 'today' }] });
    expect(listAt('2026-09-06T04:00:00Z', [soap('2026-09-05')]).due[0]).toMatchObject({ status: 'expired', daysLeft: -1 });
    // The 23-hour day counts as one day too.
    expect(listAt('2026-09-01T12:00:00Z', [soap('2026-09-10')]).due[0].daysLeft).toBe(9);
  });

  it('counts odometer days in local dates across both changes', () => {
    // Saturday 23:30 twice (UTC-3, then UTC-4 after the clocks go back): one day, no average.
    const april = digestOf([[1_000, '2026-04-05T02:30:00Z'], [1_010, '2026-04-05T03:30:00Z']]);
    expect(odometerView(april, '2026-04-05', zone)).toMatchObject({ readings: 2, dailyKm: null });
    // Saturday 23:30 (UTC-4) and Sunday 23:30 (UTC-3): 23 hours apart, but one calendar day.
    const september = digestOf([[1_000, '2026-09-06T03:30:00Z'], [1_250, '2026-09-07T02:30:00Z']]);
    expect(odometerView(september, '2026-09-07', zone)).toMatchObject({ readings: 2, dailyKm: 250 });
  });
});

describe('limits', () => {
  it('lists 1,000 vehicles with all five items each: 5,000 due items in one list', () => {
    const today = '2026-06-15';
    const readings: [number, string][] = [[10_000, '2026-06-01T16:00:00.000Z'], [11_000, '2026-06-11T16:00:00.000Z']];
    const vehicles = Array.from({ length: 1000 }, (_, i) =>
      vehicle({ technicalReview: '2026-06-20', circulationPermit: '2026-06-15', soap: '2026-06-01', service: '2026-07-15', serviceKm: 11_400 + i }, { label: `Móvil ${i}`, readings, today }),
    );
    const list = listOn(today, vehicles);
    expect(list.vehicles).toHaveLength(1000);
    expect(list.due).toHaveLength(5000);
    const days = list.due.map((item) => item.daysLeft);
    expect(days).toEqual([...days].sort((a, b) => a - b));
    expect(list.due[0]).toMatchObject({ label: 'Móvil 0', item: 'soap', daysLeft: -14 });
    expect(list.due.at(-1)).toMatchObject({ label: 'Móvil 999', item: 'service', daysLeft: 30 });
  });
});

describe('odometer digest', () => {
  it('stays within one entry per day of the window however many readings there are', () => {
    let digest: OdometerDigest | undefined;
    const start = Date.parse('2026-01-01T12:00:00Z');
    for (let i = 0; i < 300; i++) {
      // Two a day for 150 days, at 12:00 and 18:00 UTC: morning and afternoon in Santiago.
      const readAt = new Date(start + Math.floor(i / 2) * 86_400_000 + (i % 2) * 6 * 3_600_000).toISOString();
      digest = addReading(digest, { km: 1_000 + i * 10, readAt }, localDate(new Date(readAt), zone), zone);
    }
    expect(digest!.days.length).toBe(91);
    const today = localDate(new Date(digest!.lastReadAt), zone);
    // The window's 91 days of two readings; 3,990 km now, 2,180 at the first reading 90 days ago.
    expect(odometerView(digest, today, zone)).toMatchObject({ lastKm: 3_990, readings: 182, dailyKm: 20.1 });
  });

  it('keeps the earliest reading of a day when an older one of the same day arrives late', () => {
    const digest = digestOf([[2_000, '2026-06-10T20:00:00Z'], [2_500, '2026-06-12T20:00:00Z'], [1_900, '2026-06-10T13:00:00Z']]);
    expect(digest!.days.map(([, km, count]) => [km, count])).toEqual([[1_900, 2], [2_500, 1]]);
    expect(odometerView(digest, '2026-06-12', zone)).toEqual({ lastKm: 2_500, lastReadAt: '2026-06-12T20:00:00Z', dailyKm: 300, readings: 3 });
  });
});
