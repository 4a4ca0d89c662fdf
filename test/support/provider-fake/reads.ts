import type { CompanyAccount } from './company.ts';
import { fail, intParam, page, rangeParam, relation } from './http.ts';
import { listShippings, readShipping, readShippingDetails } from './shippings.ts';
import type { FakeDocument } from './types.ts';

/** `state=0` (or 1) filters by state, as every provider list does. */
const byState = <T extends { state: number }>(url: URL, items: T[]) => {
  const state = intParam(url, 'state');
  return state === undefined ? items : items.filter((i) => i.state === state);
};

const byId = <T extends { id: number }>(items: T[]) => [...items].sort((a, b) => a.id - b.id);

/** The served shapes drop what only sandbox data carries (`version`, nested `contacts`). */
const served = <T extends object>(item: T, drop: string[]) =>
  Object.fromEntries(Object.entries(item).filter(([key]) => !drop.includes(key)));

export const readRoutes = (account: CompanyAccount, url: URL, base: string): unknown => {
  const { catalogue } = account;
  const path = url.pathname;
  const numberFilter = (name: string) => intParam(url, name);
  switch (path) {
    case '/v1/offices.json':
      return page(url, base, byState(url, byId(catalogue.offices)), (o) => ({ href: `${base}/v1/offices/${o.id}.json`, ...o }));
    case '/v1/taxes.json':
      return page(url, base, byState(url, byId(catalogue.taxes)), (t) => ({ href: `${base}/v1/taxes/${t.id}.json`, ...t }));
    case '/v1/document_types.json': {
      const codeSii = url.searchParams.get('codesii');
      const types = byState(url, byId(catalogue.documentTypes)).filter((t) => codeSii === null || t.codeSii === codeSii);
      return page(url, base, types, (t) => ({ href: `${base}/v1/document_types/${t.id}.json`, initialNumber: 1, ...t }));
    }
    case '/v1/shipping_types.json': {
      const codeSii = url.searchParams.get('codesii');
      const types = byState(url, byId(account.shippingTypes())).filter((t) => codeSii === null || t.codeSii === codeSii);
      return page(url, base, types, (t) => ({ href: `${base}/v1/shipping_types/${t.id}.json`, ...t }));
    }
    case '/v1/variants.json': {
      const code = url.searchParams.get('code');
      const productId = numberFilter('productid');
      const variants = byState(url, byId(catalogue.variants))
        .filter((v) => (code === null || v.code === code) && (productId === undefined || Number(v.product.id) === productId));
      return page(url, base, variants, (v) => ({
        href: `${base}/v1/variants/${v.id}.json`,
        ...served(v, ['version', 'product']),
        product: relation(base, 'products', v.product.id),
      }));
    }
    case '/v1/stocks.json': {
      // The provider's stock items carry no id or href of their own (docs: Stocks).
      const variantId = numberFilter('variantid');
      const officeId = numberFilter('officeid');
      const code = url.searchParams.get('code');
      const skuOf = (id: number | string) => catalogue.variants.find((v) => v.id === Number(id))?.code;
      const stocks = catalogue.stocks.filter((s) =>
        (variantId === undefined || Number(s.variant.id) === variantId) &&
        (officeId === undefined || Number(s.office.id) === officeId) &&
        (code === null || skuOf(s.variant.id) === code));
      return page(url, base, stocks, (s) => ({
        ...served(s, ['id', 'version', 'variant', 'office']),
        variant: relation(base, 'variants', s.variant.id),
        office: relation(base, 'offices', s.office.id),
      }));
    }
    case '/v1/clients.json': {
      const code = url.searchParams.get('code');
      const clients = byState(url, byId(catalogue.clients)).filter((c) => code === null || c.code === code);
      return page(url, base, clients, (c) => ({
        href: `${base}/v1/clients/${c.id}.json`,
        ...served(c, ['contacts']),
        contacts: { href: `${base}/v1/clients/${c.id}/contacts.json` },
      }));
    }
    case '/v1/documents.json':
      return page(url, base, documentList(account, url));
    case '/v1/shippings.json':
      return listShippings(account, url, base);
  }
  let match = /^\/v1\/variants\/(\d+)\.json$/.exec(path);
  if (match) {
    const variant = catalogue.variants.find((v) => v.id === Number(match![1])) ?? fail(404, 'variant not found');
    return { href: `${base}/v1/variants/${variant.id}.json`, ...served(variant, ['version', 'product']), product: relation(base, 'products', variant.product.id) };
  }
  match = /^\/v1\/clients\/(\d+)\/contacts\.json$/.exec(path);
  if (match) {
    const client = catalogue.clients.find((c) => c.id === Number(match![1])) ?? fail(404, 'client not found');
    return page(url, base, byId(client.contacts ?? []), (c) => ({ href: `${base}/v1/clients/${client.id}/contacts/${c.id}.json`, ...c }));
  }
  match = /^\/v1\/documents\/(\d+)\.json$/.exec(path);
  if (match) return account.document(Number(match[1])) ?? fail(404, 'document not found');
  match = /^\/v1\/documents\/(\d+)\/details\.json$/.exec(path);
  if (match) {
    const document = account.document(Number(match[1])) ?? fail(404, 'document not found');
    return page(url, base, (account.details.get(document.id) ?? []).map((l) => l.detail));
  }
  match = /^\/v1\/documents\/(\d+)\/references\.json$/.exec(path);
  if (match) {
    const document = account.document(Number(match[1])) ?? fail(404, 'document not found');
    // The provider answers a `dte_code` relation (its own ids); the fake answers the SII code as it was sent.
    return page(url, base, (account.references.get(document.id) ?? []).map((r, i) => ({ href: `${base}/v1/documents/${document.id}/references/${i + 1}.json`, id: i + 1, ...r })));
  }
  match = /^\/v1\/shippings\/(\d+)\.json$/.exec(path);
  if (match) return readShipping(account, url, base, Number(match[1]));
  match = /^\/v1\/shippings\/(\d+)\/details\.json$/.exec(path);
  if (match) return page(url, base, readShippingDetails(account, base, Number(match[1])));
  return fail(404, `no route ${path}`);
};

/** `GET /v1/documents.json` with the filters provider-chile.md lists; oldest first. */
const documentList = (account: CompanyAccount, url: URL): FakeDocument[] => {
  const typeId = intParam(url, 'documenttypeid');
  const codeSii = url.searchParams.get('codesii');
  const number = intParam(url, 'number');
  const clientId = intParam(url, 'clientid');
  const officeId = intParam(url, 'officeid');
  const emissionDate = intParam(url, 'emissiondate');
  const range = rangeParam(url, 'emissiondaterange');
  const informedSii = intParam(url, 'informedsii');
  const state = intParam(url, 'state');
  const codeOf = (d: FakeDocument) => account.catalogue.documentTypes.find((t) => String(t.id) === d.document_type.id)?.codeSii;
  return account.documents.filter((d) =>
    (typeId === undefined || d.document_type.id === String(typeId)) &&
    (codeSii === null || codeOf(d) === codeSii) &&
    (number === undefined || d.number === number) &&
    (clientId === undefined || d.client?.id === String(clientId)) &&
    (officeId === undefined || d.office.id === String(officeId)) &&
    (emissionDate === undefined || d.emissionDate === emissionDate) &&
    (range === undefined || (d.emissionDate >= range[0] && d.emissionDate <= range[1])) &&
    (informedSii === undefined || d.informedSii === informedSii) &&
    (state === undefined || d.state === state),
  );
};
