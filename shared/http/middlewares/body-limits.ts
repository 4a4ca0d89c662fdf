import { config } from '../../config.ts';
import { PayloadTooLargeError, UnsupportedMediaTypeError } from '../../errors.ts';
import { header, type ApiEvent, type ApiMiddleware } from '../types.ts';

const bodyBytes = (event: ApiEvent): number => {
  if (!event.body) return 0;
  return event.isBase64Encoded ? Math.floor((event.body.length * 3) / 4) : Buffer.byteLength(event.body, 'utf8');
};

const isJson = (contentType: string | undefined): boolean => {
  const mediaType = contentType?.split(';')[0]?.trim().toLowerCase();
  return mediaType === 'application/json' || (mediaType?.endsWith('+json') ?? false);
};

/** 413 over 256 KiB, 415 for a body that is not JSON. Checked before anything reads the body. */
export const bodyLimits = (): ApiMiddleware => ({
  before: ({ event }) => {
    if (bodyBytes(event) > config.maxBodyBytes) throw new PayloadTooLargeError(config.maxBodyBytes);
    if (event.body && !isJson(header(event, 'content-type'))) throw new UnsupportedMediaTypeError();
  },
});
