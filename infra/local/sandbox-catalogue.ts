import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { generatedData } from '../../shared/ports/billing-provider/sandbox-data.ts';
import { normaliseRut } from '../../shared/chile/rut.ts';

/**
 * `npm run sandbox:catalogue -- <clientCode> <variants> [dir]`: writes `<dir>/<clientCode>.json`
 * (default dir `.sandbox-data`), the company's generated sandbox data with as many variants as
 * asked, each with a version and stock in the three active offices. Start the stack with
 * SANDBOX_PROVIDER_DATA_DIR=<dir> and the sandbox serves this file (read afresh at every call).
 */
const [codeArg, countArg = '10000', dirArg = '.sandbox-data'] = process.argv.slice(2);
const clientCode = normaliseRut(codeArg ?? '');
const count = Number(countArg);
if (!clientCode || !Number.isInteger(count) || count < 1 || count > 1_000_000) {
  console.error('usage: npm run sandbox:catalogue -- <clientCode, a valid RUT> <variants, 1-1000000> [dir]');
  process.exit(2);
}
const base = generatedData(clientCode);
const variants = Array.from({ length: count }, (_, i) => {
  const id = 1000 + i;
  return { id, description: `Producto ${id}`, code: `SKU-${String(id).padStart(7, '0')}`, barCode: String(7800000000000 + id), state: i % 50 === 49 ? 1 : 0, product: { id: String(100 + Math.floor(i / 3)) }, version: '1' };
});
const stocks = variants.flatMap((variant) =>
  [1, 2, 3].map((office) => {
    const quantity = (variant.id * 7 + office * 13) % 500;
    return { quantity, quantityReserved: 0, quantityAvailable: quantity, variant: { id: String(variant.id) }, office: { id: String(office) }, version: '1' };
  }),
);
const dir = resolve(dirArg);
mkdirSync(dir, { recursive: true });
const file = join(dir, `${clientCode}.json`);
writeFileSync(file, JSON.stringify({ ...base, variants, stocks }));
console.log(`${file}: ${variants.length} variants, ${stocks.length} stock levels, ${base.clients.length} clients`);
console.log(`start the stack with SANDBOX_PROVIDER_DATA_DIR=${dir}`);
