import { BadRequestError } from '../../errors.ts';
import type { ApiMiddleware } from '../types.ts';

/** A `\uD800`-`\uDFFF` escape: the only way a decoded body's text can hold a lone surrogate. */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;
/** In a `u` pattern a pair is one code point, so only a lone surrogate is of category Cs. */
const LONE_SURROGATE = /\p{Cs}/u;

/** The first key or string of a parsed value that is not Unicode text (a lone surrogate), as a path. */
const lonePath = (value: unknown, path: string): string | null => {
  if (typeof value === 'string') return LONE_SURROGATE.test(value) ? path : null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = lonePath(value[i], `${path}.${i}`);
      if (found) return found;
    }
  } else if (value && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      if (LONE_SURROGATE.test(key)) return `${path}.${key.replace(/\p{Cs}/gu, '\uFFFD')}`;
      const found = lonePath(child, `${path}.${key}`);
      if (found) return found;
    }
  }
  return null;
};

/**
 * Parses the JSON body once; malformed JSON is a 400 with the parser's position. So is a string
 * with a lone surrogate (`"\ud800"`): JSON allows the escape, but no UTF-8 holds it, so the table,
 * the signed webhooks and the billing provider could not carry what was accepted.
 */
export const jsonBody = (): ApiMiddleware => ({
  before: ({ event, context }) => {
    if (!event.body) return;
    const text = event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
    try {
      context.body = JSON.parse(text);
    } catch (error) {
      throw new BadRequestError(`The body is not valid JSON: ${(error as Error).message}`, 'malformed_json');
    }
    const lone = SURROGATE_ESCAPE.test(text) ? lonePath(context.body, 'body') : null;
    if (lone) throw new BadRequestError(`The body is not Unicode text: ${lone} holds a lone surrogate (a \\uD800-\\uDFFF escape without its pair).`, 'malformed_json');
  },
});
