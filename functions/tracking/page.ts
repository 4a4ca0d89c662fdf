import { publicView, stateOf, visiblePosition, clockLabel } from './view.ts';
import { PAGE_CSS } from './page-style.ts';
import { positionDrawing } from './position-drawing.ts';
import { texts, type Lang } from './texts.ts';
import type { ViewRecord } from './view-record.ts';

const escape = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const document = (lang: Lang, title: string, body: string): string =>
  [
    `<!doctype html><html lang="${lang}"><head><meta charset="utf-8">`,
    '<meta name="viewport" content="width=device-width,initial-scale=1">',
    '<meta name="robots" content="noindex"><meta name="referrer" content="no-referrer">',
    // An empty icon keeps the browser from asking the server for /favicon.ico.
    '<link rel="icon" href="data:,">',
    `<title>${escape(title)}</title><style>${PAGE_CSS}</style></head>`,
    `<body><main>${body}</main></body></html>`,
  ].join('');

const STEP_OF = { pending: 0, on_the_way: 1, arriving: 2, delivered: 3 } as const;

const dateTimeLabel = (iso: string, timeZone: string, lang: Lang): string =>
  new Intl.DateTimeFormat(texts[lang].locale, { weekday: 'long', day: 'numeric', month: 'long', hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZone }).format(new Date(iso));

/** The recipient's page: state, ETA window, stops before, driver, approximate position. */
export const trackingPage = (record: ViewRecord, token: string, now: Date, lang: Lang): { html: string; refreshSeconds: number } => {
  const t = texts[lang];
  const view = publicView(record, now, lang);
  const state = stateOf(record);
  const stateName = t.states[state];
  const step = state === 'failed' ? -1 : STEP_OF[state];
  const steps =
    step < 0
      ? ''
      : `<ol class="steps">${t.steps.map((name, i) => `<li${i <= step ? ' class="done"' : ''}${i === step ? ' aria-current="step"' : ''}>${name}</li>`).join('')}</ol>`;
  const when = view.eta
    ? `<p class="eta">${t.eta}<strong>${escape(view.eta.label)}</strong></p>`
    : view.closedAt
      ? `<p class="note">${state === 'delivered' ? t.deliveredAt : t.closedAt} ${escape(dateTimeLabel(view.closedAt, record.timeZone, lang))}</p>`
      : '';
  const note = view.etaNote ?? (state === 'failed' ? t.failed : null);
  const facts: string[] = [];
  if (view.stopsBefore !== null) facts.push(`<div><dt>${t.stopsBefore}</dt><dd>${view.stopsBefore}</dd></div>`);
  if (view.driver) facts.push(`<div><dt>${t.driver}</dt><dd>${escape(view.driver.firstName)}</dd></div>`);
  const position = visiblePosition(record, now);
  const map =
    position && record.relative
      ? `<section class="card" aria-labelledby="map-h"><h2 id="map-h">${t.position}</h2>${positionDrawing(record.relative, t, 'map-t', 'map-d')}<p class="small">${t.relative(t.bands[record.relative.band], t.directions[record.relative.direction])} ${t.positionUpdated(clockLabel(new Date(position.recordedAt), record.timeZone, lang))}</p></section>`
      : '';
  const body = [
    `<header class="top"><p class="company">${escape(view.company.name)}</p><h1>${t.title}</h1><p class="ref">${t.order} <strong>${escape(view.order.reference)}</strong></p></header>`,
    `<div class="grid s-${state}"><div>`,
    `<section class="card" aria-labelledby="state-h"><h2 id="state-h" class="label">${t.stateLabel}</h2><p class="badge">${stateName}</p>${when}${note ? `<p class="note">${escape(note)}</p>` : ''}${steps}</section>`,
    facts.length > 0 ? `<section class="card"><dl>${facts.join('')}</dl></section>` : '',
    `</div>${map}</div>`,
    `<footer><p>${t.refresh(t.seconds(view.refreshSeconds))}</p><p><a href="/t/${encodeURIComponent(token)}">${t.refreshNow}</a></p></footer>`,
  ].join('');
  return { html: document(lang, `${t.order} ${view.order.reference} · ${stateName} · ${view.company.name}`, body), refreshSeconds: view.refreshSeconds };
};

export const notFoundPage = (lang: Lang): string => {
  const t = texts[lang];
  return document(lang, t.notFoundTitle, `<header class="top"><h1>${t.notFoundTitle}</h1></header><section class="card"><p>${t.notFound}</p></section>`);
};

export const tooManyRequestsPage = (lang: Lang, retryAfterSeconds: number): string => {
  const t = texts[lang];
  return document(lang, t.tooManyTitle, `<header class="top"><h1>${t.tooManyTitle}</h1></header><section class="card"><p>${t.tooMany(retryAfterSeconds)}</p></section>`);
};

