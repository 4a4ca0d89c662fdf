import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineOperation, definePublicOperation, type AnyOperation } from '../../../shared/http/operation.ts';
import { buildDocument } from '../../../shared/openapi/document.ts';
import { openApiDocument } from '../../../functions/openapi.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const cli = path.join(root, 'node_modules/@redocly/cli/bin/cli.js');
const config = path.join(root, 'redocly.yaml');

interface LintProblem {
  ruleId: string;
  severity: string;
  message: string;
  location: { pointer?: string }[];
}

/**
 * `redocly lint` as a reader of the document runs it, with the project's redocly.yaml (the
 * recommended rules) and its reviewed ignore file. It exits 1 on errors, with the report on stdout.
 */
const lint = async (file: string): Promise<LintProblem[]> => {
  const args = [cli, 'lint', file, '--config', config, '--format=json'];
  const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' };
  const stdout = await promisify(execFile)(process.execPath, args, { cwd: root, env, maxBuffer: 64 * 1024 * 1024 }).then(
    (done) => done.stdout,
    (failed: { stdout?: string; stderr?: string }) => failed.stdout || Promise.reject(new Error(`redocly lint did not report: ${failed.stderr}`)),
  );
  return (JSON.parse(stdout) as { problems: LintProblem[] }).problems;
};

const listed = (problems: LintProblem[]): string =>
  problems.map((p) => `${p.severity} ${p.ruleId} at ${p.location[0]?.pointer ?? '?'}: ${p.message}`).join('\n');

let folder: string;
beforeAll(async () => {
  folder = await mkdtemp(path.join(tmpdir(), 'openapi-lint-'));
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

const lintDocument = async (name: string, document: object): Promise<LintProblem[]> => {
  const file = path.join(folder, name);
  await writeFile(file, JSON.stringify(document, null, 2));
  return lint(file);
};

describe('redocly lint with the recommended rules', () => {
  it('finds no error and no warning in docs/openapi.json', async () => {
    // The drift test in openapi.test.ts keeps this file equal to the document the service serves.
    expect(listed(await lint('docs/openapi.json'))).toBe('');
  });

  it('would report a document without servers', async () => {
    const { servers: _servers, ...withoutServers } = structuredClone(openApiDocument()) as Record<string, unknown>;
    const problems = await lintDocument('without-servers.json', withoutServers);
    expect(problems.map((p) => `${p.severity} ${p.ruleId}`)).toContain('error no-empty-servers');
  });

  it('would report a public operation without any 4xx and a tag without a description', async () => {
    const document = structuredClone(openApiDocument()) as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>>; tags: object[] };
    const get = document.paths['/v1/openapi.json']!.get!;
    get.responses = { 200: get.responses['200'] };
    document.tags = document.tags.map((tag) => ({ ...tag, description: undefined }));
    const rules = (await lintDocument('weakened.json', document)).map((p) => p.ruleId);
    expect(rules).toContain('operation-4xx-response');
    expect(rules).toContain('tag-description');
  });

  it('passes for operations written later, with only a success response declared', async () => {
    const Thing = v.pipe(v.object({ id: v.pipe(v.string(), v.uuid()), name: v.string() }), v.title('Thing'));
    const operations = [
      definePublicOperation({
        operationId: 'getPublicThing',
        method: 'GET',
        path: '/v1/public/things/{id}',
        summary: 'A public thing',
        tag: 'Meta',
        params: v.strictObject({ id: v.pipe(v.string(), v.uuid()) }),
        responses: { 200: { description: 'The thing', schema: Thing } },
        handle: async () => ({ status: 200 }),
      }),
      defineOperation({
        operationId: 'createThing',
        method: 'POST',
        path: '/v1/fleet/things',
        summary: 'Create a thing',
        tag: 'Fleet',
        permission: 'fleet.write',
        idempotent: true,
        body: v.strictObject({ name: v.string() }),
        responses: { 201: { description: 'The thing', schema: Thing } },
        handle: async () => ({ status: 201 }),
      }),
    ] as AnyOperation[];
    expect(listed(await lintDocument('later.json', buildDocument(operations).document))).toBe('');
  });
});
