import { randomUUID } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { dynamoEndpoint } from '../support/dynamo-endpoint.ts';
import { DynamoDbFaultProxy } from '../support/dynamodb-fault-proxy.ts';
import { ensureTable } from '../../infra/local/create-table.ts';
import { StreamReader } from '../../infra/local/stream-reader.ts';
import { resetTableClient, table } from '../../shared/table/client.ts';
import { OPERATOR, runAs } from '../../shared/aws-calls/identity.ts';

const waitFor = async (check: () => boolean, ms = 10_000) => {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 50));
  }
};

describe('local stream reader (DynamoDB Local streams)', () => {
  const endpoint = dynamoEndpoint();
  const tableName = `stream-${randomUUID()}`;
  const readers: StreamReader[] = [];
  afterAll(async () => {
    await Promise.all(readers.map((r) => r.stop()));
  });

  it('hands each consumer every change in order, and a failed batch again until it is handled', async () => {
    const { streamArn } = await ensureTable(endpoint, tableName);
    process.env.DYNAMODB_ENDPOINT = endpoint;
    process.env.TABLE_NAME = tableName;
    resetTableClient();
    const seenByA: DynamoDBRecord[] = [];
    const seenByB: string[] = [];
    let failuresLeft = 2;
    const reader = new StreamReader(endpoint, streamArn, {
      a: async (event) => {
        seenByA.push(...event.Records);
      },
      b: async (event) => {
        if (failuresLeft-- > 0) throw new Error('consumer crashed');
        seenByB.push(...event.Records.map((r) => r.dynamodb!.NewImage!.n.N!));
      },
    }, undefined, { onError: () => undefined });
    readers.push(reader);
    reader.start();
    // The test's own writes, not a function's.
    await runAs(OPERATOR, async () => {
      for (let n = 1; n <= 5; n++) {
        await table().send(new PutCommand({ TableName: tableName, Item: { pk: `ITEM#${n}`, sk: 'X', n } }));
      }
      await table().send(new PutCommand({ TableName: tableName, Item: { pk: 'ITEM#1', sk: 'X', n: 100 } }));
    });
    await waitFor(() => seenByA.length >= 6 && seenByB.length >= 6);
    expect(seenByA.map((r) => r.eventName)).toEqual(['INSERT', 'INSERT', 'INSERT', 'INSERT', 'INSERT', 'MODIFY']);
    expect(seenByA[5].dynamodb?.OldImage?.n).toEqual({ N: '1' });
    expect(seenByA[5].dynamodb?.NewImage?.n).toEqual({ N: '100' });
    expect(seenByA[0].eventSourceARN).toBe(streamArn);
    expect(seenByB).toEqual(['1', '2', '3', '4', '5', '100']);
  });

  it('reads on when DynamoDB Local refuses an iterator as trimmed, instead of asking with it forever', async () => {
    const name = `stream-${randomUUID()}`;
    const { streamArn } = await ensureTable(endpoint, name);
    process.env.TABLE_NAME = name;
    resetTableClient();
    // The first iterator the reader reads with is refused, every time it is used, as DynamoDB
    // Local did for a new table's shard in a whole run (aws-sdk-java#2923).
    const proxy = new DynamoDbFaultProxy(endpoint);
    const proxied = await proxy.start();
    let poisoned: unknown;
    proxy.faults.set('GetRecords', {
      status: 400,
      body: { __type: 'com.amazonaws.dynamodb.v20120810#TrimmedDataAccessException', message: 'The operation attempted to read past the oldest stream record in a shard.' },
      match: (request) => (poisoned ??= request.ShardIterator) === request.ShardIterator,
    });
    const seen: string[] = [];
    const refusals: string[] = [];
    const reader = new StreamReader(proxied, streamArn, { a: async (event) => void seen.push(...event.Records.map((r) => r.dynamodb!.NewImage!.pk.S!)) }, undefined, {
      onError: (_consumer, error) => refusals.push((error as Error).name),
    });
    readers.push(reader);
    reader.start();
    try {
      await runAs(OPERATOR, () => table().send(new PutCommand({ TableName: name, Item: { pk: 'AFTER#1', sk: 'X' } })));
      await waitFor(() => seen.length >= 1);
      expect(seen).toEqual(['AFTER#1']);
      expect(refusals[0]).toBe('TrimmedDataAccessException');
    } finally {
      await reader.stop();
      await proxy.stop();
    }
  });
  it('reads on and stops when a test moves the wall clock back, as fake Dates do', async () => {
    const name = `stream-${randomUUID()}`;
    const { streamArn } = await ensureTable(endpoint, name);
    process.env.TABLE_NAME = name;
    resetTableClient();
    const seen: string[] = [];
    const reader = new StreamReader(endpoint, streamArn, { a: async (event) => void seen.push(...event.Records.map((r) => r.dynamodb!.NewImage!.pk.S!)) });
    readers.push(reader);
    const put = (pk: string) => runAs(OPERATOR, () => table().send(new PutCommand({ TableName: name, Item: { pk, sk: 'X' } })));
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      // Rounds begin two weeks ahead, then the clock comes back to today while the reader idles:
      // a wait measured on the wall clock lasted those two weeks and stop() hung on it (CI, stop 31).
      vi.setSystemTime(Date.now() + 14 * 86_400_000);
      reader.start();
      await put('AHEAD#1');
      await waitFor(() => seen.length >= 1);
      await new Promise((r) => setTimeout(r, 300));
    } finally {
      vi.useRealTimers();
    }
    await put('TODAY#1');
    await waitFor(() => seen.length >= 2);
    expect(seen).toEqual(['AHEAD#1', 'TODAY#1']);
    await reader.stop();
  });
});
