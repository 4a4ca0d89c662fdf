import { nowIso } from '../../shared/clock.ts';
import { UnprocessableError, type FieldIssue } from '../../shared/errors.ts';
import type { BillingProvider, Page, PageRequest, ProviderSession } from '../../shared/ports/billing-provider/port.ts';
import { billingProvider } from '../../shared/ports/billing-provider/registry.ts';
import type { Write } from '../../shared/table/transaction.ts';
import { activeConnection, checkVersion, saveConnection, sessionOf, type ConnectionRecord } from './connection-record.ts';
import type { IssueOptions, IssueSettings, IssueSettingsBody } from './schemas.ts';

/** The specification's limit: at most 200 of each. */
export const MAX_OPTIONS = 200;
/** Pages read per list at most (50 each): enough for any real company, bounded for a slow one. */
const MAX_PAGES = 20;
/**
 * All the reads of one options answer end by then (unknown, 503), so a slow provider is answered
 * within the function's 10 s timeout instead of each page waiting its own 8 s in turn.
 */
export const OPTIONS_DEADLINE_MS = 7_000;

const byNumericId = (a: { id: string }, b: { id: string }): number => (BigInt(a.id) < BigInt(b.id) ? -1 : BigInt(a.id) > BigInt(b.id) ? 1 : 0);
const ID = /^[1-9][0-9]{0,9}$/;

/** Every active item of a list, page by page, lowest ids first, at most MAX_OPTIONS. */
const readAll = async <T extends { id: string }>(list: (page: PageRequest) => Promise<Page<T>>, signal: AbortSignal): Promise<T[]> => {
  const items: T[] = [];
  let offset: number | null = 0;
  for (let pages = 0; offset !== null && pages < MAX_PAGES; pages++) {
    const page: Page<T> = await list({ offset, activeOnly: true, signal });
    items.push(...page.items);
    offset = page.nextOffset;
  }
  // An id the specification's shape cannot carry is left out rather than answered malformed.
  return items.filter((item) => ID.test(item.id)).sort(byNumericId).slice(0, MAX_OPTIONS);
};

const clip = (text: string, max: number): string => (text.length > max ? text.slice(0, max) : text);

/** The connection's options, read live from its provider (decisions 10). */
export const readIssueOptions = async (
  record: ConnectionRecord,
  provider: BillingProvider = billingProvider(record.origin),
  signal: AbortSignal = AbortSignal.timeout(OPTIONS_DEADLINE_MS),
): Promise<IssueOptions> => {
  const session: ProviderSession = await sessionOf(record);
  // allSettled, not all: a failed list must not leave the others paging on after the answer
  // (in Lambda they would resume, half done, in the next request of the container).
  const settled = await Promise.allSettled([
    readAll((page) => provider.listOffices(session, page), signal),
    readAll((page) => provider.listTaxes(session, page), signal),
    readAll((page) => provider.listDocumentTypes(session, page), signal),
    readAll((page) => provider.listShippingTypes(session, page), signal),
  ] as const);
  for (const result of settled) if (result.status === 'rejected') throw result.reason;
  const [offices, taxes, documentTypes, shippingTypes] = settled.map((r) => (r as PromiseFulfilledResult<unknown>).value) as [
    Awaited<ReturnType<typeof provider.listOffices>>['items'],
    Awaited<ReturnType<typeof provider.listTaxes>>['items'],
    Awaited<ReturnType<typeof provider.listDocumentTypes>>['items'],
    Awaited<ReturnType<typeof provider.listShippingTypes>>['items'],
  ];
  return {
    offices: offices.map((o) => ({ id: o.id, name: clip(o.name, 120) })),
    taxes: taxes.map((t) => ({ id: t.id, name: clip(t.name, 120), percentage: t.percentage, code: clip(t.code ?? '', 20) })),
    documentTypes: documentTypes.map((d) => ({ id: d.id, name: clip(d.name, 120), codeSii: d.codeSii === null ? null : clip(d.codeSii, 10) })),
    shippingTypes: shippingTypes.map((t) => ({ id: t.id, name: clip(t.name, 120), codeSii: t.codeSii === null ? null : clip(t.codeSii, 10) })),
    current: record.issueSettings,
  };
};

/** decisions 10 and 14: which SII codes each document kind may be issued as. */
export const CODE_SII_RULES = { receipt: ['39', '41'], invoice: ['33', '34'], creditNote: ['61'], dispatchGuide: ['52'] } as const;
/** decisions 14: the SII's transfer reason of each shipping type setting. */
export const SHIPPING_CODE_SII = { sale: '1', internalTransfer: '5', otherTransfer: '6' } as const;

/** Every problem of the settings at once, each naming its field. */
export const settingsIssues = (options: IssueOptions, body: Omit<IssueSettingsBody, 'version'>): FieldIssue[] => {
  const issues: FieldIssue[] = [];
  if (!options.offices.some((o) => o.id === body.officeId)) issues.push({ path: 'body.officeId', message: 'is not an active office of the provider' });
  if (!options.taxes.some((t) => t.id === body.vatTaxId)) issues.push({ path: 'body.vatTaxId', message: 'is not an active tax of the provider' });
  for (const kind of ['receipt', 'invoice', 'creditNote', 'dispatchGuide'] as const) {
    const id = body.documentTypeIds[kind];
    // The dispatch guide's type is optional (decisions 14): absent or null is not checked.
    if (id === undefined || id === null) continue;
    const type = options.documentTypes.find((d) => d.id === id);
    const allowed: readonly string[] = CODE_SII_RULES[kind];
    if (!type) issues.push({ path: `body.documentTypeIds.${kind}`, message: 'is not an active document type of the provider' });
    else if (type.codeSii === null || !allowed.includes(type.codeSii)) {
      issues.push({ path: `body.documentTypeIds.${kind}`, message: `must be a document type with codeSii ${allowed.join(' or ')}, this one has ${type.codeSii ?? 'none'}` });
    }
  }
  for (const transfer of ['sale', 'internalTransfer', 'otherTransfer'] as const) {
    const id = body.shippingTypeIds?.[transfer];
    if (id === undefined) continue;
    const type = options.shippingTypes.find((t) => t.id === id);
    const codeSii = SHIPPING_CODE_SII[transfer];
    if (!type) issues.push({ path: `body.shippingTypeIds.${transfer}`, message: 'is not an active shipping type of the provider' });
    else if (type.codeSii !== codeSii) {
      issues.push({ path: `body.shippingTypeIds.${transfer}`, message: `must be a shipping type with codeSii ${codeSii}, this one has ${type.codeSii ?? 'none'}` });
    }
  }
  return issues;
};

export const saveIssueSettings = async (tenantId: string, connectionId: string, body: IssueSettingsBody, now: Date): Promise<{ record: ConnectionRecord; writes: Write[] }> => {
  const current = await activeConnection(tenantId, connectionId);
  checkVersion(current, body.version);
  const options = await readIssueOptions(current);
  const issues = settingsIssues(options, body);
  if (issues.length > 0) throw new UnprocessableError('The issue settings do not fit the provider’s current options.', 'invalid_issue_settings', issues);
  const issueSettings: IssueSettings = {
    officeId: body.officeId,
    vatTaxId: body.vatTaxId,
    documentTypeIds: {
      receipt: body.documentTypeIds.receipt,
      invoice: body.documentTypeIds.invoice,
      creditNote: body.documentTypeIds.creditNote,
      dispatchGuide: body.documentTypeIds.dispatchGuide ?? null,
    },
    dispatchStock: body.dispatchStock ?? false,
    shippingTypeIds: body.shippingTypeIds
      ? { sale: body.shippingTypeIds.sale, internalTransfer: body.shippingTypeIds.internalTransfer, otherTransfer: body.shippingTypeIds.otherTransfer }
      : null,
  };
  const record: ConnectionRecord = { ...current, issueSettings, version: current.version + 1, updatedAt: nowIso(now) };
  return { record, writes: [saveConnection(record, body.version)] };
};
