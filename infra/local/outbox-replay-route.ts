import type { IncomingMessage, ServerResponse } from 'node:http';
import { streamConsumerGroups } from '../../functions/stream-consumers.ts';
import { replayOutbox, type StreamConsumer } from '../../shared/events/replay.ts';
import { invokedAs, OPERATOR, runAs } from '../../shared/aws-calls/identity.ts';
import type { LocalRoute } from './gateway.ts';

/**
 * `POST /_local/outbox/replay {from, to, tenantId?}`: local only, never part of the API. The
 * admin command asks the running stack to replay, so the fan-out sends through that stack's
 * queue stand-in rather than one the command process would not have.
 */
export const outboxReplayRoute = (): LocalRoute => async (req: IncomingMessage, body: Buffer, res: ServerResponse) => {
  if (req.method !== 'POST' || new URL(req.url ?? '/', 'http://local').pathname !== '/_local/outbox/replay') return false;
  const answer = (status: number, value: unknown): true => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
    return true;
  };
  try {
    const input = JSON.parse(body.toString('utf8') || '{}') as { from?: string; to?: string; tenantId?: string };
    const from = new Date(input.from ?? '');
    const to = new Date(input.to ?? '');
    if (Number.isNaN(from.getTime()) || Number.isNaN(to.getTime()) || from >= to) return answer(400, { message: 'from and to must be ISO times, from before to' });
    // The operator's command reads the outbox; each consumer runs as its own function, as in the cloud.
    return answer(200, await runAs(OPERATOR, async () => replayOutbox({ from, to, tenantId: input.tenantId }, await loadConsumers())));
  } catch (error) {
    return answer(500, { message: (error as Error).message });
  }
};

export const loadConsumers = async (): Promise<Record<string, StreamConsumer>> =>
  Object.fromEntries(await Promise.all(streamConsumerGroups.map(async (group) => [group.name, invokedAs(group.name, await group.load())] as const)));
