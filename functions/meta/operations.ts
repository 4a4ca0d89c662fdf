import { definePublicOperation } from '../../shared/http/operation.ts';

/** The interface's own description, built from the same schemas the handlers validate with. */
export const openApiOperation = definePublicOperation({
  operationId: 'getOpenApiDocument',
  method: 'GET',
  path: '/v1/openapi.json',
  summary: 'The OpenAPI 3.1 description of this interface',
  tag: 'Meta',
  responses: { 200: { description: 'OpenAPI 3.1 document' } },
  handle: async () => {
    // Imported on first use: the document lists every group, including this one.
    const { openApiDocument } = await import('../../shared/openapi/document.ts');
    return { status: 200, body: openApiDocument(), headers: { 'cache-control': 'public, max-age=300' } };
  },
});

export const metaOperations = [openApiOperation];
