import document from '../../docs/openapi.json' with { type: 'json' };
import { definePublicOperation } from '../../shared/http/operation.ts';

/** The interface's own description, built from the same schemas the handlers validate with. */
export const openApiOperation = definePublicOperation({
  operationId: 'getOpenApiDocument',
  method: 'GET',
  path: '/v1/openapi.json',
  summary: 'The OpenAPI 3.1 description of this interface',
  tag: 'Meta',
  responses: { 200: { description: 'OpenAPI 3.1 document' } },
  // The committed document (npm run openapi), bundled with the function: building it here would
  // make this group import the list of groups it is one of.
  handle: async () => ({ status: 200, body: document, headers: { 'cache-control': 'public, max-age=300' } }),
});

export const metaOperations = [openApiOperation];
