import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { currentFunction } from '../runtime/current-function.ts';
import { canonicalContext, type KeyService } from '../ports/key-service.ts';

/** A secret as stored: the wrapped data key beside the data it encrypts (all base64). */
export interface SealedSecret {
  v: 1;
  key: string;
  iv: string;
  data: string;
  tag: string;
}

/**
 * Decrypted data keys, so a worker does not call KMS on every attempt. Keyed by key service,
 * wrapped key and context, so a hit never bypasses a check the key service would have made.
 * Bounded and aged: a key disabled in KMS stops working here within CACHE_MAX_AGE_MS.
 */
const CACHE_LIMIT = 500;
const CACHE_MAX_AGE_MS = 10 * 60_000;
const cache = new Map<string, { key: Promise<Uint8Array>; at: number }>();
const serviceIds = new WeakMap<KeyService, number>();
let nextServiceId = 0;

const cacheKey = (keys: KeyService, sealed: SealedSecret, context: Record<string, string>): string => {
  let id = serviceIds.get(keys);
  if (id === undefined) serviceIds.set(keys, (id = nextServiceId++));
  // Per function as well: each is its own Lambda with its own cache in the cloud, while locally
  // all share this process (outside the local stack and tests there is no function name).
  return `${currentFunction() ?? ''}\n${id}\n${sealed.key}\n${canonicalContext(context).toString()}`;
};

const dataKey = (keys: KeyService, sealed: SealedSecret, context: Record<string, string>): Promise<Uint8Array> => {
  const id = cacheKey(keys, sealed, context);
  const hit = cache.get(id);
  if (hit && Date.now() - hit.at < CACHE_MAX_AGE_MS) {
    cache.delete(id); // re-inserted below: the Map's order is the recency order
    cache.set(id, hit);
    return hit.key;
  }
  // The promise is cached, so concurrent attempts for one endpoint make one KMS call.
  const key = keys.decrypt(sealed.key, context);
  key.catch(() => {
    if (cache.get(id)?.key === key) cache.delete(id);
  });
  cache.set(id, { key, at: Date.now() });
  if (cache.size > CACHE_LIMIT) cache.delete(cache.keys().next().value!);
  return key;
};

/** Tests that count key-service calls start from an empty cache. */
export const clearDataKeyCache = (): void => cache.clear();

export async function seal(keys: KeyService, plaintext: string, context: Record<string, string>): Promise<SealedSecret> {
  const { plaintext: key, encrypted } = await keys.generateDataKey(context);
  try {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    // The context binds the data too, not only the data key: a record copied to another tenant does not open.
    cipher.setAAD(canonicalContext(context));
    const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return { v: 1, key: encrypted, iv: iv.toString('base64'), data: data.toString('base64'), tag: cipher.getAuthTag().toString('base64') };
  } finally {
    key.fill(0);
  }
}

export async function unseal(keys: KeyService, sealed: SealedSecret, context: Record<string, string>): Promise<string> {
  if (sealed?.v !== 1) throw new Error(`unknown sealed secret version ${String(sealed?.v)}`);
  const key = await dataKey(keys, sealed, context);
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(sealed.iv, 'base64'), { authTagLength: 16 });
  decipher.setAAD(canonicalContext(context));
  try {
    // authTagLength above: a stored tag cut short is refused rather than checked on fewer bytes.
    decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(sealed.data, 'base64')), decipher.final()]).toString('utf8');
  } catch {
    throw new Error('sealed secret does not open: tampered data or another encryption context');
  }
}
