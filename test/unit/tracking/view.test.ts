import { describe, expect, it } from 'vitest';
import { relativeTo, round3 } from '../../../functions/tracking/geo.ts';
import { trackingPage } from '../../../functions/tracking/page.ts';
import { languageOf } from '../../../functions/tracking/texts.ts';
import type { ViewRecord } from '../../../functions/tracking/view-record.ts';
import { publicView } from '../../../functions/tracking/view.ts';

const now = new Date('2026-11-23T17:00:00.000Z'); // 14:00 in Santiago (summer time, UTC-3)
const base: ViewRecord = {
  token: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
  tenantId: 't',
  orderId: 'o',
  companyName: 'Comercial <Los Andes>',
  timeZone: 'America/Santiago',
  reference: 'PED-1',
  serviceDate: '2026-11-23',
  phase: 'moving',
  stopsBefore: 3,
  driverFirstName: 'Juan',
  position: { latitude: -33.451, longitude: -70.65, recordedAt: '2026-11-23T16:58:00.000Z' },
  travelSeconds: 40 * 60,
  relative: { direction: 0, band: 2 },
  closedAt: null,
  dispatchGuideNumber: null,
  plannedArrivalAt: null,
  plannedWindow: null,
  builtAt: '2026-11-23T16:58:01.000Z',
};

describe('the public view', () => {
  it('estimates a 30-minute window labelled in the company’s time zone', () => {
    const view = publicView(base, now);
    // Estimate 14:38 → window from 14:25 (10 min before, on a 5-minute mark) to 14:55.
    expect(view.eta).toEqual({ from: '2026-11-23T17:25:00.000Z', to: '2026-11-23T17:55:00.000Z', label: '14:25 - 14:55' });
    expect(view).toMatchObject({ state: 'on_the_way', etaNote: null, stopsBefore: 3, driver: { firstName: 'Juan' }, refreshSeconds: 30 });
    expect(view.approximatePosition).toEqual({ latitude: -33.451, longitude: -70.65, updatedAt: '2026-11-23T16:58:00.000Z' });
  });

  it('reads arriving with one stop or less before, and never starts the window in the past', () => {
    const late = publicView({ ...base, stopsBefore: 1, travelSeconds: 60 }, now);
    expect(late.state).toBe('arriving');
    expect(late.eta!.from).toBe('2026-11-23T17:00:00.000Z');
  });

  it('starts the window now, not at the 5-minute mark already passed, when the driver is due within minutes', () => {
    // 10:08 in Santiago, the driver two minutes away: the window is 10:08 - 10:38, not 10:05 - 10:35.
    const at = new Date('2026-11-23T13:08:00.000Z');
    const near = { ...base, stopsBefore: 0, position: { ...base.position!, recordedAt: '2026-11-23T13:07:30.000Z' }, travelSeconds: 150 };
    expect(publicView(near, at).eta).toEqual({ from: '2026-11-23T13:08:00.000Z', to: '2026-11-23T13:38:00.000Z', label: '10:08 - 10:38' });
    // Between minutes too: the start is the moment of the read, never before it.
    const between = new Date('2026-11-23T13:08:40.000Z');
    expect(Date.parse(publicView(near, between).eta!.from)).toBeGreaterThanOrEqual(between.getTime());
    // A later estimate keeps its 5-minute mark: 10:50 → 10:40 - 11:10.
    expect(publicView({ ...near, travelSeconds: 42.5 * 60 }, at).eta!.label).toBe('10:40 - 11:10');
  });

  it('hides a position older than 10 minutes, and everything moving once closed', () => {
    expect(publicView(base, new Date('2026-11-23T17:08:30.000Z')).approximatePosition).toBeNull();
    const closed = publicView({ ...base, phase: 'delivered', closedAt: '2026-11-23T17:30:00.000Z' }, now);
    expect(closed).toMatchObject({ state: 'delivered', eta: null, driver: null, approximatePosition: null, stopsBefore: null, refreshSeconds: 3600 });
  });

  it('reads a cancelled order as failed with a note, and pending with the service day', () => {
    expect(publicView({ ...base, phase: 'cancelled', closedAt: now.toISOString() }, now)).toMatchObject({ state: 'failed', etaNote: 'El pedido fue cancelado y no será entregado.' });
    const pending = publicView({ ...base, phase: 'pending', driverFirstName: null, position: null, travelSeconds: null }, now, 'en');
    expect(pending).toMatchObject({ state: 'pending', eta: null, driver: null, refreshSeconds: 120, etaNote: 'Delivery scheduled for Monday 23 November.' });
  });

  it('before the route starts, shows the two hours around a planned arrival (from an hour before), labelled in the company’s zone, and no note', () => {
    const planned = { ...base, phase: 'pending' as const, driverFirstName: null, position: null, travelSeconds: null, plannedArrivalAt: '2026-11-23T15:40:00-03:00' };
    const view = publicView(planned, now, 'en');
    expect(view.eta).toEqual({ from: '2026-11-23T17:40:00.000Z', to: '2026-11-23T19:40:00.000Z', label: '14:40 - 16:40' });
    expect(view).toMatchObject({ state: 'pending', etaNote: null, refreshSeconds: 120 });
    // Once moving, the planned arrival no longer counts: the 30-minute estimate from the position.
    expect(publicView({ ...base, plannedArrivalAt: '2026-11-23T15:40:00-03:00' }, now).eta).toEqual({ from: '2026-11-23T17:25:00.000Z', to: '2026-11-23T17:55:00.000Z', label: '14:25 - 14:55' });
  });

  it('never shows a planned window that has gone by when the route starts late: the part ahead, then a note', () => {
    const planned = { ...base, phase: 'pending' as const, driverFirstName: null, position: null, travelSeconds: null, plannedArrivalAt: '2026-11-23T15:40:00-03:00' };
    // Half an hour after the planned arrival: from now to the window's end.
    const inside = publicView(planned, new Date('2026-11-23T19:10:00.000Z'), 'en');
    expect(inside.eta).toEqual({ from: '2026-11-23T19:10:00.000Z', to: '2026-11-23T19:40:00.000Z', label: '16:10 - 16:40' });
    // Past its end, still not started: no window, and a note saying the time comes with the driver.
    const late = publicView(planned, new Date('2026-11-23T19:40:00.000Z'), 'es');
    expect(late).toMatchObject({ state: 'pending', eta: null, etaNote: 'Tu entrega viene con retraso; la hora estimada aparecerá cuando el conductor salga.' });
  });
});

describe('the planned window before the start (decisions 17)', () => {
  const planned = { ...base, phase: 'pending' as const, driverFirstName: null, position: null, travelSeconds: null, plannedArrivalAt: '2026-11-24T09:20:00-03:00' };

  it('shows the window the projection fitted inside the order’s, and names its day when the service date is not today', () => {
    const tomorrow = { ...planned, serviceDate: '2026-11-24', plannedWindow: { from: '2026-11-24T12:00:00.000Z', to: '2026-11-24T14:00:00.000Z' } };
    expect(publicView(tomorrow, now, 'es').eta).toEqual({ from: '2026-11-24T12:00:00.000Z', to: '2026-11-24T14:00:00.000Z', label: 'mar 24 nov, 09:00 - 11:00' });
    expect(publicView(tomorrow, now, 'en').eta?.label).toBe('Tue 24 Nov, 09:00 - 11:00');
    expect(trackingPage(tomorrow, base.token, now, 'es').html).toContain('mar 24 nov, 09:00 - 11:00');
  });

  it('names no day on the service date itself, and shows only the part still ahead', () => {
    const today = { ...planned, plannedArrivalAt: '2026-11-23T14:20:00-03:00', plannedWindow: { from: '2026-11-23T17:00:00.000Z', to: '2026-11-23T18:00:00.000Z' } };
    expect(publicView(today, new Date('2026-11-23T17:10:00.000Z'), 'es').eta).toEqual({ from: '2026-11-23T17:10:00.000Z', to: '2026-11-23T18:00:00.000Z', label: '14:10 - 15:00' });
    expect(publicView(today, new Date('2026-11-23T18:00:00.000Z'), 'es').eta).toBeNull();
  });
});

describe('the page and its helpers', () => {
  it('escapes what it shows and names no other host', () => {
    const { html } = trackingPage(base, base.token, now, 'es');
    expect(html).toContain('Comercial &lt;Los Andes&gt;');
    expect(html).not.toMatch(/https?:\/\//);
    expect(html).toContain('cada 30 segundos');
  });

  it('prefers English only when the client does', () => {
    expect(languageOf(undefined)).toBe('es');
    expect(languageOf('en-US,en;q=0.9')).toBe('en');
    expect(languageOf('es-CL,en;q=0.8')).toBe('es');
    expect(languageOf('de-DE,en;q=0.5,es;q=0.4')).toBe('en');
    expect(languageOf('fr')).toBe('es');
    expect(languageOf('en;q=0.2,es;q=0.9')).toBe('es');
  });

  it('rounds to about 100 m and keeps the relative position coarse', () => {
    expect(round3(-33.4567891)).toBe(-33.457);
    const destination = { latitude: -33.45, longitude: -70.66 };
    expect(relativeTo(destination, { latitude: -33.44, longitude: -70.66 })).toEqual({ direction: 0, band: 2 });
    expect(relativeTo(destination, { latitude: -33.45, longitude: -70.62 })).toEqual({ direction: 2, band: 3 });
    expect(relativeTo(destination, { latitude: -33.451, longitude: -70.66 })).toEqual({ direction: 4, band: 0 });
  });
});
