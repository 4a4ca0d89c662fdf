import { randomBytes } from 'node:crypto';
import { ProviderRefusedError, ProviderUnavailableError } from './errors.ts';
import {
  PAGE_LIMIT,
  type BillingProvider,
  type CallOptions,
  type CreateReturnInput,
  type CreateShippingInput,
  type DocumentDetail,
  type DocumentReference,
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
  type ShippingDetail,
  type ShippingFilter,
  type StockFilter,
} from './port.ts';
import * as shapes from './provider-shapes.ts';
import { sandboxData } from './sandbox-data.ts';
import { SandboxFaults, type SandboxOperation } from './sandbox-faults.ts';
import { SandboxRaceError, sandboxDocuments, shippingOf, storedLines, type SandboxOwner, type StoredDocument } from './sandbox-documents.ts';

/** The sandbox's consent page hands out codes of this form; nothing else is accepted. */
const CODE = /^sbx\.([0-9]{1,9}-[0-9K])\.([0-9a-f]{16,64})$/;
const TOKEN = /^sandbox\.([0-9]{1,9}-[0-9K])\.[0-9a-f]{32}$/;

const relationId = (value: unknown): string => String((value as { id?: unknown } | undefined)?.id ?? '');
const matchesStock = (stock: Record<string, unknown>, filter: StockFilter): boolean =>
  (!filter.variantId || relationId(stock.variant) === filter.variantId) && (!filter.officeId || relationId(stock.office) === filter.officeId);

export const sandboxCode = (clientCode: string): string => `sbx.${clientCode}.${randomBytes(16).toString('hex')}`;

export type { SandboxFault, SandboxOperation } from './sandbox-faults.ts';

/**
 * `sandbox-v1`: a provider for trying the service without an account, and for tests. Data is
 * deterministic per clientCode (or SANDBOX_PROVIDER_DATA_DIR's file); documents and returns are
 * kept in the table under the tenant and connection (sandbox-documents.ts), with the provider's
 * one-per-salesId rule, so the reconciler (another function) finds what issue made.
 */
export class SandboxProvider implements BillingProvider {
  readonly origin = 'sandbox-v1' as const;
  readonly faults = new SandboxFaults();

  /** What the sandbox holds for a connection: the invoicing tests read it. */
  recorded(owner: SandboxOwner): Promise<{ documents: ProviderDocument[]; returns: ProviderReturn[]; shippings: ProviderShipping[] }> {
    return sandboxDocuments.recorded(owner);
  }

  /** The references a document was issued with (an invoice naming its dispatch guides). */
  async references(owner: SandboxOwner, documentId: string): Promise<DocumentReference[]> {
    return (await sandboxDocuments.document(owner, documentId))?.references ?? [];
  }

  /** Runs `apply`, honouring a fault switched on for `operation`; a caller past its deadline gets nothing done. */
  private async run<T>(operation: SandboxOperation, apply: () => T | Promise<T>, signal?: AbortSignal): Promise<T> {
    if (signal?.aborted) throw new ProviderUnavailableError('timeout');
    const kind = await this.faults.take(operation);
    if (signal?.aborted) throw new ProviderUnavailableError('timeout');
    const result = await apply();
    if (kind === 'timeout_after_apply') throw new ProviderUnavailableError('timeout');
    return result;
  }

  private clientCodeOf(session: ProviderSession): string {
    const match = TOKEN.exec(session.accessToken);
    if (!match) throw new ProviderRefusedError(401, 'not a sandbox access token');
    return match[1]!;
  }

  /** Whose documents: a session without its connection cannot reach any (a programming error, not the provider's answer). */
  private ownerOf(session: ProviderSession): SandboxOwner {
    this.clientCodeOf(session);
    if (!session.owner) throw new Error('sandbox-v1 keeps documents per connection: the session names no tenant and connection');
    return session.owner;
  }

  exchangeCode(code: string): Promise<ProviderGrant> {
    return this.run('exchangeCode', () => {
      const match = CODE.exec(code);
      if (!match) throw new ProviderRefusedError(400, 'unknown code');
      const clientCode = match[1]!;
      return {
        accessToken: `sandbox.${clientCode}.${randomBytes(16).toString('hex')}`,
        clientCode,
        clientName: sandboxData(clientCode).clientName ?? `Comercial Sandbox ${clientCode}`,
      };
    });
  }

  private page<T>(session: ProviderSession, list: (clientCode: string) => Record<string, unknown>[], read: (raw: Record<string, unknown>) => T, request: PageRequest = {}): Promise<Page<T>> {
    return this.run('list', () => {
      if (request.signal?.aborted) throw new ProviderUnavailableError('timeout');
      // Read one by one as the HTTP adapter does, so a bad item in a data file is set apart, not fatal.
      const all = list(this.clientCodeOf(session)).filter((raw) => {
        const { items } = shapes.readEach([raw], read);
        return !request.activeOnly || items.length === 0 || (items[0] as { active?: boolean }).active !== false;
      });
      const offset = request.offset ?? 0;
      const limit = Math.min(request.limit ?? PAGE_LIMIT, PAGE_LIMIT);
      const raws = all.slice(offset, offset + limit);
      const { items, invalid } = shapes.readEach(raws, read);
      return { items, invalid, count: all.length, nextOffset: offset + limit < all.length ? offset + raws.length : null };
    });
  }

  listOffices = (s: ProviderSession, p?: PageRequest) => this.page(s, (c) => sandboxData(c).offices, shapes.readOffice, p);
  listTaxes = (s: ProviderSession, p?: PageRequest) => this.page(s, (c) => sandboxData(c).taxes, shapes.readTax, p);
  listDocumentTypes = (s: ProviderSession, p?: PageRequest) => this.page(s, (c) => sandboxData(c).documentTypes, shapes.readDocumentType, p);
  listShippingTypes = (s: ProviderSession, p?: PageRequest) => this.page(s, (c) => sandboxData(c).shippingTypes, shapes.readShippingType, p);
  listVariants = (s: ProviderSession, p?: PageRequest) => this.page(s, (c) => sandboxData(c).variants, shapes.readVariant, p);
  listStocks = (s: ProviderSession, p?: PageRequest, filter: StockFilter = {}) =>
    this.page(s, (c) => sandboxData(c).stocks.filter((stock) => matchesStock(stock, filter)), shapes.readStock, p);

  getVariant(session: ProviderSession, variantId: string) {
    return this.run('list', () => {
      const raw = sandboxData(this.clientCodeOf(session)).variants.find((v) => String(v.id) === variantId);
      return raw ? shapes.readVariant(raw) : undefined;
    });
  }
  listClients = (s: ProviderSession, p?: PageRequest) => this.page(s, (c) => sandboxData(c).clients, shapes.readClient, p);
  listContacts = (s: ProviderSession, clientId: string, p?: PageRequest) =>
    this.page(s, (c) => sandboxData(c).clients.find((client) => String(client.id) === clientId)?.contacts ?? [], shapes.readContact, p);

  issueDocument(session: ProviderSession, input: IssueDocumentInput, options: CallOptions = {}): Promise<Issued<ProviderDocument>> {
    return this.run('issueDocument', async () => {
      const owner = this.ownerOf(session);
      const earlier = await sandboxDocuments.bySale(owner, input.documentTypeId, input.salesId);
      if (earlier) return { created: false, value: earlier.document };
      const types = sandboxData(this.clientCodeOf(session)).documentTypes.map(shapes.readDocumentType);
      if (!types.some((t) => t.id === input.documentTypeId)) throw new ProviderRefusedError(400, 'unknown documentTypeId');
      const { document, details } = await this.newDocument(owner, input, 1);
      try {
        await sandboxDocuments.add(owner, { document, details, credited: {}, version: 1, references: input.references ?? [] });
      } catch (error) {
        if (!(error instanceof SandboxRaceError)) throw error;
        // A concurrent call with the same salesId stored its document first: that one is the document.
        return { created: false, value: (await sandboxDocuments.bySale(owner, input.documentTypeId, input.salesId))!.document };
      }
      return { created: true, value: document };
    }, options.signal);
  }

  /** A new document with its lines and totals (not stored), and `idCount` new ids (the document's first). */
  private async newDocument(
    owner: SandboxOwner,
    input: Pick<IssueDocumentInput, 'documentTypeId' | 'salesId' | 'emissionDate' | 'details'>,
    idCount: number,
  ): Promise<StoredDocument & { ids: string[] }> {
    if (input.details.length === 0) throw new ProviderRefusedError(400, 'a document needs details');
    const net = Math.round(input.details.reduce((sum, line) => sum + line.quantity * line.netUnitValue, 0));
    const taxed = Math.round(input.details.reduce((sum, line) => sum + (line.taxId ? line.quantity * line.netUnitValue : 0), 0));
    const tax = Math.round(taxed * 0.19);
    const { ids, folio } = await sandboxDocuments.nextIds(owner, idCount, input.documentTypeId);
    const id = ids[0]!;
    const document: ProviderDocument = {
      id,
      number: folio,
      salesId: input.salesId,
      documentTypeId: input.documentTypeId,
      informedSii: 0,
      responseMsgSii: 'Documento aceptado (sandbox)',
      totalAmount: net + tax,
      netAmount: net,
      taxAmount: tax,
      urlPdf: `https://sandbox.invalid/documents/${id}.pdf`,
      emissionDate: input.emissionDate,
    };
    const details = input.details.map((line, i) => ({ id: `${id}${String(i + 1).padStart(3, '0')}`, lineNumber: i + 1, quantity: line.quantity, netUnitValue: line.netUnitValue }));
    return { document, details, credited: {}, version: 1, ids };
  }

  /**
   * A shipping and its guide (a document of the codeSii 52 type, found by findDocumentsBySalesId
   * and getDocument as every document). The sandbox still keeps one per salesId (stricter than the
   * provider promises); invoicing does not rely on it (docs/guides-exactly-once.md).
   */
  createShipping(session: ProviderSession, input: CreateShippingInput, options: CallOptions = {}): Promise<Issued<ProviderShipping>> {
    return this.run('createShipping', async () => {
      const owner = this.ownerOf(session);
      const earlier = await sandboxDocuments.shippingBySale(owner, input.salesId);
      if (earlier) return { created: false, value: earlier };
      const data = sandboxData(this.clientCodeOf(session));
      const type = data.documentTypes.map(shapes.readDocumentType).find((t) => t.id === input.documentTypeId && t.active);
      if (!type) throw new ProviderRefusedError(400, 'unknown documentTypeId');
      if (type.codeSii !== '52') throw new ProviderRefusedError(400, 'documentTypeId is not a dispatch guide type (codeSii 52)');
      if (!data.shippingTypes.map(shapes.readShippingType).some((t) => t.id === input.shippingTypeId && t.active)) throw new ProviderRefusedError(400, 'unknown shippingTypeId');
      if (!data.offices.map(shapes.readOffice).some((o) => o.id === input.officeId && o.active)) throw new ProviderRefusedError(400, 'unknown officeId');
      if (input.address.trim() === '') throw new ProviderRefusedError(400, 'address is required');
      const internal = data.shippingTypes.map(shapes.readShippingType).find((t) => t.id === input.shippingTypeId)?.useDestinationOffice ?? false;
      if (internal && !input.destinationOfficeId) throw new ProviderRefusedError(400, 'destinationOfficeId is required for an internal transfer');
      const { document, details, ids } = await this.newDocument(owner, input, 2);
      const value = shippingOf(ids[1]!, document.id, input);
      try {
        await sandboxDocuments.addShipping(owner, input.salesId, value, { document, details, credited: {}, version: 1 });
      } catch (error) {
        if (!(error instanceof SandboxRaceError)) throw error;
        // A concurrent call with the same salesId stored its shipping first: that one is the answer.
        const won = await sandboxDocuments.shippingBySale(owner, input.salesId);
        if (won) return { created: false, value: won };
        throw new ProviderUnavailableError('server_error', 409);
      }
      return { created: true, value };
    }, options.signal);
  }

  /** The connection's shippings of that day, office and type, ids ascending, with their guide and lines (expand=[guide,details]). */
  listShippings(session: ProviderSession, filter: ShippingFilter, request: PageRequest = {}): Promise<Page<ProviderShipping>> {
    return this.run('listShippings', async () => {
      const owner = this.ownerOf(session);
      const all = await sandboxDocuments.shippingsOf(owner, filter);
      const offset = request.offset ?? 0;
      const limit = Math.min(request.limit ?? PAGE_LIMIT, PAGE_LIMIT);
      const slice = all.slice(offset, offset + limit);
      const items = await Promise.all(slice.map((s) => sandboxDocuments.expanded(owner, s)));
      return { items, count: all.length, nextOffset: offset + limit < all.length ? offset + slice.length : null };
    }, request.signal);
  }

  /** `GET /v1/shippings/{id}/details.json`: a page of the shipping's lines (the rest of an expanded `details`). */
  listShippingDetails(session: ProviderSession, shippingId: string, request: PageRequest = {}): Promise<Page<ShippingDetail>> {
    return this.run('listShippings', async () => {
      const shipping = (await sandboxDocuments.recorded(this.ownerOf(session))).shippings.find((s) => s.id === shippingId);
      if (!shipping) throw new ProviderRefusedError(404, 'no such shipping');
      const lines = storedLines(shipping);
      const offset = request.offset ?? 0;
      const limit = Math.min(request.limit ?? PAGE_LIMIT, PAGE_LIMIT);
      const items = lines.slice(offset, offset + limit);
      return { items, count: lines.length, nextOffset: offset + limit < lines.length ? offset + items.length : null };
    }, request.signal);
  }

  getDocument(session: ProviderSession, documentId: string, options: CallOptions = {}): Promise<ProviderDocument | undefined> {
    return this.run('getDocument', async () => (await sandboxDocuments.document(this.ownerOf(session), documentId))?.document, options.signal);
  }

  getDocumentDetails(session: ProviderSession, documentId: string, options: CallOptions = {}): Promise<DocumentDetail[]> {
    return this.run('getDocument', async () => {
      const stored = await sandboxDocuments.document(this.ownerOf(session), documentId);
      if (!stored) throw new ProviderRefusedError(404, 'no such document');
      return stored.details;
    }, options.signal);
  }

  findDocumentsBySalesId(session: ProviderSession, input: FindDocumentsInput, options: CallOptions = {}): Promise<ProviderDocument[]> {
    return this.run('findDocumentsBySalesId', async () => {
      const stored = await sandboxDocuments.bySale(this.ownerOf(session), input.documentTypeId, input.salesId);
      const date = stored?.document.emissionDate ?? 0;
      return stored && date >= input.emissionDateFrom && date <= input.emissionDateTo ? [stored.document] : [];
    }, options.signal);
  }

  createReturn(session: ProviderSession, input: CreateReturnInput, options: CallOptions = {}): Promise<Issued<ProviderReturn>> {
    return this.run('createReturn', async () => {
      const owner = this.ownerOf(session);
      const earlier = await sandboxDocuments.returnBySale(owner, input.salesId);
      if (earlier) return { created: false, value: earlier };
      const reference = await sandboxDocuments.document(owner, input.referenceDocumentId);
      if (!reference) throw new ProviderRefusedError(400, 'unknown referenceDocumentId');
      const credited = { ...reference.credited };
      for (const line of input.details) {
        const detail = reference.details.find((d) => d.id === line.documentDetailId);
        if (!detail) throw new ProviderRefusedError(400, `unknown documentDetailId ${line.documentDetailId}`);
        if ((credited[detail.id] ?? 0) + line.quantity > detail.quantity) throw new ProviderRefusedError(400, 'return exceeds what remains of the line');
        credited[detail.id] = (credited[detail.id] ?? 0) + line.quantity;
      }
      const { ids, folio } = await sandboxDocuments.nextIds(owner, 2, input.documentTypeId);
      const [creditNoteId, returnId] = ids as [string, string];
      const details = input.details.map((line, i) => {
        const detail = reference.details.find((d) => d.id === line.documentDetailId)!;
        return { id: `${creditNoteId}${String(i + 1).padStart(3, '0')}`, lineNumber: i + 1, quantity: line.quantity, netUnitValue: detail.netUnitValue };
      });
      const net = Math.round(details.reduce((sum, d) => sum + d.quantity * d.netUnitValue, 0));
      const document: ProviderDocument = {
        id: creditNoteId,
        number: folio,
        salesId: input.salesId,
        documentTypeId: input.documentTypeId,
        informedSii: 0,
        responseMsgSii: 'Documento aceptado (sandbox)',
        totalAmount: net,
        netAmount: net,
        taxAmount: 0,
        urlPdf: `https://sandbox.invalid/documents/${creditNoteId}.pdf`,
        emissionDate: input.emissionDate,
      };
      const value: ProviderReturn = { id: returnId, creditNoteId, referenceDocumentId: reference.document.id };
      try {
        await sandboxDocuments.addReturn(owner, input.salesId, value, { document, details, credited: {}, version: 1 }, { ...reference, credited });
      } catch (error) {
        if (!(error instanceof SandboxRaceError)) throw error;
        // The same salesId won meanwhile (its return is the answer), or another return changed the line: asked again, it decides afresh.
        const won = await sandboxDocuments.returnBySale(owner, input.salesId);
        if (won) return { created: false, value: won };
        throw new ProviderUnavailableError('server_error', 409);
      }
      return { created: true, value };
    }, options.signal);
  }
}
