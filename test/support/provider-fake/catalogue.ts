import type { FakeCatalogue, FakeClient, FakeShippingType, FakeStock, FakeVariant } from './types.ts';

/** A small deterministic generator seeded by the company, so every run serves the same data. */
const seeded = (seed: string) => {
  let h = 2166136261;
  for (const c of seed) h = Math.imul(h ^ c.charCodeAt(0), 16777619);
  return () => {
    h = (h + 0x6d2b79f5) | 0;
    let t = Math.imul(h ^ (h >>> 15), 1 | h);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
};

/** The RUT check digit (modulo 11), to give demo clients valid codes. */
export const rutCheckDigit = (digits: number): string => {
  let sum = 0;
  let factor = 2;
  for (let n = digits; n > 0; n = Math.floor(n / 10)) {
    sum += (n % 10) * factor;
    factor = factor === 7 ? 2 : factor + 1;
  }
  const rest = 11 - (sum % 11);
  return rest === 11 ? '0' : rest === 10 ? 'K' : String(rest);
};

const ITEMS = ['Caja', 'Bolsa', 'Pallet', 'Sobre', 'Bidón', 'Saco', 'Rollo', 'Pack'];
const SIZES = ['chico', 'mediano', 'grande'];
const NAMES = ['Ana', 'Luis', 'María', 'Jorge', 'Camila', 'Pedro', 'Sofía', 'Diego'];
const SURNAMES = ['González', 'Muñoz', 'Rojas', 'Díaz', 'Pérez', 'Soto', 'Contreras', 'Silva'];

/** The provider's shipping types (its "Tipos de despacho" page), in its order, which is not by id. */
export const SHIPPING_TYPES: FakeShippingType[] = [
  { id: 3, name: 'Consignaciones', codeSii: '3', useDestinationOffice: 0, state: 0 },
  { id: 4, name: 'Entrega gratuita', codeSii: '4', useDestinationOffice: 0, state: 0 },
  { id: 7, name: 'Guía de devolución', codeSii: '7', useDestinationOffice: 0, state: 0 },
  { id: 1, name: 'Operación constituye venta', codeSii: '1', useDestinationOffice: 0, state: 0 },
  { id: 6, name: 'Otros traslados no venta', codeSii: '6', useDestinationOffice: 0, state: 0 },
  { id: 5, name: 'Traslados internos', codeSii: '5', useDestinationOffice: 1, state: 0 },
  { id: 8, name: 'Traslado para exportación. (no venta)', codeSii: '8', useDestinationOffice: 0, state: 0 },
  { id: 2, name: 'Ventas por efectuar', codeSii: '2', useDestinationOffice: 0, state: 0 },
  { id: 9, name: 'Venta para exportación', codeSii: '9', useDestinationOffice: 0, state: 1 },
];

export const VARIANT_COUNT = 60; // over one page of 50, so paging is always exercised
export const CLIENT_COUNT = 30;

/**
 * The catalogue a company gets unless the test gives its own: three active offices and one
 * closed, IVA and an inactive tax, the document types 33, 34, 39, 41, 52, 61, a non-electronic sales
 * note and an inactive 52, the provider's nine shipping types (9 inactive), 60 variants (3 per product, the last two inactive), stock of every
 * variant in the three active offices, and clients with contacts (some without a RUT, one with a
 * wrong check digit).
 */
export const defaultCatalogue = (clientCode: string): FakeCatalogue => {
  const random = seeded(clientCode);
  const int = (max: number) => Math.floor(random() * max);
  const variants: FakeVariant[] = Array.from({ length: VARIANT_COUNT }, (_, i) => {
    const id = i + 1;
    return {
      id,
      description: `${ITEMS[Math.floor(i / 3) % ITEMS.length]} ${SIZES[i % 3]} ${Math.floor(i / 24) + 1}`,
      code: `SKU-${String(id).padStart(4, '0')}`,
      barCode: i % 5 === 4 ? '' : `780${String(1000000000 + id * 7919).slice(0, 10)}`,
      state: id > VARIANT_COUNT - 2 ? 1 : 0,
      product: { id: 100 + Math.floor(i / 3) },
    };
  });
  const stocks: FakeStock[] = variants.flatMap((variant, i) =>
    [1, 2, 3].map((office, j) => {
      const quantity = int(200);
      const reserved = Math.min(quantity, int(10));
      return { id: i * 3 + j + 1, quantity, quantityReserved: reserved, quantityAvailable: quantity - reserved, variant: { id: variant.id }, office: { id: office } };
    }),
  );
  const clients: FakeClient[] = Array.from({ length: CLIENT_COUNT }, (_, i) => {
    const id = i + 1;
    const digits = 10_000_000 + ((int(15_000_000) + id) % 15_000_000);
    const isCompany = i % 3 === 0;
    const first = NAMES[i % NAMES.length];
    const last = SURNAMES[(i * 3) % SURNAMES.length];
    const code = i % 7 === 6 ? '' : i === 4 ? `${digits}-${rutCheckDigit(digits) === '1' ? '2' : '1'}` : `${digits}-${rutCheckDigit(digits)}`;
    return {
      id,
      firstName: isCompany ? '' : first,
      lastName: isCompany ? '' : last,
      company: isCompany ? `Comercial ${last} Ltda.` : '',
      code,
      email: `${first.toLowerCase().normalize('NFD').replace(/[^a-z]/g, '')}${id}@example.cl`,
      phone: i % 4 === 3 ? '' : `+5692${String(1000000 + id * 4391).slice(0, 7)}`,
      state: id === CLIENT_COUNT ? 1 : 0,
      contacts: isCompany
        ? [
            { id: id * 10 + 1, firstName: first, lastName: last, email: `contacto${id}@example.cl`, phone: '' },
            { id: id * 10 + 2, firstName: NAMES[(i + 1) % NAMES.length], lastName: SURNAMES[(i + 2) % SURNAMES.length], email: '', phone: '+56222000000' },
          ]
        : [],
    };
  });
  return {
    offices: [
      { id: 1, name: 'Casa Matriz', state: 0, address: 'Av. Providencia 1234', isVirtual: 0 },
      { id: 2, name: 'Bodega Norte', state: 0, address: 'Av. Américo Vespucio 500', isVirtual: 0 },
      { id: 3, name: 'Sucursal Sur', state: 0, address: 'Gran Avenida 8000', isVirtual: 0 },
      { id: 4, name: 'Local cerrado', state: 1, address: '', isVirtual: 0 },
    ],
    taxes: [
      { id: 1, name: 'IVA', percentage: '19.0', code: '14', state: 0, forRetention: 0 },
      { id: 2, name: 'ILA', percentage: '27.0', code: '24', state: 1, forRetention: 0 },
    ],
    documentTypes: [
      { id: 1, name: 'FACTURA ELECTRÓNICA', codeSii: '33', isElectronicDocument: 1, isCreditNote: 0, state: 0, useClient: 1 },
      { id: 2, name: 'FACTURA NO AFECTA O EXENTA ELECTRÓNICA', codeSii: '34', isElectronicDocument: 1, isCreditNote: 0, state: 0, useClient: 1 },
      { id: 3, name: 'BOLETA ELECTRÓNICA', codeSii: '39', isElectronicDocument: 1, isCreditNote: 0, state: 0, useClient: 0 },
      { id: 4, name: 'BOLETA EXENTA ELECTRÓNICA', codeSii: '41', isElectronicDocument: 1, isCreditNote: 0, state: 0, useClient: 0 },
      { id: 5, name: 'NOTA DE CRÉDITO ELECTRÓNICA', codeSii: '61', isElectronicDocument: 1, isCreditNote: 1, state: 0, useClient: 0 },
      { id: 6, name: 'NOTA DE VENTA', codeSii: '', isElectronicDocument: 0, isCreditNote: 0, state: 0, useClient: 0 },
      { id: 7, name: 'GUÍA DE DESPACHO ELECTRÓNICA', codeSii: '52', isElectronicDocument: 1, isCreditNote: 0, state: 1, useClient: 0 },
      { id: 8, name: 'GUÍA DE DESPACHO ELECTRÓNICA', codeSii: '52', isElectronicDocument: 1, isCreditNote: 0, state: 0, useClient: 0 },
    ],
    shippingTypes: SHIPPING_TYPES.map((t) => ({ ...t })),
    variants,
    stocks,
    clients,
  };
};
