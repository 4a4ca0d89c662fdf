import * as v from 'valibot';
import { BadRequestError, ValidationError, type FieldIssue } from '../../errors.ts';
import type { ApiMiddleware } from '../types.ts';

const issuesOf = (where: 'path' | 'query' | 'body', issues: v.BaseIssue<unknown>[]): FieldIssue[] =>
  issues.map((issue) => {
    const dotPath = v.getDotPath(issue);
    return { path: dotPath ? `${where}.${dotPath}` : where, message: issue.message };
  });

const parse = (where: 'path' | 'query' | 'body', schema: v.GenericSchema | undefined, value: unknown): { value: unknown; issues: FieldIssue[] } => {
  if (!schema) return { value: undefined, issues: [] };
  const result = v.safeParse(schema, value);
  return result.success ? { value: result.output, issues: [] } : { value: undefined, issues: issuesOf(where, result.issues) };
};

const isEmptyObject = (value: unknown): boolean =>
  value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0;

/**
 * Validates path, query and body against the operation's valibot schemas and reports every
 * problem at once with its field path, so a client can fix a request in one go.
 */
export const validateInput = (): ApiMiddleware => ({
  before: ({ event, context }) => {
    const operation = context.operation;
    if (!operation.body && context.body !== undefined && !isEmptyObject(context.body)) {
      throw new BadRequestError('This operation takes no request body.', 'unexpected_body');
    }
    // A query parameter an authenticated operation does not know is an unknown field (400);
    // public pages ignore theirs, as links get tracking parameters appended by mail clients.
    const query = event.queryStringParameters ?? {};
    if (!operation.query && operation.access === 'member' && Object.keys(query).length > 0) {
      throw new ValidationError(Object.keys(query).map((name) => ({ path: `query.${name}`, message: 'is not a parameter of this operation' })));
    }
    const params = parse('path', operation.params, event.pathParameters ?? {});
    const parsedQuery = parse('query', operation.query, query);
    const body = operation.body && context.body === undefined
      ? { value: undefined, issues: [{ path: 'body', message: 'A JSON body is required.' }] }
      : parse('body', operation.body, context.body);
    const issues = [...params.issues, ...parsedQuery.issues, ...body.issues];
    if (issues.length > 0) throw new ValidationError(issues);
    context.input = { params: params.value, query: parsedQuery.value, body: body.value };
  },
});
