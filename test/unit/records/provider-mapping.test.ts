import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { decimalText, mapClient, mapStock, mapVariant } from '../../../functions/records/provider-mapping.ts';
import { PartyFields, StockLevelFields, VariantFields } from '../../../functions/records/record-schemas.ts';
import { normaliseRut, rutCheckDigit } from '../../../shared/chile/rut.ts';
import type { Client, Variant } from '../../../shared/ports/billing-provider/port.ts';

const variant = (over: Partial<Variant>): Variant => ({ id: '1', description: 'x', code: 'y', barCode: null, productId: null, active: true, version: null, ...over });
const client = (over: Partial<Client>): Client => ({ id: '1', firstName: null, lastName: null, company: null, code: null, email: null, phone: null, active: true, ...over });

describe('mapping the billing provider items to canonical records', () => {
  it('maps a variant: code is the sku, description the name, state 0 active, empty strings null', () => {
    const fields = mapVariant(variant({ id: '41', description: 'Manzana Fuji 1 kg', code: 'MZ-FUJI-1', barCode: '', productId: '7' }));
    expect(fields).toEqual({
      externalId: '41',
      sku: 'MZ-FUJI-1',
      name: 'Manzana Fuji 1 kg',
      unit: null,
      parentExternalId: '7',
      barCode: null,
      active: true,
      externalVersion: null,
      versionKind: 'local_observation',
    });
    expect(v.is(VariantFields, fields)).toBe(true);
    expect(mapVariant(variant({ active: false })).active).toBe(false);
  });

  it('keeps a sandbox version as a provider-monotonic one', () => {
    const fields = mapVariant(variant({ version: '12' }));
    expect(fields).toMatchObject({ externalVersion: '12', versionKind: 'provider_monotonic' });
  });

  it('maps a stock level to <variant>:<office> with decimal strings that never use an exponent', () => {
    const fields = mapStock({ quantity: 12.5, quantityReserved: 0, quantityAvailable: -1, variantId: '41', officeId: '2', version: null });
    expect(fields).toMatchObject({ externalId: '41:2', variantExternalId: '41', officeExternalId: '2', quantityPhysical: '12.5', quantityReserved: '0', quantityAvailable: '-1' });
    expect(v.is(StockLevelFields, fields)).toBe(true);
    expect(decimalText(1e21)).toBe('1000000000000000000000');
    expect(decimalText(1e-7)).toBe('0.0000001');
    // Seven decimals break the limit instead of being rounded into it.
    expect(v.is(StockLevelFields, mapStock({ quantity: 1e-7, quantityReserved: 0, quantityAvailable: 0, variantId: '1', officeId: '1', version: null }))).toBe(false);
  });

  it('maps a client: company first, else first and last name; a RUT normalised or null', () => {
    const fields = mapClient(client({ id: '9', firstName: 'Rosa', lastName: 'Díaz', company: '', code: '76.123.456-0' }), [
      { id: '3', firstName: 'Luis', lastName: '', email: 'luis@example.cl', phone: '' },
    ]);
    expect(fields).toEqual({
      externalId: '9',
      name: 'Rosa Díaz',
      taxId: '76123456-0',
      active: true,
      contacts: [{ externalId: '3', name: 'Luis', email: 'luis@example.cl', phone: null, externalVersion: null, versionKind: 'local_observation' }],
      externalVersion: null,
      versionKind: 'local_observation',
    });
    expect(v.is(PartyFields, fields)).toBe(true);
    expect(mapClient(client({ company: 'Frutas del Maule SpA', code: '76123456-1' }), [])).toMatchObject({ name: 'Frutas del Maule SpA', taxId: null });
  });

  it('refuses a party with more than 100 contacts', () => {
    const contacts = Array.from({ length: 101 }, (_, i) => ({ id: String(i + 1), firstName: `C${i}`, lastName: null, email: null, phone: null }));
    expect(v.is(PartyFields, mapClient(client({ company: 'X' }), contacts))).toBe(false);
    expect(v.is(PartyFields, mapClient(client({ company: 'X' }), contacts.slice(0, 100)))).toBe(true);
  });
});

describe('RUT', () => {
  it('computes the modulo-11 check digit, K and 0 included', () => {
    expect(rutCheckDigit('76123456')).toBe('0');
    expect(rutCheckDigit('11111111')).toBe('1');
    expect(rutCheckDigit('10000013')).toBe('K');
  });

  it('normalises the usual spellings and refuses a wrong check digit', () => {
    expect(normaliseRut('76.123.456-0')).toBe('76123456-0');
    expect(normaliseRut(' 10000013-k ')).toBe('10000013-K');
    expect(normaliseRut('100000130')).toBeNull();
    expect(normaliseRut('abc')).toBeNull();
    expect(normaliseRut('076123456-0')).toBeNull();
  });
});
