import { BadRequestError } from '../../errors.ts';
import type { ApiMiddleware } from '../types.ts';

/** Parses the JSON body once; malformed JSON is a 400 with the parser's position. */
export const jsonBody = (): ApiMiddleware => ({
  before: ({ event, context }) => {
    if (!event.body) return;
    const text = event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
    try {
      context.body = JSON.parse(text);
    } catch (error) {
      throw new BadRequestError(`The body is not valid JSON: ${(error as Error).message}`, 'malformed_json');
    }
  },
});
