import { nowIso } from '../../shared/clock.ts';
import { seal, unseal, type SealedSecret } from '../../shared/crypto/sealed-secret.ts';
import { newId } from '../../shared/ids.ts';
import { ports } from '../../shared/ports/registry.ts';
import { keys } from '../../shared/table/keys.ts';
import { ENDPOINT_ENTITY } from './entities.ts';
import { generateSecret } from './transport/signature.ts';
import type { Endpoint, SecretReveal } from './schemas.ts';

interface StoredSecret {
  id: string;
  createdAt: string;
  sealed: SealedSecret;
}

interface RetiringSecret extends StoredSecret {
  expiresAt: string;
}

/** A destination as stored: the API fields plus its sealed secrets (never the plain values). */
export interface EndpointRecord extends Omit<Endpoint, 'secrets'> {
  tenantId: string;
  currentSecret: StoredSecret;
  retiringSecrets: RetiringSecret[];
}

export const toEndpointRecord = (item: Record<string, unknown>): EndpointRecord => ({
  id: item.endpointId as string,
  tenantId: item.tenantId as string,
  url: item.url as string,
  description: (item.description as string | null) ?? null,
  eventTypes: item.eventTypes as Endpoint['eventTypes'],
  state: item.state as Endpoint['state'],
  disabledReason: (item.disabledReason as Endpoint['disabledReason']) ?? null,
  consecutiveFailures: item.consecutiveFailures as number,
  version: item.version as number,
  createdAt: item.createdAt as string,
  updatedAt: item.updatedAt as string,
  currentSecret: item.currentSecret as StoredSecret,
  retiringSecrets: (item.retiringSecrets as RetiringSecret[]) ?? [],
});

export const endpointItem = (record: EndpointRecord) => ({
  ...keys.webhookEndpoint(record.tenantId, record.id),
  entity: ENDPOINT_ENTITY,
  endpointId: record.id,
  tenantId: record.tenantId,
  url: record.url,
  description: record.description,
  eventTypes: record.eventTypes,
  state: record.state,
  disabledReason: record.disabledReason,
  consecutiveFailures: record.consecutiveFailures,
  version: record.version,
  createdAt: record.createdAt,
  updatedAt: record.updatedAt,
  currentSecret: record.currentSecret,
  retiringSecrets: record.retiringSecrets,
});

const stillSigning = (secrets: RetiringSecret[], now: Date): RetiringSecret[] => secrets.filter((s) => s.expiresAt > nowIso(now));

/**
 * Receivers often put a token in the query string; only those who manage destinations see it.
 * Others get each parameter's name with the value `REDACTED`, so they can still tell URLs apart.
 */
export const redactQuery = (url: string): string => {
  const parsed = new URL(url);
  if (parsed.search === '') return url;
  const names = [...parsed.searchParams.keys()];
  parsed.search = names.map((name) => `${encodeURIComponent(name)}=REDACTED`).join('&');
  return parsed.toString();
};

/**
 * The API view: `secrets` lists the retiring secrets that still sign (decisions 5); the URL's
 * query values are shown only to a caller who may manage destinations.
 */
export const toEndpoint = (record: EndpointRecord, now: Date, view: { revealQuery: boolean } = { revealQuery: true }): Endpoint => {
  const { tenantId: _t, currentSecret: _c, retiringSecrets, ...fields } = record;
  return {
    ...fields,
    url: view.revealQuery ? fields.url : redactQuery(fields.url),
    secrets: stillSigning(retiringSecrets, now).map(({ id, createdAt, expiresAt }) => ({ id, createdAt, expiresAt })),
  };
};

/** The encryption context binds a sealed secret to its tenant, destination and id. */
const sealContext = (tenantId: string, endpointId: string, secretId: string) => ({ tenantId, endpointId, secretId });

export const newSecret = async (tenantId: string, endpointId: string, now: Date): Promise<{ stored: StoredSecret; reveal: SecretReveal }> => {
  const id = newId();
  const value = generateSecret();
  const createdAt = nowIso(now);
  const sealed = await seal(ports().keys, value, sealContext(tenantId, endpointId, id));
  return { stored: { id, createdAt, sealed }, reveal: { id, value, createdAt } };
};

/**
 * Rotation: the old current secret keeps signing until the grace ends. Only the latest retiring
 * secret is kept, so a notification never carries more than the two signatures of the spec.
 */
export const rotate = (record: EndpointRecord, next: StoredSecret, graceSeconds: number, now: Date): Pick<EndpointRecord, 'currentSecret' | 'retiringSecrets'> => ({
  currentSecret: next,
  retiringSecrets: graceSeconds > 0 ? [{ ...record.currentSecret, expiresAt: nowIso(new Date(now.getTime() + graceSeconds * 1000)) }] : [],
});

/**
 * What an attempt needs of its destination, copied onto the delivery when the destination is
 * read anyway (the fan-out, a test notification, an attempt that read it): its state, its
 * sealed secrets and its failure count, as of `takenAt`. The URL never changes.
 */
export interface DestinationSnapshot extends Pick<EndpointRecord, 'url' | 'state' | 'version' | 'consecutiveFailures' | 'currentSecret' | 'retiringSecrets'> {
  takenAt: string;
}

/** `takenAt` is when the read began: a change committed after it may be missing from the copy. */
export const snapshotOf = (record: EndpointRecord, takenAt: Date): DestinationSnapshot => ({
  url: record.url,
  state: record.state,
  version: record.version,
  consecutiveFailures: record.consecutiveFailures,
  currentSecret: record.currentSecret,
  retiringSecrets: record.retiringSecrets,
  takenAt: nowIso(takenAt),
});

/** The plain secrets that sign a notification now, newest first. */
export const signingSecrets = async (record: Pick<EndpointRecord, 'tenantId' | 'id' | 'currentSecret' | 'retiringSecrets'>, now: Date): Promise<string[]> => {
  const secrets = [record.currentSecret, ...stillSigning(record.retiringSecrets, now)];
  return Promise.all(secrets.map((s) => unseal(ports().keys, s.sealed, sealContext(record.tenantId, record.id, s.id))));
};
