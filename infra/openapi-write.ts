import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openApiDocument } from '../functions/openapi.ts';

/** `npm run openapi`: the committed copy of the document, for readers and for tools that do not run the service. */
const target = fileURLToPath(new URL('../docs/openapi.json', import.meta.url));

const document = openApiDocument() as { paths: Record<string, Record<string, unknown>> };
const operations = Object.values(document.paths).reduce((count, item) => count + Object.keys(item).length, 0);

await mkdir(path.dirname(target), { recursive: true });
await writeFile(target, `${JSON.stringify(document, null, 2)}\n`);
console.log(`${path.relative(process.cwd(), target) || target}: ${operations} operations`);
