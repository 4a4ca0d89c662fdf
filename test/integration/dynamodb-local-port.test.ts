import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, PortTakenError, startDynamoDbLocal } from '../../infra/local/dynamodb-local.ts';

// The global setup starts one DynamoDB Local per worker on picked ports, and a few files start
// their own: a port taken between the pick and Java's bind must not fail the run.
describe('DynamoDB Local and its port', () => {
  let squatter: Server;
  let taken: number;
  // It accepts and never answers, as a stray process on the port might.
  const held: Socket[] = [];

  beforeAll(async () => {
    squatter = createServer((socket) => held.push(socket));
    await new Promise<void>((resolve) => squatter.listen(0, '127.0.0.1', resolve));
    taken = (squatter.address() as { port: number }).port;
  });
  afterAll(async () => {
    held.forEach((socket) => socket.destroy());
    await new Promise<void>((resolve) => squatter.close(() => resolve()));
  });

  it('says the port is taken when something else holds it', async () => {
    const started = startDynamoDbLocal({ port: taken });
    await expect(started).rejects.toBeInstanceOf(PortTakenError);
    await expect(started).rejects.toThrow(/the port is taken/);
    // Java says so once it has started far enough to bind: about 5 s on a quiet machine, 39 s at
    // load 24 (issue 37). The limit only ends a run where it never says so.
  }, 240_000);

  it('never hands out the same port twice in one process', async () => {
    const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
    const more = [];
    for (let i = 0; i < 20; i++) more.push(await freePort());
    expect(new Set([...ports, ...more]).size).toBe(40);
  });
});
