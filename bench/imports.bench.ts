import { BatchWriteCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { table, tableName } from '../shared/table/client.ts';
import { keys } from '../shared/table/keys.ts';
import { startProviderBench } from './support/provider-bench.ts';

/**
 * `npm run bench:imports`: a catalogue of N variants with stock in 3 offices imported through the
 * whole path (POST .../imports, the local queue, the worker, the provider-chile-v1 adapter
 * against the fake, mapping, the version rule, the page transactions), beside the floor: the very
 * items the path stored, written again with BatchWriteItem (25 a call, one call at a time, as the
 * path commits one page at a time) to the same DynamoDB Local, in the same run. The worker runs in
 * this process: its peak live heap (after GC) during the import is printed, and should not grow with N.
 */
const SIZES = (process.env.BENCH_SIZES ?? '1000,10000').split(',').map(Number);
process.env.LOG_LEVEL = 'WARN';
// The provider's rate (10/s) would make this a benchmark of the provider; the spacing is tested apart.
process.env.IMPORT_PROVIDER_MIN_INTERVAL_MS = '0';

const { fake, stack, tenantId, api, connect } = await startProviderBench();

const catalogue = (n: number) => ({
  variants: Array.from({ length: n }, (_, i) => ({ id: i + 1, description: `Variante ${i + 1}`, code: `SKU-${i + 1}`, barCode: `780${i}`, state: 0, product: { id: 1 + Math.floor(i / 3) } })),
  stocks: Array.from({ length: n }, (_, i) => [1, 2, 3].map((office) => ({ quantity: i % 500, quantityReserved: 0, quantityAvailable: i % 500, variant: { id: i + 1 }, office: { id: office } }))).flat(),
  clients: [],
});

const storedItems = async (connectionId: string): Promise<Record<string, unknown>[]> => {
  const items: Record<string, unknown>[] = [];
  for (const stream of ['variants', 'stock_levels']) {
    let start: Record<string, unknown> | undefined;
    do {
      const page = await table().send(new QueryCommand({ TableName: tableName(), KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': keys.canonicalRecordPartition(tenantId, connectionId, stream) }, ExclusiveStartKey: start }));
      items.push(...(page.Items ?? []));
      start = page.LastEvaluatedKey;
    } while (start);
  }
  return items;
};

const floor = async (items: Record<string, unknown>[]): Promise<number> => {
  const started = performance.now();
  for (let i = 0; i < items.length; i += 25) {
    let request: Record<string, { PutRequest: { Item: Record<string, unknown> } }[]> | undefined = {
      [tableName()]: items.slice(i, i + 25).map((item) => ({ PutRequest: { Item: { ...item, pk: `FLOOR#${item.pk as string}` } } })),
    };
    while (request && Object.keys(request).length > 0) request = (await table().send(new BatchWriteCommand({ RequestItems: request }))).UnprocessedItems as typeof request;
  }
  return performance.now() - started;
};

const rows: string[] = [];
for (const [index, n] of SIZES.entries()) {
  const clientCode = ['76086428-5', '96790240-3', '10000013-K'][index % 3]!;
  fake.addCompany({ clientCode, clientName: `Bench ${n}` }, catalogue(n));
  const connection = await connect(clientCode);

  // The provider fake lives in this process too: its catalogue is there before the baseline, and
  // its per-request garbage is collected before each sample (--expose-gc, every 2 s so the full
  // collections cost the path little), so the figure is what
  // the import keeps alive while it runs.
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with node --expose-gc (npm run bench:imports does)');
  gc();
  const baseHeap = process.memoryUsage().heapUsed;
  let peakHeap = baseHeap;
  let peakRss = process.memoryUsage().rss;
  const sampler = setInterval(() => {
    gc();
    const m = process.memoryUsage();
    peakHeap = Math.max(peakHeap, m.heapUsed);
    peakRss = Math.max(peakRss, m.rss);
  }, 2000);
  const startedAt = Date.now();
  const created = await api('POST', `/v1/integrations/connections/${connection.id}/imports`, { streams: ['variants', 'stock_levels'] });
  let state = created;
  // Looked at twice a second: each look is a request (membership read, rate counter) that the
  // import would otherwise share DynamoDB Local with. The import's own finishedAt ends the clock.
  while (state.state === 'queued' || state.state === 'running') {
    await new Promise((resolve) => setTimeout(resolve, 500));
    state = await api('GET', `/v1/integrations/connections/${connection.id}/imports/${created.id}`);
  }
  const pathMs = Date.parse(state.finishedAt) - startedAt;
  clearInterval(sampler);
  if (state.state !== 'succeeded' || state.counts.created !== n * 4) throw new Error(`import ended ${JSON.stringify(state)}`);

  const items = await storedItems(connection.id);
  const floorMs = await floor(items);
  const pathRate = (n * 4) / (pathMs / 1000);
  const floorRate = items.length / (floorMs / 1000);
  const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(0);
  rows.push(`| ${n} variants + ${n * 3} stock levels | ${pathRate.toFixed(0)} | ${floorRate.toFixed(0)} | ${(pathRate / floorRate).toFixed(2)} | ${(pathMs / 1000).toFixed(1)} | ${mb(peakHeap)} (${mb(peakHeap - baseHeap)} above the start) | ${mb(peakRss)} |`);
  console.log(rows.at(-1));
}

console.log('\nImport through the whole path vs BatchWriteItem of the same items (records per second, one run)\n');
console.log('| catalogue | path records/s | floor records/s | ratio | path s | live heap after GC, peak MB | peak RSS MB |');
console.log('|---|---|---|---|---|---|---|');
for (const row of rows) console.log(row);
await stack.stop();
await fake.stop();
process.exit(0);
