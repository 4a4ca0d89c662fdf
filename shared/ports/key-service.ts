import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { DecryptCommand, GenerateDataKeyCommand, KMSClient } from '@aws-sdk/client-kms';

/**
 * Envelope encryption's key half: hands out fresh data keys (plaintext + wrapped form) and
 * unwraps them again. The context is bound to the wrapped key; another context does not open it.
 */
export interface KeyService {
  generateDataKey(context: Record<string, string>): Promise<{ plaintext: Uint8Array; encrypted: string }>;
  decrypt(encrypted: string, context: Record<string, string>): Promise<Uint8Array>;
}

export class KmsKeyService implements KeyService {
  private readonly keyId: string;
  private readonly client: KMSClient;

  constructor(options: { keyId: string; client?: KMSClient }) {
    this.keyId = options.keyId;
    this.client = options.client ?? new KMSClient({});
  }

  async generateDataKey(context: Record<string, string>): Promise<{ plaintext: Uint8Array; encrypted: string }> {
    const out = await this.client.send(new GenerateDataKeyCommand({ KeyId: this.keyId, KeySpec: 'AES_256', EncryptionContext: context }));
    if (!out.Plaintext || !out.CiphertextBlob) throw new Error('KMS GenerateDataKey returned no key');
    return { plaintext: out.Plaintext, encrypted: Buffer.from(out.CiphertextBlob).toString('base64') };
  }

  async decrypt(encrypted: string, context: Record<string, string>): Promise<Uint8Array> {
    // KeyId pins the key: a blob wrapped under another key is refused instead of opened.
    const out = await this.client.send(
      new DecryptCommand({ CiphertextBlob: Buffer.from(encrypted, 'base64'), KeyId: this.keyId, EncryptionContext: context }),
    );
    if (!out.Plaintext) throw new Error('KMS Decrypt returned no plaintext');
    return out.Plaintext;
  }
}

/** Key order must not matter, as with KMS's encryption context. */
export const canonicalContext = (context: Record<string, string>): Buffer =>
  Buffer.from(JSON.stringify(Object.keys(context).sort().map((k) => [k, context[k]])));

const VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * The local stack's KMS: one 32-byte master key in a file (created 0600 when absent) wraps the
 * data keys with AES-256-GCM. Wrapped form: base64(version | iv | tag | wrapped key).
 */
export class LocalKeyService implements KeyService {
  private readonly keyFile: string;
  private master?: Buffer;

  constructor(options: { keyFile: string }) {
    this.keyFile = options.keyFile;
  }

  /** Read on first use, so building the ports never touches the disk. */
  private masterKey(): Buffer {
    if (this.master) return this.master;
    let key: Buffer;
    try {
      key = readFileSync(this.keyFile);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      key = this.create();
    }
    if (key.length !== 32) throw new Error(`${this.keyFile} must hold exactly 32 bytes, it holds ${key.length}`);
    return (this.master = key);
  }

  private create(): Buffer {
    mkdirSync(dirname(this.keyFile), { recursive: true, mode: 0o700 });
    const key = randomBytes(32);
    try {
      // 'wx': two processes starting together must not each write their own key.
      writeFileSync(this.keyFile, key, { flag: 'wx', mode: 0o600 });
      chmodSync(this.keyFile, 0o600); // the process umask may have changed the mode given above
      return key;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return readFileSync(this.keyFile);
      throw error;
    }
  }

  async generateDataKey(context: Record<string, string>): Promise<{ plaintext: Uint8Array; encrypted: string }> {
    const plaintext = randomBytes(32);
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.masterKey(), iv);
    cipher.setAAD(canonicalContext(context));
    const wrapped = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    const encrypted = Buffer.concat([Buffer.from([VERSION]), iv, cipher.getAuthTag(), wrapped]).toString('base64');
    return { plaintext: new Uint8Array(plaintext), encrypted };
  }

  async decrypt(encrypted: string, context: Record<string, string>): Promise<Uint8Array> {
    const raw = Buffer.from(encrypted, 'base64');
    if (raw.length < 1 + IV_BYTES + TAG_BYTES + 1 || raw[0] !== VERSION) throw new Error('not a data key wrapped by LocalKeyService');
    const iv = raw.subarray(1, 1 + IV_BYTES);
    const tag = raw.subarray(1 + IV_BYTES, 1 + IV_BYTES + TAG_BYTES);
    const decipher = createDecipheriv('aes-256-gcm', this.masterKey(), iv);
    decipher.setAAD(canonicalContext(context));
    decipher.setAuthTag(tag);
    try {
      return new Uint8Array(Buffer.concat([decipher.update(raw.subarray(1 + IV_BYTES + TAG_BYTES)), decipher.final()]));
    } catch {
      // GCM says only "unable to authenticate"; say what it means here.
      throw new Error('data key does not open: another master key or another encryption context');
    }
  }
}
