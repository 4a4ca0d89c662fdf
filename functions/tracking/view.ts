import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { opsKeys } from '../../shared/table/keys-operations.ts';
import { table, tableName } from '../../shared/table/client.ts';
import { looksLikeToken } from '../orders/tracking-token.ts';
import type { TrackingState, TrackingView } from './schemas.ts';
import { LINK_LIFETIME_AFTER_CLOSE_SECONDS, POSITION_MAX_AGE_SECONDS, refreshSeconds } from './settings.ts';
import { localDate } from '../../shared/calendar.ts';
import { texts, type Lang } from './texts.ts';
import { toViewRecord, type ViewRecord } from './view-record.ts';

const FIVE_MINUTES = 5 * 60_000;
const WINDOW_MS = 30 * 60_000;
const HOUR_MS = 60 * 60_000;

/** The view of a live link, or undefined: unknown, malformed, or 7 days past its close. */
export const findView = async (token: string, now: Date): Promise<ViewRecord | undefined> => {
  if (!looksLikeToken(token)) return undefined;
  const { Item } = await table().send(new GetCommand({ TableName: tableName(), Key: opsKeys.trackingView(token) }));
  if (!Item) return undefined;
  const view = toViewRecord(Item);
  if (view.closedAt && now.getTime() >= Date.parse(view.closedAt) + LINK_LIFETIME_AFTER_CLOSE_SECONDS * 1000) return undefined;
  return view;
};

export const stateOf = (view: ViewRecord): TrackingState => {
  if (view.phase === 'moving') return (view.stopsBefore ?? 0) <= 1 ? 'arriving' : 'on_the_way';
  return view.phase === 'cancelled' ? 'failed' : view.phase;
};

/** The position, if it may be shown now: only while moving and at most 10 minutes old. */
export const visiblePosition = (view: ViewRecord, now: Date): ViewRecord['position'] =>
  view.phase === 'moving' && view.position && now.getTime() - Date.parse(view.position.recordedAt) <= POSITION_MAX_AGE_SECONDS * 1000 ? view.position : null;

export const clockLabel = (at: Date, timeZone: string, lang: Lang): string =>
  new Intl.DateTimeFormat(texts[lang].locale, { hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZone }).format(at);

export const dayLabel = (day: string, lang: Lang): string =>
  new Intl.DateTimeFormat(texts[lang].locale, { weekday: 'long', day: 'numeric', month: 'long', timeZone: 'UTC' }).format(new Date(`${day}T12:00:00Z`));

/** "sáb 29 nov" / "Sat 29 Nov": the day of an instant in the zone, short. */
export const shortDayLabel = (at: Date, timeZone: string, lang: Lang): string => {
  const parts = new Intl.DateTimeFormat(texts[lang].locale, { weekday: 'short', day: 'numeric', month: 'short', timeZone }).formatToParts(at);
  const part = (type: string) => (parts.find((p) => p.type === type)?.value ?? '').replace('.', '');
  return `${part('weekday')} ${part('day')} ${part('month')}`;
};

const windowOf = (from: number, to: number, timeZone: string, lang: Lang, withDay = false): NonNullable<TrackingView['eta']> => ({
  from: new Date(from).toISOString(),
  to: new Date(to).toISOString(),
  label: `${withDay ? `${shortDayLabel(new Date(from), timeZone, lang)}, ` : ''}${clockLabel(new Date(from), timeZone, lang)} - ${clockLabel(new Date(to), timeZone, lang)}`,
});

/**
 * Before the route starts, a stop planned by a preview: its window inside the order's (decisions
 * 17, built by the projection: planned-window.ts), or on a view built before that, two hours from
 * an hour before the planned arrival (decisions 15). A route that starts late must not show a
 * window that has gone by: its part still ahead, and none at all once it has ended (the note says
 * the time comes with the driver). The label names the day unless the service date is today.
 */
const plannedWindow = (view: ViewRecord, now: Date, lang: Lang) => {
  const planned = Date.parse(view.plannedArrivalAt!);
  const [from, to] = view.plannedWindow ? [Date.parse(view.plannedWindow.from), Date.parse(view.plannedWindow.to)] : [planned - HOUR_MS, planned + HOUR_MS];
  if (now.getTime() >= to) return null;
  return windowOf(Math.max(from, now.getTime()), to, view.timeZone, lang, view.serviceDate !== localDate(now, view.timeZone));
};

/**
 * The estimate runs from the last position; a driver behind it is expected from now on. The
 * window starts 10 minutes before the estimate on a 5-minute mark and lasts 30. When that mark
 * has already passed it starts at the read itself: a recipient shown "10:05 - 10:35" at 10:08
 * reads a window that began without them, and the next mark (10:10) would leave out a driver
 * due at 10:09.
 */
const etaOf = (view: ViewRecord, now: Date, lang: Lang): TrackingView['eta'] => {
  if (view.phase === 'pending' && view.plannedArrivalAt) return plannedWindow(view, now, lang);
  if (view.phase !== 'moving' || !view.position || view.travelSeconds === null) return null;
  const estimate = Math.max(now.getTime(), Date.parse(view.position.recordedAt) + view.travelSeconds * 1000);
  const from = Math.max(Math.floor((estimate - 2 * FIVE_MINUTES) / FIVE_MINUTES) * FIVE_MINUTES, now.getTime());
  return windowOf(from, from + WINDOW_MS, view.timeZone, lang);
};

const noteOf = (view: ViewRecord, eta: TrackingView['eta'], lang: Lang): string | null => {
  const t = texts[lang];
  if (view.phase === 'pending') return eta ? null : view.plannedArrivalAt ? t.plannedPassed : t.scheduled(dayLabel(view.serviceDate, lang));
  if (view.phase === 'moving') return eta ? null : t.awaitingPosition;
  if (view.phase === 'cancelled') return t.cancelled;
  return null;
};

/** The specification's view of a stored one at a given moment. */
export const publicView = (view: ViewRecord, now: Date, lang: Lang = 'es'): TrackingView => {
  const state = stateOf(view);
  const moving = view.phase === 'moving';
  const closed = view.closedAt !== null;
  const eta = etaOf(view, now, lang);
  const position = visiblePosition(view, now);
  return {
    company: { name: view.companyName },
    order: { reference: view.reference },
    state,
    eta,
    etaNote: noteOf(view, eta, lang),
    stopsBefore: closed ? null : view.stopsBefore,
    driver: moving && view.driverFirstName ? { firstName: view.driverFirstName } : null,
    approximatePosition: position ? { latitude: position.latitude, longitude: position.longitude, updatedAt: position.recordedAt } : null,
    closedAt: view.closedAt,
    dispatchGuideNumber: view.dispatchGuideNumber,
    refreshSeconds: refreshSeconds(closed ? 'closed' : moving ? 'moving' : 'pending'),
  };
};
