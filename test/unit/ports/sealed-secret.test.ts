import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { clearDataKeyCache, seal, unseal } from '../../../shared/crypto/sealed-secret.ts';
import { LocalKeyService, type KeyService } from '../../../shared/ports/key-service.ts';
import { runAs } from '../../../shared/runtime/current-function.ts';

const dir = mkdtempSync(join(tmpdir(), 'sealed-secret-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
beforeEach(() => clearDataKeyCache());

const context = { tenantId: 'tenant-1', endpointId: 'ep_1' };
const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
let n = 0;
const keyFile = () => join(dir, `keys-${n++}`, 'master.key');

/** Counts the unwrap calls, to see the cache at work. */
const counting = (inner: KeyService) => {
  const calls = { decrypt: 0 };
  const keys: KeyService = {
    generateDataKey: (c) => inner.generateDataKey(c),
    decrypt: (e, c) => {
      calls.decrypt++;
      return inner.decrypt(e, c);
    },
  };
  return { keys, calls };
};

describe('sealed secrets with LocalKeyService', () => {
  it('round-trips, and the stored object holds neither the secret nor the data key', async () => {
    const keys = new LocalKeyService({ keyFile: keyFile() });
    let dataKey: Uint8Array | undefined;
    const spy: KeyService = {
      generateDataKey: async (c) => {
        const key = await keys.generateDataKey(c);
        dataKey = Uint8Array.from(key.plaintext);
        return key;
      },
      decrypt: (e, c) => keys.decrypt(e, c),
    };
    const sealed = await seal(spy, secret, context);
    expect(sealed).toMatchObject({ v: 1, key: expect.any(String), iv: expect.any(String), data: expect.any(String), tag: expect.any(String) });
    const stored = JSON.stringify(sealed);
    expect(stored).not.toContain(secret);
    expect(stored).not.toContain(Buffer.from(secret).toString('base64'));
    expect(stored).not.toContain(Buffer.from(dataKey!).toString('base64'));
    expect(stored).not.toContain(Buffer.from(dataKey!).toString('hex'));
    expect(await unseal(keys, sealed, context)).toBe(secret);
    // Context key order does not matter, as with KMS.
    expect(await unseal(keys, sealed, { endpointId: 'ep_1', tenantId: 'tenant-1' })).toBe(secret);
  });

  it('keeps one cache per function: a second function unwraps the key itself, as its own Lambda would in the cloud', async () => {
    const { keys, calls } = counting(new LocalKeyService({ keyFile: keyFile() }));
    const sealed = await seal(keys, secret, context);
    expect(await runAs('webhook-worker', () => unseal(keys, sealed, context))).toBe(secret);
    expect(await runAs('webhook-worker', () => unseal(keys, sealed, context))).toBe(secret);
    expect(calls.decrypt).toBe(1);
    // Locally all functions share one process: without the split this one would skip its own
    // kms:Decrypt, and the IAM pass would not see the grant it needs.
    expect(await runAs('webhooks', () => unseal(keys, sealed, context))).toBe(secret);
    expect(calls.decrypt).toBe(2);
  });

  it('seals the same secret differently each time', async () => {
    const keys = new LocalKeyService({ keyFile: keyFile() });
    const [a, b] = await Promise.all([seal(keys, secret, context), seal(keys, secret, context)]);
    expect(a.key).not.toBe(b.key);
    expect(a.data).not.toBe(b.data);
  });

  it('does not open with another context, even after the data key is cached', async () => {
    const keys = new LocalKeyService({ keyFile: keyFile() });
    const sealed = await seal(keys, secret, context);
    await expect(unseal(keys, sealed, { ...context, tenantId: 'tenant-2' })).rejects.toThrow();
    expect(await unseal(keys, sealed, context)).toBe(secret);
    await expect(unseal(keys, sealed, { ...context, tenantId: 'tenant-2' })).rejects.toThrow();
    await expect(unseal(keys, sealed, { tenantId: 'tenant-1' })).rejects.toThrow();
  });

  it('does not open with another key file, even after the data key is cached', async () => {
    const keys = new LocalKeyService({ keyFile: keyFile() });
    const sealed = await seal(keys, secret, context);
    expect(await unseal(keys, sealed, context)).toBe(secret);
    await expect(unseal(new LocalKeyService({ keyFile: keyFile() }), sealed, context)).rejects.toThrow(/another master key or another encryption context/);
  });

  it('refuses tampered data and a shortened tag', async () => {
    const keys = new LocalKeyService({ keyFile: keyFile() });
    const sealed = await seal(keys, secret, context);
    const data = Buffer.from(sealed.data, 'base64');
    data[0] ^= 1;
    await expect(unseal(keys, { ...sealed, data: data.toString('base64') }, context)).rejects.toThrow(/does not open/);
    const shortTag = Buffer.from(sealed.tag, 'base64').subarray(0, 4).toString('base64');
    await expect(unseal(keys, { ...sealed, tag: shortTag }, context)).rejects.toThrow();
  });

  it('creates the key file with mode 0600 holding 32 bytes, and keeps it', async () => {
    const file = keyFile();
    const keys = new LocalKeyService({ keyFile: file });
    await seal(keys, secret, context);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const master = readFileSync(file);
    expect(master).toHaveLength(32);
    await seal(new LocalKeyService({ keyFile: file }), secret, context);
    expect(readFileSync(file).equals(master)).toBe(true);
  });

  it('opens a secret sealed by another instance over the same key file', async () => {
    const file = keyFile();
    const sealed = await seal(new LocalKeyService({ keyFile: file }), secret, context);
    expect(await unseal(new LocalKeyService({ keyFile: file }), sealed, context)).toBe(secret);
  });

  it('caches data keys: repeated and concurrent unseals unwrap once', async () => {
    const { keys, calls } = counting(new LocalKeyService({ keyFile: keyFile() }));
    const sealed = await seal(keys, secret, context);
    const opened = await Promise.all([unseal(keys, sealed, context), unseal(keys, sealed, context)]);
    expect(await unseal(keys, sealed, context)).toBe(secret);
    expect(opened).toEqual([secret, secret]);
    expect(calls.decrypt).toBe(1);
  });

  it('does not cache a failed unwrap', async () => {
    const inner = new LocalKeyService({ keyFile: keyFile() });
    const sealed = await seal(inner, secret, context);
    let fail = true;
    const flaky: KeyService = {
      generateDataKey: (c) => inner.generateDataKey(c),
      decrypt: async (e, c) => {
        if (fail) throw new Error('KMS throttled');
        return inner.decrypt(e, c);
      },
    };
    await expect(unseal(flaky, sealed, context)).rejects.toThrow('KMS throttled');
    fail = false;
    expect(await unseal(flaky, sealed, context)).toBe(secret);
  });
});
