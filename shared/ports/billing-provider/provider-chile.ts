import { config } from '../../config.ts';
import { ProviderRefusedError, ProviderTokenRejectedError, ProviderUnavailableError } from './errors.ts';
import {
  PAGE_LIMIT,
  type BillingProvider,
  type CallOptions,
  type CreateReturnInput,
  type CreateShippingInput,
  type FindDocumentsInput,
  type IssueDocumentInput,
  type Issued,
  type Page,
  type PageRequest,
  type ProviderDocument,
  type ProviderGrant,
  type ProviderReturn,
  type ProviderSession,
  type ProviderShipping,
  type ShippingFilter,
  type StockFilter,
} from './port.ts';
import * as shapes from './provider-shapes.ts';
import { detailsBody, MAX_PAGES_PER_CALL, readAnswer, readCapped, retryAfter, trimSlash, type Answer, type Raw } from './provider-chile-wire.ts';

export interface ProviderChileSettings {
  apiUrl: string;
  oauthUrl: string;
  appId: string;
  /** The integrator's own token (a secret): read when needed, so a rotation is picked up. */
  userToken: () => Promise<string>;
  /** Deadline of every call. @default config.providerDeadlineMs (8 s: invoicing waits at most 8 s for an issue, decisions 9) */
  timeoutMs?: number;
  /** Pages one port call reads before it gives up as unknown. @default MAX_PAGES_PER_CALL */
  maxPagesPerCall?: number;
}

export { MAX_ANSWER_BYTES, MAX_PAGES_PER_CALL } from './provider-chile-wire.ts';

/**
 * `provider-chile-v1`: the provider's HTTP API as provider-chile.md describes it. Every call has a
 * deadline; 429, 5xx, timeouts and dropped connections are "unknown, try later"
 * (ProviderUnavailableError), never "no"; 401 means the connection must be authorized again.
 */
export class ProviderChile implements BillingProvider {
  readonly origin = 'provider-chile-v1' as const;
  private readonly apiUrl: string;
  private readonly oauthUrl: string;
  private readonly timeoutMs: number;
  private readonly maxPages: number;

  constructor(private readonly settings: ProviderChileSettings) {
    this.apiUrl = trimSlash(settings.apiUrl);
    this.oauthUrl = trimSlash(settings.oauthUrl);
    this.timeoutMs = settings.timeoutMs ?? config.providerDeadlineMs;
    this.maxPages = settings.maxPagesPerCall ?? MAX_PAGES_PER_CALL;
  }

  /** Every page of a list, at most maxPages of them: a provider that never stops saying `next` is an unknown answer. */
  private async allPages<T>(read: (offset: number) => Promise<Page<T>>, signal?: AbortSignal): Promise<T[]> {
    const items: T[] = [];
    let offset: number | null = 0;
    for (let pages = 0; offset !== null; pages++) {
      if (pages >= this.maxPages) throw new ProviderUnavailableError('too_large');
      if (signal?.aborted) throw new ProviderUnavailableError('timeout');
      const page: Page<T> = await read(offset);
      items.push(...page.items);
      offset = page.nextOffset;
    }
    return items;
  }

  /** One HTTP call: the transport's failures and the provider's "try later" become ProviderUnavailableError. */
  private async send(url: string, init: { method: string; headers?: Record<string, string>; body?: unknown; signal?: AbortSignal }): Promise<Answer & { headers: Headers }> {
    let response: Response;
    let text: string;
    // A caller past its deadline sends nothing (a POST that waited its turn must not leave late).
    if (init.signal?.aborted) throw new ProviderUnavailableError('timeout');
    try {
      response = await fetch(url, {
        method: init.method,
        headers: { accept: 'application/json', ...(init.body === undefined ? {} : { 'content-type': 'application/json' }), ...init.headers },
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
        signal: init.signal ? AbortSignal.any([AbortSignal.timeout(this.timeoutMs), init.signal]) : AbortSignal.timeout(this.timeoutMs),
        redirect: 'manual',
      });
      text = await readCapped(response);
    } catch (error) {
      if (error instanceof ProviderUnavailableError) throw error;
      const name = (error as Error)?.name;
      throw new ProviderUnavailableError(name === 'TimeoutError' || name === 'AbortError' ? 'timeout' : 'network');
    }
    if (response.status === 429) throw new ProviderUnavailableError('rate_limited', 429, retryAfter(response.headers));
    if (response.status >= 500) throw new ProviderUnavailableError('server_error', response.status);
    let body: Raw = {};
    try {
      body = text ? (JSON.parse(text) as Raw) : {};
    } catch {
      // A 2xx that is not JSON (a proxy's page) says nothing about the request: unknown.
      if (response.status < 400) throw new ProviderUnavailableError('bad_answer', response.status);
    }
    if (body === null || typeof body !== 'object') throw new ProviderUnavailableError('bad_answer', response.status);
    return { status: response.status, body, headers: response.headers };
  }

  /** An API call with the connection's token; 401 and the other 4xx are answers. */
  private async api(session: ProviderSession, method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<Answer> {
    const answer = await this.send(`${this.apiUrl}${path}`, { method, headers: { access_token: session.accessToken }, body, signal });
    if (answer.status === 401) throw new ProviderTokenRejectedError();
    if (answer.status >= 400) throw new ProviderRefusedError(answer.status, String(answer.body.error ?? 'no message'));
    if (answer.status >= 300) throw new ProviderUnavailableError('bad_answer', answer.status);
    return answer;
  }

  async exchangeCode(code: string): Promise<ProviderGrant> {
    const answer = await this.send(`${this.oauthUrl}/gateway/oauth_response.json`, {
      method: 'POST',
      body: { code, usrToken: await this.settings.userToken(), appId: this.settings.appId },
    });
    const data = answer.body.data as Raw | undefined;
    if (answer.status >= 400 || answer.status !== 200 || Number(answer.body.code) !== 200 || !data) {
      throw new ProviderRefusedError(answer.status, String(answer.body.error ?? answer.body.message ?? `code ${String(answer.body.code)}`));
    }
    const accessToken = data.accessToken;
    const clientCode = data.clientCode;
    if (typeof accessToken !== 'string' || !accessToken || typeof clientCode !== 'string') throw new ProviderUnavailableError('bad_answer', answer.status);
    return { accessToken, clientCode, clientName: typeof data.clientName === 'string' ? data.clientName : '' };
  }

  private async page<T>(session: ProviderSession, path: string, read: (raw: Raw) => T, request: PageRequest = {}, filters: Record<string, string> = {}): Promise<Page<T>> {
    const offset = request.offset ?? 0;
    const limit = Math.min(request.limit ?? PAGE_LIMIT, PAGE_LIMIT);
    const query = new URLSearchParams({ limit: String(limit), offset: String(offset), ...filters });
    if (request.activeOnly) query.set('state', '0');
    const { body } = await this.api(session, 'GET', `${path}?${query}`, undefined, request.signal);
    if (!Array.isArray(body.items)) throw new ProviderUnavailableError('bad_answer', 200);
    const { items, invalid } = shapes.readEach(body.items as unknown[], read);
    const more = body.next !== undefined && body.next !== null && body.next !== '' && body.items.length > 0;
    return { items, invalid, count: typeof body.count === 'number' ? body.count : null, nextOffset: more ? offset + body.items.length : null };
  }

  listOffices = (session: ProviderSession, page?: PageRequest) => this.page(session, '/v1/offices.json', shapes.readOffice, page);
  listTaxes = (session: ProviderSession, page?: PageRequest) => this.page(session, '/v1/taxes.json', shapes.readTax, page);
  listDocumentTypes = (session: ProviderSession, page?: PageRequest) => this.page(session, '/v1/document_types.json', shapes.readDocumentType, page);
  listShippingTypes = (session: ProviderSession, page?: PageRequest) => this.page(session, '/v1/shipping_types.json', shapes.readShippingType, page);
  listVariants = (session: ProviderSession, page?: PageRequest) => this.page(session, '/v1/variants.json', shapes.readVariant, page);
  listStocks = (session: ProviderSession, page?: PageRequest, filter: StockFilter = {}) =>
    this.page(session, '/v1/stocks.json', shapes.readStock, page, {
      ...(filter.variantId ? { variantid: filter.variantId } : {}),
      ...(filter.officeId ? { officeid: filter.officeId } : {}),
    });

  async getVariant(session: ProviderSession, variantId: string) {
    try {
      return readAnswer(await this.api(session, 'GET', `/v1/variants/${encodeURIComponent(variantId)}.json`), shapes.readVariant);
    } catch (error) {
      if (error instanceof ProviderRefusedError && error.providerStatus === 404) return undefined;
      throw error;
    }
  }
  listClients = (session: ProviderSession, page?: PageRequest) => this.page(session, '/v1/clients.json', shapes.readClient, page);
  listContacts = (session: ProviderSession, clientId: string, page?: PageRequest) =>
    this.page(session, `/v1/clients/${encodeURIComponent(clientId)}/contacts.json`, shapes.readContact, page);

  async issueDocument(session: ProviderSession, input: IssueDocumentInput, options: CallOptions = {}): Promise<Issued<ProviderDocument>> {
    const body = {
      documentTypeId: Number(input.documentTypeId),
      officeId: Number(input.officeId),
      emissionDate: input.emissionDate,
      declareSii: 1,
      salesId: input.salesId,
      ...(input.clientId ? { clientId: Number(input.clientId) } : {}),
      ...(input.dispatch ? { dispatch: 1 } : {}),
      details: detailsBody(input.details),
      // The provider's name is `codeSii` (provider-chile.md corrected; `dteCodeSii` is not documented).
      ...(input.references?.length
        ? { references: input.references.map((r) => ({ number: r.number, referenceDate: r.referenceDate, codeSii: r.dteCodeSii, reason: r.reason })) }
        : {}),
    };
    const answer = await this.api(session, 'POST', '/v1/documents.json', body, options.signal);
    return { created: answer.status === 201, value: readAnswer(answer, shapes.readDocument) };
  }

  async getDocument(session: ProviderSession, documentId: string, options: CallOptions = {}): Promise<ProviderDocument | undefined> {
    try {
      return readAnswer(await this.api(session, 'GET', `/v1/documents/${encodeURIComponent(documentId)}.json`, undefined, options.signal), shapes.readDocument);
    } catch (error) {
      if (error instanceof ProviderRefusedError && error.providerStatus === 404) return undefined;
      throw error;
    }
  }

  getDocumentDetails(session: ProviderSession, documentId: string, options: CallOptions = {}) {
    const { signal } = options;
    return this.allPages((offset) => this.page(session, `/v1/documents/${encodeURIComponent(documentId)}/details.json`, shapes.readDocumentDetail, { offset, signal }), signal);
  }

  async findDocumentsBySalesId(session: ProviderSession, input: FindDocumentsInput, options: CallOptions = {}): Promise<ProviderDocument[]> {
    const { signal } = options;
    const filters = { documenttypeid: input.documentTypeId, emissiondaterange: `[${input.emissionDateFrom},${input.emissionDateTo}]` };
    const documents = await this.allPages((offset) => this.page(session, '/v1/documents.json', shapes.readDocument, { offset, signal }, filters), signal);
    return documents.filter((doc) => doc.salesId === input.salesId);
  }

  async createReturn(session: ProviderSession, input: CreateReturnInput, options: CallOptions = {}): Promise<Issued<ProviderReturn>> {
    const body = {
      documentTypeId: Number(input.documentTypeId),
      officeId: Number(input.officeId),
      referenceDocumentId: Number(input.referenceDocumentId),
      emissionDate: input.emissionDate,
      motive: input.motive,
      declareSii: 1,
      priceAdjustment: 0,
      editTexts: 0,
      type: 0,
      salesId: input.salesId,
      ...(input.clientId ? { clientId: Number(input.clientId) } : {}),
      details: input.details.map((d) => ({ documentDetailId: Number(d.documentDetailId), quantity: d.quantity, unitValue: 0 })),
    };
    const answer = await this.api(session, 'POST', '/v1/returns.json', body, options.signal);
    return { created: answer.status === 201, value: readAnswer(answer, shapes.readReturn) };
  }

  /**
   * POST /v1/shippings.json (provider-chile.md, "Dispatch guides"). salesId is sent but the
   * provider documents no de-duplication by it: a second call may make a second guide. An
   * internal transfer sends `destinationOfficeId` and no client.
   */
  async createShipping(session: ProviderSession, input: CreateShippingInput, options: CallOptions = {}): Promise<Issued<ProviderShipping>> {
    const destination = input.destinationOfficeId ? { destinationOfficeId: Number(input.destinationOfficeId) } : null;
    const body = {
      documentTypeId: Number(input.documentTypeId),
      officeId: Number(input.officeId),
      emissionDate: input.emissionDate,
      shippingTypeId: Number(input.shippingTypeId),
      declareSii: 1,
      salesId: input.salesId,
      ...(destination ?? (input.clientId ? { clientId: Number(input.clientId) } : {})),
      address: input.address,
      municipality: input.municipality,
      city: input.city,
      recipient: input.recipient,
      dispatch: 1,
      details: detailsBody(input.details),
    };
    const answer = await this.api(session, 'POST', '/v1/shippings.json', body, options.signal);
    return { created: answer.status === 201, value: readAnswer(answer, shapes.readShipping) };
  }

  /** `GET /v1/shippings.json?shippingdate&officeid&shippingtypeid&expand=[guide,details]`, one page. */
  listShippings = (session: ProviderSession, filter: ShippingFilter, page?: PageRequest) =>
    this.page(session, '/v1/shippings.json', shapes.readShipping, page, {
      shippingdate: String(filter.shippingDate),
      officeid: filter.officeId,
      shippingtypeid: filter.shippingTypeId,
      expand: '[guide,details]',
    });

  /** `GET /v1/shippings/{id}/details.json?limit&offset`, one page (the lines past an expanded `details`' 25). */
  listShippingDetails = (session: ProviderSession, shippingId: string, page?: PageRequest) =>
    this.page(session, `/v1/shippings/${encodeURIComponent(shippingId)}/details.json`, shapes.readShippingDetail, page);
}
