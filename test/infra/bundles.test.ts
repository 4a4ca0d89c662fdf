import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { functionGroups } from '../../functions/index.ts';
import { jobFunctions } from '../../functions/jobs.ts';
import { FUNCTION_NAME_METADATA } from '../../infra/constructs/service-function.ts';
import { TemplateNames, type Template } from '../iam/template-names.ts';
import { sharedAssembly } from './synth.ts';

/**
 * The bundles that deploy are the bundles that were tested: `infra/app.ts` synthesizes the cloud
 * assembly as `cdk synth` does (esbuild bundling, cdk-nag), and each of our functions' bundles is
 * imported in a process of its own with the environment the template gives it. An API function is
 * then called once with an API Gateway v2 event for a path no operation has.
 */
const invoker = fileURLToPath(new URL('./invoke-bundle.mjs', import.meta.url));
const run = promisify(execFile);

let outdir: string;
type Resource = { Type: string; Properties: Record<string, any>; Metadata?: Record<string, string> };
let template: Template & { Resources: Record<string, Resource> };
/** Asset hash -> its directory in the assembly (the template names the asset by its S3 key). */
let assetDirs: Map<string, string>;
beforeAll(async () => {
  // One assembly per run, shared with stack.test.ts, made in a child process (synth.ts).
  outdir = await sharedAssembly();
  template = JSON.parse(readFileSync(join(outdir, 'DeliveryOps.template.json'), 'utf8'));
  const assets = JSON.parse(readFileSync(join(outdir, 'DeliveryOps.assets.json'), 'utf8')) as { files: Record<string, { source: { path: string } }> };
  assetDirs = new Map(Object.entries(assets.files).map(([hash, file]) => [hash, file.source.path]));
}, 600_000);

/** An API Gateway HTTP API (payload 2.0) request as the `$default` route hands it over. */
const unknownPathEvent = {
  version: '2.0',
  routeKey: '$default',
  rawPath: '/v1/no-such-path',
  rawQueryString: '',
  headers: { host: 'abc123.execute-api.us-east-1.amazonaws.com', accept: 'application/json', 'user-agent': 'bundle-check' },
  requestContext: {
    accountId: '123456789012',
    apiId: 'abc123',
    domainName: 'abc123.execute-api.us-east-1.amazonaws.com',
    domainPrefix: 'abc123',
    http: { method: 'GET', path: '/v1/no-such-path', protocol: 'HTTP/1.1', sourceIp: '203.0.113.7', userAgent: 'bundle-check' },
    requestId: 'bundle-check-1',
    routeKey: '$default',
    stage: '$default',
    time: '25/Nov/2026:01:00:00 +0000',
    timeEpoch: 1795395600000,
  },
  isBase64Encoded: false,
};

/** Imports one function's bundle as Lambda would, and calls its handler with `event` when given. */
const invoke = async (name: string, event?: unknown): Promise<any> => {
  const [, fn] = Object.entries(template.Resources).find(([, r]) => r.Type === 'AWS::Lambda::Function' && r.Metadata?.[FUNCTION_NAME_METADATA] === name)!;
  const hash = String(new TemplateNames(template).resolve(fn.Properties.Code.S3Key)).replace(/\.zip$/, '');
  const bundle = join(outdir, assetDirs.get(hash) ?? `no asset ${hash}`, 'index.mjs');
  expect(existsSync(bundle), `${name}: ${bundle}`).toBe(true);
  const env = {
    PATH: process.env.PATH ?? '',
    ...(new TemplateNames(template).resolve(fn.Properties.Environment?.Variables ?? {}) as Record<string, string>),
    AWS_REGION: 'us-east-1',
    AWS_DEFAULT_REGION: 'us-east-1',
    AWS_LAMBDA_FUNCTION_NAME: name,
    AWS_ACCESS_KEY_ID: 'AKIDBUNDLECHECK',
    AWS_SECRET_ACCESS_KEY: 'bundle-check',
    // Any AWS call the handler should not make here meets a closed local port, never the internet.
    AWS_ENDPOINT_URL: 'http://127.0.0.1:9',
  };
  const args = [invoker, bundle, ...(event === undefined ? [] : [JSON.stringify(event)])];
  const { stdout } = await run(process.execPath, args, { env, cwd: outdir, timeout: 60_000, maxBuffer: 16 * 1024 * 1024 });
  const marked = stdout.split('\n').filter((line) => line.startsWith('@@answer '));
  expect(marked, `${name} printed no answer:\n${stdout}`).toHaveLength(1);
  return JSON.parse(marked[0]!.slice('@@answer '.length));
};

const ours = () =>
  Object.values(template.Resources)
    .filter((r) => r.Type === 'AWS::Lambda::Function' && r.Metadata?.[FUNCTION_NAME_METADATA])
    .map((r) => r.Metadata![FUNCTION_NAME_METADATA]!);

describe('the deployed bundles', () => {
  it('are every function of ours, one bundle each', () => {
    const names = ours();
    expect(names.length).toBeGreaterThanOrEqual(functionGroups.length + 5);
    expect(new Set(names).size).toBe(names.length);
    for (const group of functionGroups) expect(names).toContain(group.name);
    // Queue consumers and scheduled jobs (the preview worker and sweeper among them) are bundled too.
    for (const job of jobFunctions) expect(names).toContain(job.name);
  });

  it('answer an API Gateway v2 request with problem+json, each endpoint group', async () => {
    for (const group of functionGroups) {
      const answer = await invoke(group.name, unknownPathEvent);
      expect(answer.headers?.['content-type'], `${group.name}: ${JSON.stringify(answer)}`).toBe('application/problem+json');
      expect([403, 404], group.name).toContain(answer.statusCode);
      expect(JSON.parse(answer.body)).toMatchObject({ status: answer.statusCode, code: expect.stringMatching(/^(not_found|origin_not_verified)$/) });
    }
  }, 600_000);

  it('import without a crash, each stream consumer, job and the rotation function', async () => {
    const others = ours().filter((name) => !functionGroups.some((g) => g.name === name));
    expect(others.length).toBeGreaterThanOrEqual(5);
    for (const name of others) expect(await invoke(name), name).toEqual({ imported: true });
  }, 600_000);
});
