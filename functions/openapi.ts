import { openApiDocumentOf } from '../shared/openapi/document.ts';
import { allOperations } from './index.ts';

const operations = allOperations();

/**
 * The document of every route served, built from the same schemas the handlers validate with.
 * `npm run openapi` writes it to docs/openapi.json, which GET /v1/openapi.json serves; the drift
 * test (test/unit/openapi/openapi.test.ts) keeps the two equal.
 */
export const openApiDocument = (): object => openApiDocumentOf(operations);
