import { randomBytes } from 'node:crypto';
import { ProviderRefusedError, ProviderUnavailableError } from './errors.ts';
import {
  PAGE_LIMIT,
  type BillingProvider,
  type CreateReturnInput,
  type DocumentDetail,
  type FindDocumentsInput,
  type IssueDocumentInput,
  type Issued,
  type Page,
  type PageRequest,
  type ProviderDocument,
  type ProviderGrant,
  type ProviderReturn,
  type ProviderSession,
  type StockFilter,
} from './port.ts';
import * as shapes from './provider-shapes.ts';
import { sandboxData } from './sandbox-data.ts';

/** The sandbox's consent page hands out codes of this form; nothing else is accepted. */
const CODE = /^sbx\.([0-9]{1,9}-[0-9K])\.([0-9a-f]{16,64})$/;
const TOKEN = /^sandbox\.([0-9]{1,9}-[0-9K])\.[0-9a-f]{32}$/;

const relationId = (value: unknown): string => String((value as { id?: unknown } | undefined)?.id ?? '');
const matchesStock = (stock: Record<string, unknown>, filter: StockFilter): boolean =>
  (!filter.variantId || relationId(stock.variant) === filter.variantId) && (!filter.officeId || relationId(stock.office) === filter.officeId);

export const sandboxCode = (clientCode: string): string => `sbx.${clientCode}.${randomBytes(16).toString('hex')}`;

export type SandboxOperation = 'exchangeCode' | 'list' | 'issueDocument' | 'createReturn' | 'getDocument' | 'findDocumentsBySalesId';

/**
 * Faults a test switches on: `error_before_apply` answers "unknown" (a 500) without doing
 * anything, `timeout_after_apply` does the work and then answers "unknown" (a timeout), `refuse`
 * answers a definitive 400, `slow` waits `delayMs` and then answers normally.
 */
export interface SandboxFault {
  operation: SandboxOperation;
  kind: 'error_before_apply' | 'timeout_after_apply' | 'refuse' | 'slow';
  delayMs?: number;
  /** How many calls it hits. @default every call until cleared */
  times?: number;
}

interface StoredDocument {
  document: ProviderDocument;
  details: DocumentDetail[];
  credited: Map<string, number>;
}

interface Company {
  documents: StoredDocument[];
  returns: Array<{ salesId: string; value: ProviderReturn }>;
  nextId: number;
}

/**
 * `sandbox-v1`: an in-process provider for trying the service without an account, and for tests.
 * Data is deterministic per clientCode (or SANDBOX_PROVIDER_DATA_DIR's file); documents and
 * returns are kept in this process, with the provider's one-per-salesId rule.
 */
export class SandboxProvider implements BillingProvider {
  readonly origin = 'sandbox-v1' as const;
  private readonly companies = new Map<string, Company>();
  private faultList: SandboxFault[] = [];

  readonly faults = {
    add: (fault: SandboxFault): void => void this.faultList.push({ ...fault }),
    clear: (): void => void (this.faultList = []),
  };

  /** What the sandbox holds for a company: the invoicing tests read it. */
  recorded(clientCode: string): { documents: ProviderDocument[]; returns: ProviderReturn[] } {
    const company = this.companies.get(clientCode);
    return { documents: company?.documents.map((d) => d.document) ?? [], returns: company?.returns.map((r) => r.value) ?? [] };
  }

  private async fault(operation: SandboxOperation): Promise<SandboxFault['kind'] | undefined> {
    const index = this.faultList.findIndex((f) => f.operation === operation);
    if (index < 0) return undefined;
    const fault = this.faultList[index]!;
    if (fault.times !== undefined && --fault.times <= 0) this.faultList.splice(index, 1);
    if (fault.kind === 'slow') await new Promise((resolve) => setTimeout(resolve, fault.delayMs ?? 1000));
    if (fault.kind === 'error_before_apply') throw new ProviderUnavailableError('server_error', 500);
    if (fault.kind === 'refuse') throw new ProviderRefusedError(400, 'refused by a sandbox fault');
    return fault.kind;
  }

  /** Runs `apply`, honouring a fault switched on for `operation`. */
  private async run<T>(operation: SandboxOperation, apply: () => T): Promise<T> {
    const kind = await this.fault(operation);
    const result = apply();
    if (kind === 'timeout_after_apply') throw new ProviderUnavailableError('timeout');
    return result;
  }

  private clientCodeOf(session: ProviderSession): string {
    const match = TOKEN.exec(session.accessToken);
    if (!match) throw new ProviderRefusedError(401, 'not a sandbox access token');
    return match[1]!;
  }

  private company(clientCode: string): Company {
    let company = this.companies.get(clientCode);
    if (!company) this.companies.set(clientCode, (company = { documents: [], returns: [], nextId: 1 }));
    return company;
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

  issueDocument(session: ProviderSession, input: IssueDocumentInput): Promise<Issued<ProviderDocument>> {
    return this.run('issueDocument', () => {
      const company = this.company(this.clientCodeOf(session));
      const earlier = company.documents.find((d) => d.document.salesId === input.salesId && d.document.documentTypeId === input.documentTypeId);
      if (earlier) return { created: false, value: earlier.document };
      if (input.details.length === 0) throw new ProviderRefusedError(400, 'a document needs details');
      const types = sandboxData(this.clientCodeOf(session)).documentTypes.map(shapes.readDocumentType);
      if (!types.some((t) => t.id === input.documentTypeId)) throw new ProviderRefusedError(400, 'unknown documentTypeId');
      const net = Math.round(input.details.reduce((sum, line) => sum + line.quantity * line.netUnitValue, 0));
      const taxed = Math.round(input.details.reduce((sum, line) => sum + (line.taxId ? line.quantity * line.netUnitValue : 0), 0));
      const tax = Math.round(taxed * 0.19);
      const id = String(company.nextId++);
      const document: ProviderDocument = {
        id,
        number: String(company.documents.filter((d) => d.document.documentTypeId === input.documentTypeId).length + 1),
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
      company.documents.push({ document, details, credited: new Map() });
      return { created: true, value: document };
    });
  }

  getDocument(session: ProviderSession, documentId: string): Promise<ProviderDocument | undefined> {
    return this.run('getDocument', () => this.company(this.clientCodeOf(session)).documents.find((d) => d.document.id === documentId)?.document);
  }

  getDocumentDetails(session: ProviderSession, documentId: string): Promise<DocumentDetail[]> {
    return this.run('getDocument', () => {
      const stored = this.company(this.clientCodeOf(session)).documents.find((d) => d.document.id === documentId);
      if (!stored) throw new ProviderRefusedError(404, 'no such document');
      return stored.details;
    });
  }

  findDocumentsBySalesId(session: ProviderSession, input: FindDocumentsInput): Promise<ProviderDocument[]> {
    return this.run('findDocumentsBySalesId', () =>
      this.company(this.clientCodeOf(session))
        .documents.map((d) => d.document)
        .filter(
          (d) =>
            d.salesId === input.salesId &&
            d.documentTypeId === input.documentTypeId &&
            (d.emissionDate ?? 0) >= input.emissionDateFrom &&
            (d.emissionDate ?? 0) <= input.emissionDateTo,
        ),
    );
  }

  createReturn(session: ProviderSession, input: CreateReturnInput): Promise<Issued<ProviderReturn>> {
    return this.run('createReturn', () => {
      const company = this.company(this.clientCodeOf(session));
      const earlier = company.returns.find((r) => r.salesId === input.salesId);
      if (earlier) return { created: false, value: earlier.value };
      const reference = company.documents.find((d) => d.document.id === input.referenceDocumentId);
      if (!reference) throw new ProviderRefusedError(400, 'unknown referenceDocumentId');
      for (const line of input.details) {
        const detail = reference.details.find((d) => d.id === line.documentDetailId);
        if (!detail) throw new ProviderRefusedError(400, `unknown documentDetailId ${line.documentDetailId}`);
        if ((reference.credited.get(detail.id) ?? 0) + line.quantity > detail.quantity) throw new ProviderRefusedError(400, 'return exceeds what remains of the line');
      }
      for (const line of input.details) reference.credited.set(line.documentDetailId, (reference.credited.get(line.documentDetailId) ?? 0) + line.quantity);
      const creditNoteId = String(company.nextId++);
      const details = input.details.map((line, i) => {
        const detail = reference.details.find((d) => d.id === line.documentDetailId)!;
        return { id: `${creditNoteId}${String(i + 1).padStart(3, '0')}`, lineNumber: i + 1, quantity: line.quantity, netUnitValue: detail.netUnitValue };
      });
      const net = Math.round(details.reduce((sum, d) => sum + d.quantity * d.netUnitValue, 0));
      const document: ProviderDocument = {
        id: creditNoteId,
        number: String(company.documents.filter((d) => d.document.documentTypeId === input.documentTypeId).length + 1),
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
      company.documents.push({ document, details, credited: new Map() });
      const value: ProviderReturn = { id: String(company.nextId++), creditNoteId, referenceDocumentId: reference.document.id };
      company.returns.push({ salesId: input.salesId, value });
      return { created: true, value };
    });
  }
}
