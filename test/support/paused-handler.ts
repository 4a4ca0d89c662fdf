import { rotateSecretOperation } from '../../functions/webhooks/operations.ts';
import { httpHandler } from '../../shared/http/handler.ts';

/** A request held at the operation's door: `reached` once it is there, `open()` lets it in. */
export interface Hold {
  reached: Promise<void>;
  open(): void;
}

let waiting: { arrive: () => void; opened: Promise<void> } | undefined;

/** The next request to pass the chain's checks (token, membership, idempotency) waits there. */
export const holdNext = (): Hold => {
  let arrive!: () => void;
  let open!: () => void;
  const reached = new Promise<void>((resolve) => (arrive = resolve));
  const opened = new Promise<void>((resolve) => (open = resolve));
  waiting = { arrive, opened };
  return { reached, open };
};

const pass = async (): Promise<void> => {
  const held = waiting;
  waiting = undefined;
  if (!held) return;
  held.arrive();
  await held.opened;
};

/**
 * The real chain and the real secret rotation, with a door between the idempotency check and
 * the operation's reads, so a test can let a twin commit exactly there (a Lambda handler module
 * for LocalGateway).
 */
export const pausedRotation = { ...rotateSecretOperation, handle: async (input: Parameters<typeof rotateSecretOperation.handle>[0]) => (await pass(), rotateSecretOperation.handle(input)) };

export const handler = httpHandler([pausedRotation]);
