import type { ProviderFake } from '../../test/support/provider-fake/index.ts';
import type { Item } from './table-scan.ts';
import type { ChaosTenant } from './workload.ts';

/** What the provider fake holds for the tenant's company: every item an import reads once. */
const providerTotal = (fake: ProviderFake, t: ChaosTenant): number => {
  const catalogue = fake.catalogue(t.clientCode);
  return catalogue.variants.length + catalogue.stocks.length + catalogue.clients.length;
};

const imports = (items: Item[], t: ChaosTenant) => items.filter((i) => i.entity === 'providerImport' && i.tenantId === t.tenantId);

/** Imports still queued or running: the run has not settled. */
export const importsOutstanding = (items: Item[], t: ChaosTenant): string[] =>
  imports(items, t)
    .filter((i) => i.state === 'queued' || i.state === 'running')
    .map((i) => `import ${i.importId} ${i.state} at step ${i.step}`);

/**
 * No import with a page applied twice: each import ended `succeeded`, its counts add up to what
 * the provider holds (nothing changed there during the run, so nothing is `updated`), the
 * records stored are those created, and no record's observationVersion moved past 1.
 */
export const checkImports = (items: Item[], t: ChaosTenant, fake: ProviderFake, violations: string[]): number => {
  const total = providerTotal(fake, t);
  const runs = imports(items, t);
  let created = 0;
  for (const run of runs) {
    const c = run.counts as { seen: number; created: number; updated: number; unchanged: number; conflicts: number };
    if (run.state !== 'succeeded') violations.push(`imports: import ${run.importId} ended ${run.state} ${JSON.stringify(run.error ?? null)}`);
    if (c.seen !== total || c.created + c.unchanged + c.conflicts !== c.seen || c.updated !== 0) {
      violations.push(`imports: import ${run.importId} counts ${JSON.stringify(c)} do not add up to the provider's ${total} items`);
    }
    created += c.created;
  }
  const records = items.filter((i) => i.entity === 'canonicalRecord' && i.tenantId === t.tenantId && i.connectionId === t.connectionId);
  if (runs.length > 0 && records.length !== created) violations.push(`imports: ${records.length} records stored for ${created} created`);
  for (const record of records) {
    if (record.observationVersion !== 1) violations.push(`imports: record ${record.id} at observationVersion ${record.observationVersion} with nothing changed at the provider`);
  }
  return runs.length;
};
