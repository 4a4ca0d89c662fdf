import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { CloudFrontClient, GetDistributionConfigCommand } from '@aws-sdk/client-cloudfront';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { SecretsManagerRotationEventStep } from 'aws-lambda';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { rotateOriginSecret, rotationClients, SETTLE_MS, type RotationDeps } from '../../../functions/edge/origin-secret-rotation.ts';
import { OriginNotVerifiedError } from '../../../shared/errors.ts';
import { ORIGIN_VERIFY_HEADER } from '../../../shared/http/edge-headers.ts';
import { originVerify } from '../../../shared/http/middlewares/origin-verify.ts';
import { SecretsManagerSecrets, setSecrets } from '../../../shared/ports/secrets.ts';

/**
 * Secrets Manager (AWS JSON 1.1) and CloudFront (REST-XML) stand-ins on one local endpoint: the
 * real SDK clients sign, serialize and send, the stand-ins keep the state AWS would keep.
 */
const ARN = 'arn:aws:secretsmanager:us-east-1:000000000000:secret:origin-verify-AbCdEf';
const DISTRIBUTION = 'E2EXAMPLE0ABC';
const FIRST = 'first-origin-secret-value-0123456789abcdef';
const WEB_ACL = 'arn:aws:wafv2:us-east-1:000000000000:global/webacl/delivery-ops/0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0';

let server: Server;
let endpoint: string;
let versions: Map<string, { value?: string; stages: Set<string> }>;
let distributionXml: string;
let etag: number;
let failNextUpdate: boolean;
const calls: string[] = [];

/** The distribution as the stack makes it: the origin header from the secret, and the web ACL. */
const distributionConfig = (value: string | undefined) =>
  `<?xml version="1.0" encoding="UTF-8"?><DistributionConfig xmlns="http://cloudfront.amazonaws.com/doc/2020-05-31/"><CallerReference>ref-1</CallerReference>` +
  `<Origins><Quantity>1</Quantity><Items><Origin><Id>api</Id><DomainName>abc123.execute-api.us-east-1.amazonaws.com</DomainName>` +
  (value === undefined
    ? ''
    : `<CustomHeaders><Quantity>1</Quantity><Items><OriginCustomHeader><HeaderName>${ORIGIN_VERIFY_HEADER}</HeaderName><HeaderValue>${value}</HeaderValue></OriginCustomHeader></Items></CustomHeaders>`) +
  `</Origin></Items></Origins><Comment>delivery-ops API</Comment><Enabled>true</Enabled><WebACLId>${WEB_ACL}</WebACLId></DistributionConfig>`;

/** The value CloudFront's edges send once the distribution has deployed. */
const headerValueAtEdge = () => /<HeaderValue>([^<]*)<\/HeaderValue>/.exec(distributionXml)![1];
const webAclAtEdge = () => /<WebACLId>([^<]*)<\/WebACLId>/.exec(distributionXml)?.[1];

const secretsManager = (target: string, body: any): { status: number; body: unknown } => {
  const notFound = { status: 400, body: { __type: 'ResourceNotFoundException', message: 'not found' } };
  const holder = (stage: string) => [...versions].find(([, v]) => v.stages.has(stage))?.[0];
  switch (target) {
    case 'DescribeSecret':
      return { status: 200, body: { ARN, Name: 'origin-verify', RotationEnabled: true, VersionIdsToStages: Object.fromEntries([...versions].map(([id, v]) => [id, [...v.stages]])) } };
    case 'GetSecretValue': {
      const id = body.VersionId ?? holder(body.VersionStage);
      const version = id === undefined ? undefined : versions.get(id);
      if (!version?.value || (body.VersionStage && !version.stages.has(body.VersionStage))) return notFound;
      return { status: 200, body: { ARN, VersionId: id, SecretString: version.value, VersionStages: [...version.stages] } };
    }
    case 'GetRandomPassword': {
      const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
      const password = Array.from({ length: body.PasswordLength }, () => alphabet[Math.floor(Math.random() * alphabet.length)]).join('');
      return { status: 200, body: { RandomPassword: password } };
    }
    case 'PutSecretValue': {
      const version = versions.get(body.ClientRequestToken) ?? { stages: new Set<string>() };
      version.value = body.SecretString;
      for (const stage of body.VersionStages) version.stages.add(stage);
      versions.set(body.ClientRequestToken, version);
      return { status: 200, body: { ARN, VersionId: body.ClientRequestToken, VersionStages: [...version.stages] } };
    }
    case 'UpdateSecretVersionStage': {
      const from = holder(body.VersionStage);
      if (from !== body.RemoveFromVersionId) return { status: 400, body: { __type: 'InvalidParameterException', message: 'stage is elsewhere' } };
      if (body.VersionStage === 'AWSCURRENT' && from) {
        for (const v of versions.values()) v.stages.delete('AWSPREVIOUS');
        versions.get(from)!.stages.add('AWSPREVIOUS');
      }
      if (from) versions.get(from)!.stages.delete(body.VersionStage);
      versions.get(body.MoveToVersionId)!.stages.add(body.VersionStage);
      return { status: 200, body: { ARN } };
    }
  }
  return { status: 400, body: { __type: 'InvalidRequestException', message: target } };
};

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const target = String(req.headers['x-amz-target'] ?? '').replace('secretsmanager.', '');
      if (target) {
        calls.push(target);
        const reply = secretsManager(target, JSON.parse(text));
        res.writeHead(reply.status, { 'content-type': 'application/x-amz-json-1.1' }).end(JSON.stringify(reply.body));
        return;
      }
      const path = `/2020-05-31/distribution/${DISTRIBUTION}/config`;
      calls.push(`${req.method} ${req.url}`);
      if (req.url === path && req.method === 'GET') {
        res.writeHead(200, { 'content-type': 'text/xml', etag: `E${etag}` }).end(distributionXml);
      } else if (req.url === path && req.method === 'PUT') {
        if (failNextUpdate || req.headers['if-match'] !== `E${etag}`) {
          failNextUpdate = false;
          res.writeHead(412, { 'content-type': 'text/xml' }).end('<ErrorResponse><Error><Type>Sender</Type><Code>PreconditionFailed</Code><Message>no</Message></Error></ErrorResponse>');
          return;
        }
        distributionXml = text;
        etag += 1;
        res.writeHead(200, { 'content-type': 'text/xml', etag: `E${etag}` }).end(`<Distribution><Id>${DISTRIBUTION}</Id><Status>InProgress</Status></Distribution>`);
      } else {
        res.writeHead(404).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const clients = () => {
  const config = { endpoint, region: 'us-east-1', credentials: { accessKeyId: 'AKIDTEST', secretAccessKey: 'secret' }, maxAttempts: 1 };
  return { secretsManager: new SecretsManagerClient(config), cloudFront: new CloudFrontClient(config) };
};

/** The origin check as a Lambda container runs it: the real adapter, with its per-container cache. */
const passes = async (value: string): Promise<boolean> => {
  try {
    await originVerify().before!({ event: { headers: { [ORIGIN_VERIFY_HEADER]: value } }, context: {} } as never);
    return true;
  } catch (error) {
    if (error instanceof OriginNotVerifiedError) return false;
    throw error;
  }
};

let deps: RotationDeps;
let whileSettling: () => Promise<void>;

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
  versions = new Map([['v1', { value: FIRST, stages: new Set(['AWSCURRENT']) }]]);
  distributionXml = distributionConfig(FIRST);
  etag = 1;
  failNextUpdate = false;
  calls.length = 0;
  process.env.ORIGIN_VERIFY_SECRET_ARN = ARN;
  setSecrets(new SecretsManagerSecrets({ client: clients().secretsManager }));
  whileSettling = async () => undefined;
  deps = {
    ...clients(),
    distributionId: DISTRIBUTION,
    settleMs: SETTLE_MS,
    wait: async (ms) => {
      vi.setSystemTime(Date.now() + ms);
      await whileSettling();
    },
  };
});
afterEach(() => {
  vi.useRealTimers();
  setSecrets(undefined);
  delete process.env.ORIGIN_VERIFY_SECRET_ARN;
});

/** What Secrets Manager does on RotateSecret: a version labelled AWSPENDING, then the four steps. */
const rotate = async (token: string, steps: SecretsManagerRotationEventStep[] = ['createSecret', 'setSecret', 'testSecret', 'finishSecret']) => {
  if (!versions.has(token)) versions.set(token, { stages: new Set(['AWSPENDING']) });
  for (const step of steps) await rotateOriginSecret({ SecretId: ARN, ClientRequestToken: token, Step: step }, deps);
};

describe('rotation of the origin secret', () => {
  it('moves CloudFront to a new value that every container accepts, old edges included, and never cuts traffic', async () => {
    expect(await passes(FIRST)).toBe(true); // a warm container has now cached the first value
    const seen: Record<string, boolean>[] = [];
    whileSettling = async () => {
      // Promoted, CloudFront not moved yet: edges send the old value, and the new one must pass
      // in this warm container too by the time CloudFront may send it.
      const fresh = versions.get('v2')!.value!;
      seen.push({ old: await passes(FIRST), fresh: await passes(fresh) });
    };
    await rotate('v2', ['createSecret', 'setSecret', 'testSecret']);
    const fresh = versions.get('v2')!.value!;
    expect(fresh).toMatch(/^[A-Za-z0-9]{64}$/);
    expect(headerValueAtEdge()).toBe(FIRST);
    expect(await passes(fresh)).toBe(false); // pending is not accepted, so CloudFront must not send it yet

    await rotate('v2', ['finishSecret']);
    expect(seen).toEqual([{ old: true, fresh: true }]);
    expect(headerValueAtEdge()).toBe(fresh);
    expect([...versions.get('v2')!.stages]).toContain('AWSCURRENT');
    expect([...versions.get('v1')!.stages]).toEqual(['AWSPREVIOUS']);
    expect(await passes(fresh)).toBe(true);
    expect(await passes(FIRST)).toBe(true); // edges still on the old configuration
    expect(webAclAtEdge()).toBe(WEB_ACL); // the configuration went back whole: WAF still in front
  });

  it('retires a value after the next rotation', async () => {
    await rotate('v2');
    await rotate('v3');
    expect(await passes(versions.get('v3')!.value!)).toBe(true);
    expect(await passes(versions.get('v2')!.value!)).toBe(true);
    vi.setSystemTime(Date.now() + SETTLE_MS);
    expect(await passes(FIRST)).toBe(false);
  });

  it('keeps the first value it made when createSecret is retried', async () => {
    await rotate('v2', ['createSecret']);
    const made = versions.get('v2')!.value;
    await rotate('v2', ['createSecret']);
    expect(versions.get('v2')!.value).toBe(made);
  });

  it('still updates CloudFront when finishSecret is retried after the update failed', async () => {
    failNextUpdate = true;
    await expect(rotate('v2')).rejects.toThrow();
    expect([...versions.get('v2')!.stages]).toContain('AWSCURRENT');
    expect(headerValueAtEdge()).toBe(FIRST);
    await rotate('v2', ['finishSecret']);
    expect(headerValueAtEdge()).toBe(versions.get('v2')!.value);
  });

  it('makes no CloudFront change when the distribution already sends the current value', async () => {
    await rotate('v2');
    calls.length = 0;
    await rotate('v2', ['finishSecret']);
    expect(calls.filter((c) => c.startsWith('PUT'))).toEqual([]);
  });

  it('refuses a version that is not pending, and a secret without rotation', async () => {
    versions.set('stray', { value: 'x'.repeat(40), stages: new Set() });
    await expect(rotateOriginSecret({ SecretId: ARN, ClientRequestToken: 'stray', Step: 'createSecret' }, deps)).rejects.toThrow(/not AWSPENDING/);
    await expect(rotateOriginSecret({ SecretId: ARN, ClientRequestToken: 'missing', Step: 'createSecret' }, deps)).rejects.toThrow(/no stage/);
  });
});

/**
 * What Secrets Manager does when rotation is set up without rotating at once, as the stack's
 * schedule is at deploy (RotateSecret's RotateImmediately false: "tests the rotation
 * configuration by running the testSecret step ... The test creates an AWSPENDING version of the
 * secret and then removes it"). Whether that version holds a copy of the value is not said: both.
 */
const setUpTest = async (pending: 'copy' | 'empty') => {
  const current = [...versions.values()].find((v) => v.stages.has('AWSCURRENT'))!;
  versions.set('set-up', { value: pending === 'copy' ? current.value : undefined, stages: new Set(['AWSPENDING']) });
  try {
    await rotateOriginSecret({ SecretId: ARN, ClientRequestToken: 'set-up', Step: 'testSecret' }, deps);
  } finally {
    versions.delete('set-up');
  }
};

describe('the test Secrets Manager runs when the rotation schedule is created (testSecret alone)', () => {
  for (const pending of ['copy', 'empty'] as const) {
    it(`passes with a pending version that is ${pending === 'copy' ? 'a copy of the value' : 'empty'}, and changes nothing`, async () => {
      const before = distributionXml;
      await setUpTest(pending);
      expect(distributionXml).toBe(before);
      expect([...versions]).toEqual([['v1', { value: FIRST, stages: new Set(['AWSCURRENT']) }]]);
      expect(calls).toContain(`GET /2020-05-31/distribution/${DISTRIBUTION}/config`);
      expect(calls.filter((c) => c.startsWith('PUT') || c === 'PutSecretValue' || c === 'UpdateSecretVersionStage')).toEqual([]);
      // The schedule's first real rotation then goes through.
      await rotate('v2');
      expect(headerValueAtEdge()).toBe(versions.get('v2')!.value);
    });
  }

  it('fails the deploy there when the distribution lacks the origin header or the value is not header-safe', async () => {
    distributionXml = distributionConfig(undefined);
    await expect(setUpTest('empty')).rejects.toThrow(`no ${ORIGIN_VERIFY_HEADER} origin header`);
    distributionXml = distributionConfig(FIRST);
    versions.get('v1')!.value = 'short';
    await expect(setUpTest('empty')).rejects.toThrow(/header-safe/);
  });
});

describe('the Secrets Manager adapter behind the origin check', () => {
  it('asks GetSecretValue by stage, keeps answers per container, and reads again only when asked for fresher', async () => {
    expect(await passes(FIRST)).toBe(true);
    expect(await passes(FIRST)).toBe(true);
    expect(calls.filter((c) => c === 'GetSecretValue')).toHaveLength(2); // AWSCURRENT and AWSPREVIOUS, once
    calls.length = 0;
    // Wrong values: at most one fresh read per stage per refresh interval, however many arrive.
    for (let i = 0; i < 20; i++) expect(await passes(`wrong-${i}`)).toBe(false);
    expect(calls.filter((c) => c === 'GetSecretValue')).toHaveLength(0);
    vi.setSystemTime(Date.now() + SETTLE_MS);
    for (let i = 0; i < 20; i++) expect(await passes(`wrong-${i}`)).toBe(false);
    expect(calls.filter((c) => c === 'GetSecretValue')).toHaveLength(2);
  });
});

describe('the rotation function\'s own clients', () => {
  it('give up on a Secrets Manager or CloudFront endpoint that accepts and never answers, inside the function\'s 60 s', async () => {
    const held: Socket[] = [];
    const silent = createTcpServer((socket) => held.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const endpoint = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
      const clients = rotationClients({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'AKIDTEST', secretAccessKey: 'secret' }, maxAttempts: 1 });
      // Without the timeout the calls wait forever, and the test's own 60 s ends it.
      await Promise.all([
        expect(clients.secretsManager.send(new GetSecretValueCommand({ SecretId: ARN }))).rejects.toMatchObject({ name: 'TimeoutError' }),
        expect(clients.cloudFront.send(new GetDistributionConfigCommand({ Id: DISTRIBUTION }))).rejects.toMatchObject({ name: 'TimeoutError' }),
      ]);
      expect(held.length).toBe(2);
    } finally {
      held.forEach((socket) => socket.destroy());
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  }, 240_000);
});
