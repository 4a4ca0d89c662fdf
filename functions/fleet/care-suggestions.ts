import { isoDate } from '../../shared/calendar.ts';
import type { CareSuggestions } from './care-schemas.ts';
import type { Vehicle } from './schemas.ts';

/**
 * The month of the yearly technical review by the plate's last digit (MTT calendar for light
 * vehicles, DS 156/1990; see docs/vehicle-care.md). March and December have no digit.
 */
const reviewMonthByDigit: Record<string, number> = { '9': 1, '0': 2, '1': 4, '2': 5, '3': 6, '4': 7, '5': 8, '6': 9, '7': 10, '8': 11 };

/** Each rule's legal source, answered with every suggestion (docs/vehicle-care.md says what each holds). */
export const careSources: CareSuggestions['sources'] = {
  technicalReview: 'Decreto Supremo 156/1990 del Ministerio de Transportes y Telecomunicaciones (revisiones técnicas) y el calendario anual por último dígito de la placa patente del MTT',
  circulationPermit: 'Decreto Ley 3.063/1979, Ley de Rentas Municipales, artículo 12 (plazos del permiso de circulación)',
  soap: 'Ley 18.490 (seguro obligatorio de accidentes personales causados por vehículos motorizados)',
};

/** Day 0 of the next month is the last day of this one (month is 1-12). */
const lastDayOfMonth = (year: number, month: number): string => isoDate(new Date(Date.UTC(year, month, 0)));

/** The first of this year's or next year's date (given by month and last day) that is not past. */
const nextNotPast = (today: string, dateIn: (year: number) => string): string => {
  const year = Number(today.slice(0, 4));
  return dateIn(year) >= today ? dateIn(year) : dateIn(year + 1);
};

/** The same day `months` later, or that month's last day when it is shorter (Aug 31 + 6 = Feb 28/29). */
export const addMonthsClamped = (day: string, months: number): string => {
  const [year, month, date] = day.split('-').map(Number);
  const target = new Date(Date.UTC(year, month - 1 + months, 1));
  const last = lastDayOfMonth(target.getUTCFullYear(), target.getUTCMonth() + 1);
  return Number(last.slice(8)) < date ? last : `${last.slice(0, 8)}${String(date).padStart(2, '0')}`;
};

/** Decisions 11: trucks, buses and taxis every 6 months, and company vans of the Santiago region. */
export const reviewEveryMonths = (vehicle: Pick<Vehicle, 'class' | 'ownerKind' | 'region'>): 6 | 12 =>
  vehicle.class === 'cargo' || vehicle.class === 'passenger' || (vehicle.class === 'van' && vehicle.ownerKind === 'company' && vehicle.region === 'CL-RM') ? 6 : 12;

/** Permit months by class: cars and vans March, buses and taxis May, trucks September. */
const permitMonth: Record<Vehicle['class'], number> = { car: 3, van: 3, passenger: 5, cargo: 9 };

/**
 * Dates from Chilean rules for the tenant to confirm (decisions 11). A 6-monthly review follows
 * the recorded one, once, even when that is past: the plate calendar does not apply to it, and
 * only the tenant knows when the vehicle last passed.
 */
export const suggestCare = (vehicle: Pick<Vehicle, 'plate' | 'class' | 'ownerKind' | 'region'>, recordedReview: string | null, today: string): CareSuggestions => {
  const every = reviewEveryMonths(vehicle);
  const month = reviewMonthByDigit[vehicle.plate.slice(-1)];
  const yearly = month ? nextNotPast(today, (year) => lastDayOfMonth(year, month)) : null;
  const light = vehicle.class === 'car' || vehicle.class === 'van';
  return {
    technicalReview: every === 6 ? (recordedReview ? addMonthsClamped(recordedReview, 6) : null) : yearly,
    circulationPermit: nextNotPast(today, (year) => lastDayOfMonth(year, permitMonth[vehicle.class])),
    soap: light ? nextNotPast(today, (year) => `${year}-03-31`) : null,
    technicalReviewEveryMonths: every,
    sources: careSources,
  };
};
