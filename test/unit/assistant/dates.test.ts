import { describe, expect, it } from 'vitest';
import { findDate } from '../../../functions/assistant/classifier/dates.ts';

const zone = 'America/Santiago';
// Sunday 22 November 2026, noon in Santiago (UTC-3 in summer).
const sundayNoon = new Date('2026-11-22T15:00:00Z');
const at = (text: string, now = sundayNoon, tz = zone) => findDate(text, now, tz);

describe('findDate', () => {
  it('uses the local calendar date, not the UTC one', () => {
    // 02:30 UTC on the 22nd is still 23:30 on the 21st in Santiago.
    const lateSaturday = new Date('2026-11-22T02:30:00Z');
    expect(at('hoy', lateSaturday)).toBe('2026-11-21');
    expect(at('ayer', lateSaturday)).toBe('2026-11-20');
    expect(at('today', lateSaturday, 'UTC')).toBe('2026-11-22');
    expect(at('hoy', new Date('2026-11-22T03:00:00Z'))).toBe('2026-11-22');
  });

  it('crosses month and year boundaries', () => {
    expect(at('ayer', new Date('2026-12-01T12:00:00Z'))).toBe('2026-11-30');
    expect(at('anteayer', new Date('2026-03-01T12:00:00Z'))).toBe('2026-02-27');
    expect(at('yesterday', new Date('2027-01-01T12:00:00Z'))).toBe('2026-12-31');
    expect(at('mañana', new Date('2026-12-31T12:00:00Z'))).toBe('2027-01-01');
  });

  it('reads relative words in both languages', () => {
    expect(at('¿qué hizo hoy?')).toBe('2026-11-22');
    expect(at('day before yesterday')).toBe('2026-11-20');
    expect(at('antier')).toBe('2026-11-20');
    expect(at('antes de ayer')).toBe('2026-11-20');
    expect(at('tomorrow')).toBe('2026-11-23');
    expect(at('pasado mañana')).toBe('2026-11-24');
    expect(at('anoche')).toBe('2026-11-21');
    expect(at('hace 3 días')).toBe('2026-11-19');
    expect(at('two days ago')).toBe('2026-11-20');
  });

  it('treats "mañana" as a time of day after la/en/por and "esta mañana" as today', () => {
    expect(at('esta mañana')).toBe('2026-11-22');
    expect(at('ayer en la mañana')).toBe('2026-11-21');
    expect(at('por la mañana')).toBeNull();
  });

  it('takes a bare weekday as the latest one before today', () => {
    expect(at('el lunes')).toBe('2026-11-16');
    expect(at('el sábado')).toBe('2026-11-21');
    expect(at('el domingo')).toBe('2026-11-15');
    expect(at('last friday')).toBe('2026-11-20');
    expect(at('el martes pasado')).toBe('2026-11-17');
    expect(at('on Wednesday')).toBe('2026-11-18');
  });

  it('reads "este" as the current Monday-based week and "próximo" as the next one', () => {
    expect(at('este lunes')).toBe('2026-11-16');
    expect(at('este domingo')).toBe('2026-11-22');
    expect(at('el próximo lunes')).toBe('2026-11-23');
    expect(at('next sunday')).toBe('2026-11-29');
    expect(at('el viernes que viene')).toBe('2026-11-27');
    // Wednesday 18th: "este viernes" is two days ahead.
    expect(at('este viernes', new Date('2026-11-18T15:00:00Z'))).toBe('2026-11-20');
  });

  it('reads day and month in Spanish and English word orders', () => {
    expect(at('el 3 de marzo')).toBe('2026-03-03');
    expect(at('3 marzo')).toBe('2026-03-03');
    expect(at('marzo 3')).toBe('2026-03-03');
    expect(at('March 3')).toBe('2026-03-03');
    expect(at('the 3rd of March')).toBe('2026-03-03');
    expect(at('1º de mayo')).toBe('2026-05-01');
    expect(at('primero de noviembre')).toBe('2026-11-01');
    expect(at('3 de marzo de 2024')).toBe('2024-03-03');
    expect(at('March 3rd, 2025')).toBe('2025-03-03');
  });

  it('moves a year-less future date back to the previous year', () => {
    expect(at('25 de diciembre')).toBe('2025-12-25');
    expect(at('22 de noviembre')).toBe('2026-11-22');
    expect(at('23 de noviembre')).toBe('2025-11-23');
    expect(at('29 de febrero')).toBe('2024-02-29');
  });

  it('reads "el 15" as a day of this month, or of the previous one when ahead', () => {
    expect(at('el 15')).toBe('2026-11-15');
    expect(at('el día 22')).toBe('2026-11-22');
    expect(at('el 30')).toBe('2026-10-30');
    expect(at('on the 31st')).toBe('2026-10-31');
    expect(at('el 31', new Date('2026-12-15T15:00:00Z'))).toBe('2026-10-31');
  });

  it('does not read quantities as days', () => {
    expect(at('iba a más de 100 km/h')).toBeNull();
    expect(at('cargó el 15 litros')).toBeNull();
    expect(at('velocidad de 90')).toBeNull();
  });

  it('reads numeric dates day first', () => {
    expect(at('2026-11-20')).toBe('2026-11-20');
    expect(at('20/11/2026')).toBe('2026-11-20');
    expect(at('20-11-2026')).toBe('2026-11-20');
    expect(at('20.11.2026')).toBe('2026-11-20');
    expect(at('5/3/26')).toBe('2026-03-05');
    expect(at('20/11')).toBe('2026-11-20');
    expect(at('25/12')).toBe('2025-12-25');
  });

  it('rejects impossible dates', () => {
    expect(at('31/11/2026')).toBeNull();
    expect(at('2026-13-01')).toBeNull();
    expect(at('el 32')).toBeNull();
  });

  it('prefers the most explicit expression when several appear', () => {
    expect(at('hoy, o sea el 20/11/2026')).toBe('2026-11-20');
    expect(at('el lunes 3 de marzo')).toBe('2026-03-03');
    expect(at('ayer lunes')).toBe('2026-11-21');
  });

  it('returns null without date words', () => {
    expect(at('¿dónde está el camión?')).toBeNull();
    expect(at('resumen de la semana')).toBeNull();
    expect(at('el mes pasado')).toBeNull();
    expect(at('')).toBeNull();
  });

  it('rejects an unknown time zone loudly', () => {
    expect(() => at('hoy', sundayNoon, 'Mars/Olympus')).toThrow(RangeError);
  });
});
