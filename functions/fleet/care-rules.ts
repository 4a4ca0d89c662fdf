import { addDaysTo, daysBetween, localDate } from '../../shared/calendar.ts';
import { dateText, kmText } from './care-texts.ts';
import {
  CARE_RULES_VERSION,
  dueKinds,
  ODOMETER_MIN_READINGS,
  ODOMETER_WINDOW_DAYS,
  SOON_DAYS,
  SOON_KM,
  type CareList,
  type CareVehicle,
  type DueItem,
  type DueKind,
} from './care-schemas.ts';

const status = (left: number): DueItem['status'] => (left < 0 ? 'expired' : left === 0 ? 'today' : 'soon');

const dateItem = (vehicle: CareVehicle, item: Exclude<DueKind, 'service_km'>, date: string | null, today: string): DueItem | undefined => {
  if (!date) return undefined;
  const daysLeft = daysBetween(today, date);
  if (daysLeft > SOON_DAYS) return undefined;
  const s = status(daysLeft);
  return { vehicleId: vehicle.vehicleId, label: vehicle.label, item, date, daysLeft, status: s, km: null, text: dateText(item, vehicle.label, date, daysLeft), attention: s !== 'soon' };
};

/**
 * The first day on which lastKm + floor(dailyKm × days) reaches dueKm, counted from the last
 * reading's day (dailyKm > 0). Worked out, not counted up to: the quotient can land a hair either
 * side of a whole day in floating point, so the days around it are tried in order.
 */
const daysToReach = (needKm: number, dailyKm: number): number => {
  const guess = Math.max(0, Math.ceil(needKm / dailyKm));
  return [guess - 1, guess].find((days) => days >= 0 && Math.floor(dailyKm * days) >= needKm) ?? guess + 1;
};

/**
 * `service_km`: the odometer projected to today from the last reading at the 90-day average.
 * Listed within 1,000 km of serviceKm; dated the day the projection reaches it (today once past).
 * Without an average (none, or one of 0 or less) it stands on the last reading and is dated
 * today; then, and when there is no reading at all, the list says kmLimited.
 */
const kmItem = (vehicle: CareVehicle, today: string, timeZone: string): { item?: DueItem; limited: boolean } => {
  const dueKm = vehicle.care?.serviceKm;
  if (!dueKm) return { limited: false };
  const odometer = vehicle.odometer;
  if (!odometer) return { limited: true };
  const { lastKm } = odometer;
  // A vehicle that did not move (or readings stored out of order) never projects forward: no average.
  const dailyKm = odometer.dailyKm !== null && odometer.dailyKm > 0 ? odometer.dailyKm : null;
  const lastDay = localDate(new Date(odometer.lastReadAt), timeZone);
  const elapsed = Math.max(0, daysBetween(lastDay, today));
  const estimatedKm = dailyKm === null ? lastKm : lastKm + Math.floor(dailyKm * elapsed);
  const leftKm = dueKm - estimatedKm;
  if (leftKm > SOON_KM) return { limited: dailyKm === null };
  const date = leftKm <= 0 || dailyKm === null ? today : addDaysTo(lastDay, daysToReach(dueKm - lastKm, dailyKm));
  const daysLeft = daysBetween(today, date);
  const km = { dueKm, estimatedKm, leftKm };
  const s = status(leftKm);
  const item: DueItem = { vehicleId: vehicle.vehicleId, label: vehicle.label, item: 'service_km', date, daysLeft, status: s, km, text: kmText(vehicle.label, km, dailyKm === null), attention: s !== 'soon' };
  return { item, limited: dailyKm === null };
};

/** A vehicle's due items on a given day (none for an inactive vehicle) and whether its km item lacks data. */
export const dueItemsOf = (vehicle: CareVehicle, today: string, timeZone: string): { items: DueItem[]; limited: boolean } => {
  if (!vehicle.active || !vehicle.care) return { items: [], limited: false };
  const care = vehicle.care;
  const km = kmItem(vehicle, today, timeZone);
  const items = [
    dateItem(vehicle, 'technical_review', care.technicalReview, today),
    dateItem(vehicle, 'circulation_permit', care.circulationPermit, today),
    dateItem(vehicle, 'soap', care.soap, today),
    dateItem(vehicle, 'service', care.service, today),
    km.item,
  ].filter((item): item is DueItem => item !== undefined);
  return { items, limited: km.limited };
};

const labels = new Intl.Collator('es', { sensitivity: 'base', numeric: true });

/**
 * By daysLeft, then label as people sort it ("Camión 9" before "camión 10"), then kind. Labels
 * are ranked once per vehicle: collating 5,000 items' labels pairwise costs ten times more.
 */
const byUrgency = (vehicles: CareVehicle[]) => {
  const rank = new Map([...vehicles].sort((a, b) => labels.compare(a.label, b.label) || (a.vehicleId < b.vehicleId ? -1 : 1)).map((v, i) => [v.vehicleId, i]));
  return (a: DueItem, b: DueItem): number => a.daysLeft - b.daysLeft || rank.get(a.vehicleId)! - rank.get(b.vehicleId)! || dueKinds.indexOf(a.item) - dueKinds.indexOf(b.item);
};

export const rules = (timeZone: string): CareList['rules'] => ({
  version: CARE_RULES_VERSION,
  items: dueKinds.join(','),
  soon: `a date within ${SOON_DAYS} days; service_km within ${SOON_KM} km of serviceKm, projected at the ${ODOMETER_WINDOW_DAYS}-day average`,
  today: `the date in ${timeZone}`,
});

/**
 * The care list of decisions 11: every vehicle, and the due items of the active ones ordered by
 * daysLeft then label. Five kinds per vehicle keep 1,000 vehicles within 5,000 items.
 */
export const careList = (vehicles: CareVehicle[], today: string, timeZone: string): CareList => {
  const due: DueItem[] = [];
  let kmLimited = false;
  for (const vehicle of vehicles) {
    const { items, limited } = dueItemsOf(vehicle, today, timeZone);
    due.push(...items);
    kmLimited ||= limited;
  }
  return {
    today,
    vehicles,
    due: due.sort(byUrgency(vehicles)),
    kmLimited,
    rules: rules(timeZone),
    odometerRules: { windowDays: ODOMETER_WINDOW_DAYS, minReadings: ODOMETER_MIN_READINGS },
  };
};
