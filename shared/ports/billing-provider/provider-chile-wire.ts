import { ProviderUnavailableError } from './errors.ts';
import type { IssueDocumentInput } from './port.ts';

/** provider-chile-v1's wire helpers: reading answers within bounds, and the bodies' shared parts. */

/** The most of one answer read (a provider or proxy gone wrong cannot fill the function's memory). */
export const MAX_ANSWER_BYTES = 5 * 1024 * 1024;
/** Pages one port call reads (5,000 items at the provider's 50 per page): an endless `next` ends. */
export const MAX_PAGES_PER_CALL = 100;

export type Raw = Record<string, unknown>;

export interface Answer {
  status: number;
  body: Raw;
}

export const trimSlash = (url: string): string => url.replace(/\/+$/, '');

/**
 * One resource out of a 2xx answer. An answer that cannot be read (no id, say) is the provider's
 * fault, not ours: "unavailable, bad answer" (503, retried; a POST's outcome then counts as
 * unknown and is looked up: a document by salesId, a guide by its shipping), never a TypeError that would answer 500.
 */
export const readAnswer = <T>(answer: Answer, read: (raw: Raw) => T): T => {
  try {
    return read(answer.body);
  } catch (error) {
    if (error instanceof TypeError) throw new ProviderUnavailableError('bad_answer', answer.status);
    throw error;
  }
};

/** The answer's text, refused as unknown ("too_large") past MAX_ANSWER_BYTES, declared or streamed. */
export const readCapped = async (response: Response): Promise<string> => {
  const tooLarge = () => new ProviderUnavailableError('too_large', response.status);
  if (Number(response.headers.get('content-length')) > MAX_ANSWER_BYTES) {
    await response.body?.cancel();
    throw tooLarge();
  }
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_ANSWER_BYTES) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
};

/** A document's or shipping's lines as the provider takes them. */
export const detailsBody = (details: IssueDocumentInput['details']) =>
  details.map((line) => ({
    ...(line.variantId ? { variantId: Number(line.variantId) } : { comment: line.comment ?? '' }),
    quantity: line.quantity,
    netUnitValue: line.netUnitValue,
    // A string holding a JSON list, as the provider takes it; no tax issues the line exempt.
    ...(line.taxId ? { taxId: `[${line.taxId}]` } : {}),
  }));

export const retryAfter = (headers: Headers): number => {
  const seconds = Number(headers.get('retry-after'));
  return Number.isInteger(seconds) && seconds > 0 && seconds <= 3600 ? seconds : 5;
};
