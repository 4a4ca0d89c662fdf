import { isoDate } from '../../shared/calendar.ts';
import type { CareSuggestions } from './care-schemas.ts';

/**
 * The month of the yearly technical review by the plate's last digit (MTT calendar for light
 * vehicles, DS 156/1990; see docs/vehicle-care.md). March and December have no digit.
 */
const reviewMonthByDigit: Record<string, number> = { '9': 1, '0': 2, '1': 4, '2': 5, '3': 6, '4': 7, '5': 8, '6': 9, '7': 10, '8': 11 };

/** Day 0 of the next month is the last day of this one (month is 1-12). */
const lastDayOfMonth = (year: number, month: number): string => isoDate(new Date(Date.UTC(year, month, 0)));

/** The first of this year's or next year's date (given by month and last day) that is not past. */
const nextNotPast = (today: string, dateIn: (year: number) => string): string => {
  const year = Number(today.slice(0, 4));
  return dateIn(year) >= today ? dateIn(year) : dateIn(year + 1);
};

/**
 * Dates from Chilean rules for the tenant to confirm: the technical review by the end of the
 * plate digit's month; the circulation permit (DL 3.063) and SOAP (Ley 18.490) by March 31.
 */
export const suggestCare = (plate: string, today: string): CareSuggestions => {
  const month = reviewMonthByDigit[plate.slice(-1)];
  const march31 = nextNotPast(today, (year) => `${year}-03-31`);
  return {
    technicalReview: month ? nextNotPast(today, (year) => lastDayOfMonth(year, month)) : null,
    circulationPermit: march31,
    soap: march31,
  };
};
