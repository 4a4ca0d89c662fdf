import { describe, expect, it } from 'vitest';
import { closestWords, editDistance } from '../../../functions/assistant/classifier/fuzzy.ts';
import { fold, normalise, splitAlnum, tokenize } from '../../../functions/assistant/classifier/normalise.ts';

describe('normalise', () => {
  it('lower-cases, strips accents and inverted marks, collapses punctuation', () => {
    expect(normalise('¿Dónde está el CAMIÓN, ahora?!')).toBe('donde esta el camion ahora');
    expect(normalise('¡Mantención   pendiente!')).toBe('mantencion pendiente');
    expect(normalise('Ñandú pingüino')).toBe('nandu pinguino');
  });

  it('turns ordinal marks into letters and keeps digits', () => {
    expect(normalise('Camión Nº 3')).toBe('camion no 3');
    expect(normalise('km/h')).toBe('km h');
  });

  it('gives no tokens for blank or punctuation-only text', () => {
    expect(tokenize('')).toEqual([]);
    expect(tokenize('  ¿?¡! ... ')).toEqual([]);
  });

  it('fold keeps date separators', () => {
    expect(fold('El 20/11/2026')).toBe('el 20/11/2026');
  });

  it('splits letters from digits so glued labels and plates can be found', () => {
    expect(splitAlnum(['camion12', 'bbcc12', 'hoy'])).toEqual(['camion', '12', 'bbcc', '12', 'hoy']);
  });
});

describe('fuzzy matching', () => {
  it('counts a transposition as one edit', () => {
    expect(editDistance('ubicaicon', 'ubicacion')).toBe(1);
    expect(editDistance('semna', 'semana')).toBe(1);
    expect(editDistance('conbustible', 'combustible')).toBe(1);
    expect(editDistance('abc', 'xyz')).toBe(3);
  });

  it('allows one edit from 5 letters and two from 8', () => {
    const vocabulary = ['velocidad', 'semana', 'kilometros', 'mantencion'];
    expect(closestWords('velosidad', vocabulary)).toEqual(['velocidad']);
    expect(closestWords('semna', vocabulary)).toEqual(['semana']);
    expect(closestWords('kilomteros', vocabulary)).toEqual(['kilometros']);
    expect(closestWords('mantensoin', vocabulary)).toEqual(['mantencion']);
    expect(closestWords('sxmnaa', vocabulary)).toEqual([]);
  });

  it('never corrects short words or numbers', () => {
    expect(closestWords('mez', ['mes'])).toEqual([]);
    expect(closestWords('123456', ['123457'])).toEqual([]);
  });
});
