import { describe, expect, it } from 'vitest';
import { normaliseRut } from '../../../shared/chile/rut.ts';

describe('RUT', () => {
  it('accepts dots, spaces, an optional hyphen and k, and answers digits-hyphen-check', () => {
    expect(normaliseRut('76.086.428-5')).toBe('76086428-5');
    expect(normaliseRut(' 76 086 428 5 ')).toBe('76086428-5');
    expect(normaliseRut('10.000.013-k')).toBe('10000013-K');
    expect(normaliseRut('10000004-0')).toBe('10000004-0');
    expect(normaliseRut('1-9')).toBe('1-9');
  });

  it('refuses a wrong check digit, a leading zero, too many digits and letters', () => {
    for (const bad of ['76.086.428-4', '076086428-5', '1234567890-1', 'K-1', 'abc-5', '']) expect(normaliseRut(bad), bad).toBeNull();
  });
});
