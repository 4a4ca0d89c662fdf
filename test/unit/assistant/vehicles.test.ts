import { describe, expect, it } from 'vitest';
import { classifyQuestion } from '../../../functions/assistant/classifier/index.ts';
import type { KnownVehicle } from '../../../functions/assistant/classifier/index.ts';
import { findVehicle, mentionsUnknownPlate, vehicleTokens } from '../../../functions/assistant/classifier/vehicles.ts';

const fleet: KnownVehicle[] = [
  { id: 'c1', plate: 'BBCC12', label: 'Camión 1', active: true },
  { id: 'c12', plate: 'AB1234', label: 'Camión 12', active: true },
  { id: 'norte', plate: 'KX-LP-45', label: 'Furgón Norte', active: true },
  { id: 'old3', plate: 'ZZYY99', label: 'Camión 3', active: false },
  { id: 'new3', plate: 'PRTS21', label: 'Camión 3', active: true },
  { id: 'retired', plate: 'GGHH55', label: 'Camioneta Vieja', active: false },
];

const find = (text: string, vehicles = fleet) => findVehicle(vehicleTokens(text), vehicles)?.id ?? null;

describe('findVehicle', () => {
  it('matches plates written with any spacing, separators or case', () => {
    for (const text of ['BBCC12', 'bbcc12', 'BB-CC-12', 'bb cc 12', 'bbcc 12', 'BB.CC.12', 'b b c c 1 2', 'patente: BB CC-12']) {
      expect(find(`dónde está ${text}?`), text).toBe('c1');
    }
    expect(find('ab 12 34')).toBe('c12');
    expect(find('kxlp45')).toBe('norte');
  });

  it('matches labels without accents, in any case, glued or with Nº', () => {
    expect(find('camion 1')).toBe('c1');
    expect(find('CAMIÓN 1')).toBe('c1');
    expect(find('camion1')).toBe('c1');
    expect(find('camión nº 12')).toBe('c12');
    expect(find('el furgon norte')).toBe('norte');
    expect(find('truck 12')).toBe('c12');
    expect(find('the van norte')).toBe('norte');
  });

  it('does not take "camión 12" for "Camión 1"', () => {
    expect(find('paradas del camión 12')).toBe('c12');
    expect(find('paradas del camión 12', fleet.filter((v) => v.id !== 'c12'))).toBeNull();
    expect(find('camión 1')).toBe('c1');
  });

  it('tolerates one typo in a long label word but never in its number', () => {
    expect(find('furgon nortte')).toBe('norte');
    expect(find('furgn norte')).toBe('norte');
    expect(find('camion 13')).toBeNull();
  });

  it('prefers the active vehicle when a label is shared', () => {
    expect(find('camión 3')).toBe('new3');
    expect(find('camión 3', [...fleet].reverse())).toBe('new3');
  });

  it('still finds an inactive vehicle named alone, and trusts an explicit plate', () => {
    expect(find('camioneta vieja')).toBe('retired');
    expect(find('camión 3 zzyy99')).toBe('old3');
  });

  it('takes the longest label when several are named', () => {
    expect(find('camión 1 y camión 12')).toBe('c12');
  });

  it('returns null when nothing matches', () => {
    expect(find('¿dónde está el camión 4?')).toBeNull();
    expect(find('patente XXYY00')).toBeNull();
    expect(find('bbcc1')).toBeNull();
    expect(find('')).toBeNull();
    expect(find('hola', [])).toBeNull();
  });
});

describe('classifyQuestion with vehicles', () => {
  const ctx = { vehicles: fleet, timeZone: 'America/Santiago', now: new Date('2026-11-22T15:00:00Z') };

  it('keeps label numbers out of the date', () => {
    expect(classifyQuestion('stops truck 1 march 3', ctx)).toEqual({ question: 'stops', vehicleId: 'c1', date: '2026-03-03' });
    expect(classifyQuestion('where is truck 12 on the 15th', ctx)).toEqual({ question: 'where', vehicleId: 'c12', date: '2026-11-15' });
  });

  it('does not let label words vote for a kind', () => {
    const speedy: KnownVehicle[] = [{ id: 'r', plate: 'RRSS11', label: 'Camión Rápido', active: true }];
    expect(classifyQuestion('¿dónde está el camión rápido?', { ...ctx, vehicles: speedy }))
      .toEqual({ question: 'where', vehicleId: 'r', date: null });
  });
});

describe('a plate the tenant does not have', () => {
  it('still makes a vehicle question, with no vehicle id', () => {
    const ctx = { vehicles: [], timeZone: 'America/Santiago', now: new Date('2026-11-22T15:00:00Z') };
    expect(classifyQuestion('dónde está GHJK77', ctx)).toEqual({ question: 'where', vehicleId: null, date: null });
    expect(classifyQuestion('where is ab-1234', ctx)).toEqual({ question: 'where', vehicleId: null, date: null });
    expect(mentionsUnknownPlate(vehicleTokens('cuántos km 2024'))).toBe(false);
    expect(classifyQuestion('dónde está', ctx).question).toBeNull();
  });
});
