import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { rutCheckDigit } from '../../chile/rut.ts';

/**
 * The sandbox's company data, in the provider's own JSON shapes (provider-chile.md), so that a
 * file in SANDBOX_PROVIDER_DATA_DIR and the generated data are read by the same code.
 */
export interface SandboxData {
  clientName?: string;
  offices: Record<string, unknown>[];
  taxes: Record<string, unknown>[];
  documentTypes: Record<string, unknown>[];
  shippingTypes: Record<string, unknown>[];
  variants: Record<string, unknown>[];
  stocks: Record<string, unknown>[];
  clients: Array<Record<string, unknown> & { contacts?: Record<string, unknown>[] }>;
}

/** A small seeded generator (mulberry32): the same clientCode always yields the same company. */
const generator = (seedText: string) => {
  let seed = createHash('sha256').update(seedText).digest().readUInt32LE(0);
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
};

const PRODUCTS = ['Harina', 'Aceite', 'Arroz', 'Azúcar', 'Fideos', 'Leche', 'Café', 'Té', 'Detergente', 'Jabón', 'Galletas', 'Atún', 'Porotos', 'Lentejas', 'Sal'];
const SIZES = ['250 g', '500 g', '1 kg', '5 kg', '1 L', '3 L', 'pack 6', 'caja 12', 'display 24', 'saco 25 kg'];
const FIRST = ['María', 'José', 'Camila', 'Pedro', 'Valentina', 'Diego', 'Fernanda', 'Matías', 'Rosa', 'Tomás'];
const LAST = ['González', 'Muñoz', 'Rojas', 'Díaz', 'Pérez', 'Soto', 'Contreras', 'Silva', 'Martínez', 'Sepúlveda'];
const TRADES = ['Almacén', 'Minimarket', 'Botillería', 'Panadería', 'Restaurante', 'Distribuidora'];

/** A valid RUT for a body number, so generated clients carry real-looking codes. */
const rutOf = (body: number): string => `${body}-${rutCheckDigit(String(body))}`;

export const VARIANT_COUNT = 300;
export const CLIENT_COUNT = 40;

/**
 * The SII's reasons for a transfer, as the provider lists them (its "Tipos de despacho" page): the
 * same for every company, so a data file without `shippingTypes` gets these.
 */
export const SHIPPING_TYPES: Record<string, unknown>[] = [
  { id: 1, name: 'Operación constituye venta', codeSii: '1', useDestinationOffice: 0, state: 0 },
  { id: 2, name: 'Ventas por efectuar', codeSii: '2', useDestinationOffice: 0, state: 0 },
  { id: 3, name: 'Consignaciones', codeSii: '3', useDestinationOffice: 0, state: 0 },
  { id: 4, name: 'Entrega gratuita', codeSii: '4', useDestinationOffice: 0, state: 0 },
  { id: 5, name: 'Traslados internos', codeSii: '5', useDestinationOffice: 1, state: 0 },
  { id: 6, name: 'Otros traslados no venta', codeSii: '6', useDestinationOffice: 0, state: 0 },
  { id: 7, name: 'Guía de devolución', codeSii: '7', useDestinationOffice: 0, state: 0 },
  { id: 8, name: 'Traslado para exportación. (no venta)', codeSii: '8', useDestinationOffice: 0, state: 0 },
  { id: 9, name: 'Venta para exportación', codeSii: '9', useDestinationOffice: 0, state: 0 },
];

/** The usual company: three offices, VAT, the six electronic document types (52 the dispatch guide), a paper one, the shipping types. */
export const generatedData = (clientCode: string): SandboxData => {
  const random = generator(clientCode);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const offices = [
    { id: 1, name: 'Casa Matriz', state: 0 },
    { id: 2, name: 'Sucursal Quilicura', state: 0 },
    { id: 3, name: 'Bodega Puerto Montt', state: 0 },
    { id: 4, name: 'Sucursal cerrada', state: 1 },
  ];
  const taxes = [
    { id: 1, name: 'IVA', percentage: '19.0', code: 'IVA', state: 0 },
    { id: 2, name: 'ILA bebidas', percentage: '10.0', code: 'ILA10', state: 0 },
  ];
  const documentTypes = [
    { id: 1, name: 'FACTURA ELECTRÓNICA', codeSii: '33', isElectronicDocument: 1, isCreditNote: 0, state: 0 },
    { id: 2, name: 'FACTURA NO AFECTA O EXENTA ELECTRÓNICA', codeSii: '34', isElectronicDocument: 1, isCreditNote: 0, state: 0 },
    { id: 3, name: 'BOLETA ELECTRÓNICA', codeSii: '39', isElectronicDocument: 1, isCreditNote: 0, state: 0 },
    { id: 4, name: 'BOLETA EXENTA ELECTRÓNICA', codeSii: '41', isElectronicDocument: 1, isCreditNote: 0, state: 0 },
    { id: 5, name: 'NOTA DE CRÉDITO ELECTRÓNICA', codeSii: '61', isElectronicDocument: 1, isCreditNote: 1, state: 0 },
    { id: 6, name: 'NOTA DE VENTA', codeSii: '', isElectronicDocument: 0, isCreditNote: 0, state: 0 },
    { id: 7, name: 'GUÍA DE DESPACHO ELECTRÓNICA', codeSii: '52', isElectronicDocument: 1, isCreditNote: 0, state: 0 },
  ];
  const variants = Array.from({ length: VARIANT_COUNT }, (_, i) => {
    const id = 1000 + i;
    return {
      id,
      description: `${pick(PRODUCTS)} ${pick(SIZES)}`,
      code: `SKU-${String(id).padStart(5, '0')}`,
      barCode: String(7800000000000 + Math.floor(random() * 99_999_999)),
      state: random() < 0.05 ? 1 : 0,
      product: { id: String(100 + Math.floor(i / 3)) },
      version: String(1 + Math.floor(random() * 5)),
    };
  });
  const stocks = variants.flatMap((variant) =>
    offices.slice(0, 3).map((office) => {
      const quantity = Math.floor(random() * 500);
      const reserved = Math.floor(random() * Math.min(quantity, 20));
      return { quantity, quantityReserved: reserved, quantityAvailable: quantity - reserved, variant: { id: String(variant.id) }, office: { id: String(office.id) }, version: variant.version };
    }),
  );
  const clients = Array.from({ length: CLIENT_COUNT }, (_, i) => {
    const id = 500 + i;
    const firstName = pick(FIRST);
    const lastName = pick(LAST);
    const company = i % 3 === 0 ? '' : `${pick(TRADES)} ${lastName}`;
    return {
      id,
      firstName,
      lastName,
      company,
      code: i % 10 === 9 ? '' : rutOf(10_000_000 + Math.floor(random() * 15_000_000)),
      email: `${firstName.toLowerCase().normalize('NFD').replace(/[^a-z]/g, '')}${id}@example.cl`,
      phone: `+5699${String(Math.floor(random() * 10_000_000)).padStart(7, '0')}`,
      state: i % 13 === 12 ? 1 : 0,
      contacts: Array.from({ length: i % 3 }, (_, c) => ({
        id: id * 10 + c,
        firstName: pick(FIRST),
        lastName: pick(LAST),
        email: `contacto${id * 10 + c}@example.cl`,
        phone: '',
      })),
    };
  });
  return { clientName: `Comercial Sandbox ${clientCode}`, offices, taxes, documentTypes, shippingTypes: SHIPPING_TYPES.map((t) => ({ ...t })), variants, stocks, clients };
};

/**
 * `<dir>/<clientCode>.json` when SANDBOX_PROVIDER_DATA_DIR names a folder holding it, read afresh
 * at every call (decisions 10), so a test or a newcomer can change the data between calls.
 */
export const sandboxData = (clientCode: string, dataDir = process.env.SANDBOX_PROVIDER_DATA_DIR): SandboxData => {
  if (dataDir) {
    let text: string | undefined;
    try {
      text = readFileSync(join(dataDir, `${clientCode}.json`), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    if (text !== undefined) {
      const file = JSON.parse(text) as Partial<SandboxData>;
      return {
        clientName: file.clientName,
        offices: file.offices ?? [],
        taxes: file.taxes ?? [],
        documentTypes: file.documentTypes ?? [],
        shippingTypes: file.shippingTypes ?? SHIPPING_TYPES.map((t) => ({ ...t })),
        variants: file.variants ?? [],
        stocks: file.stocks ?? [],
        clients: file.clients ?? [],
      };
    }
  }
  return generatedData(clientCode);
};
