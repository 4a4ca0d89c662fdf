import { describe, expect, it } from 'vitest';
import { plannedWindowOf } from '../../../functions/tracking/planned-window.ts';

// 2026-11-23 in Santiago is summer time, UTC-3.
const DAY = '2026-11-23';
const at = (clock: string) => `${DAY}T${clock}:00-03:00`;
const utc = (clock: string) => new Date(at(clock)).toISOString();
const window = (arrival: string, windows: [string, string][]) => plannedWindowOf(at(arrival), windows.map(([from, to]) => ({ from, to })), DAY, 'America/Santiago');

describe('the planned window before the start (decisions 17)', () => {
  it('is the two hours around the planned arrival for an order without windows', () => {
    expect(window('15:40', [])).toEqual({ from: utc('14:40'), to: utc('16:40') });
  });

  it('is shifted to open no earlier than the order’s window opens', () => {
    expect(window('09:20', [['09:00', '18:00']])).toEqual({ from: utc('09:00'), to: utc('11:00') });
  });

  it('is shifted to close no later than the order’s window closes', () => {
    expect(window('11:30', [['09:00', '12:00']])).toEqual({ from: utc('10:00'), to: utc('12:00') });
  });

  it('is the whole order window when that is shorter than two hours, and when shorter than 30 minutes', () => {
    expect(window('10:15', [['10:00', '11:00']])).toEqual({ from: utc('10:00'), to: utc('11:00') });
    expect(window('09:00', [['10:00', '10:20']])).toEqual({ from: utc('10:00'), to: utc('10:20') });
  });

  it('runs around the planned start of service when the vehicle arrives early and waits', () => {
    expect(window('12:30', [['14:00', '18:00']])).toEqual({ from: utc('14:00'), to: utc('16:00') });
  });

  it('lies inside the window the stop is served in, the second one when the first has closed', () => {
    expect(window('12:00', [['09:00', '10:00'], ['15:00', '18:00']])).toEqual({ from: utc('15:00'), to: utc('17:00') });
    expect(window('16:30', [['09:00', '10:00'], ['15:00', '18:00']])).toEqual({ from: utc('15:30'), to: utc('17:30') });
  });

  it('keeps the two hours around the arrival for a stop planned after its windows closed', () => {
    expect(window('11:00', [['09:00', '10:00']])).toEqual({ from: utc('10:00'), to: utc('12:00') });
  });
});
