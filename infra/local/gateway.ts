import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { FunctionGroup } from '../../functions/index.ts';
import { runAs } from '../../shared/aws-calls/identity.ts';
import { routeKey } from '../../shared/http/operation.ts';
import { VIEWER_ADDRESS_HEADER } from '../../shared/http/edge-headers.ts';

type LambdaHandler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

interface Route {
  /** `$default` for the catch-all route, as API Gateway names it. */
  routeKey: string;
  method: string;
  pattern: RegExp;
  names: string[];
  literalLength: number;
  group: FunctionGroup;
}

/** Extra local-only endpoints (token minting, discovery) answered before the API routes. */
export type LocalRoute = (req: IncomingMessage, body: Buffer, res: ServerResponse) => Promise<boolean>;

/** API Gateway's own limit; our 256 KiB rule is the handler chain's 413. */
const GATEWAY_MAX_BODY = 10 * 1024 * 1024;
/**
 * The API functions' timeout (10 s, service-function.ts). The tests raise it as they raise the
 * table client's timeouts: on two loaded cores ten racing requests that each run again on a lost
 * conflict outlast 10 s, which middy answers 503 although nothing failed.
 */
const lambdaTimeoutMs = (): number => Number(process.env.LOCAL_LAMBDA_TIMEOUT_MS ?? 10_000);

const compile = (group: FunctionGroup, method: string, path: string): Route => {
  const names: string[] = [];
  const source = path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{([^}]+)\}/g, (_m, name: string) => {
    names.push(name);
    return '([^/]+)';
  });
  return { routeKey: `${method} ${path}`, method, pattern: new RegExp(`^${source}$`), names, literalLength: path.replace(/\{[^}]+\}/g, '').length, group };
};

const textLike = (contentType: string | undefined): boolean =>
  !contentType || /json|text|xml|x-www-form-urlencoded|javascript/i.test(contentType);

const readBody = (req: IncomingMessage): Promise<Buffer | 'too-large'> =>
  new Promise((resolveBody, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= GATEWAY_MAX_BODY) chunks.push(chunk);
    });
    req.on('end', () => resolveBody(size > GATEWAY_MAX_BODY ? 'too-large' : Buffer.concat(chunks)));
    req.on('error', reject);
  });

/** API Gateway v2 joins repeated query parameters with commas. */
const queryParameters = (search: URLSearchParams): Record<string, string> | undefined => {
  const result: Record<string, string> = {};
  for (const key of new Set(search.keys())) result[key] = search.getAll(key).join(',');
  return Object.keys(result).length > 0 ? result : undefined;
};

const headersOf = (req: IncomingMessage): Record<string, string> => {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    headers[name.toLowerCase()] = Array.isArray(value) ? value.join(',') : value;
  }
  return headers;
};

/**
 * The local HTTP gateway: turns each request into the API Gateway v2 (payload 2.0) event the
 * cloud sends and calls the very handler module that Lambda would run for that route.
 */
export class LocalGateway {
  private readonly routes: Route[];
  /** API Gateway's `$default` route: what no other route matches goes to this group. */
  private readonly catchAll?: Route;
  private readonly handlers = new Map<string, Promise<LambdaHandler>>();
  private server?: Server;

  constructor(
    groups: FunctionGroup[],
    private readonly localRoutes: LocalRoute[] = [],
    private readonly projectRoot = process.cwd(),
  ) {
    // The most specific route wins, as in API Gateway: literal paths before parameters.
    this.routes = groups
      .flatMap((group) => group.operations.map((op) => compile(group, op.method, op.path)))
      .sort((a, b) => a.names.length - b.names.length || b.literalLength - a.literalLength);
    const catchAllGroup = groups.find((group) => group.catchAll);
    if (catchAllGroup) this.catchAll = { routeKey: '$default', method: '*', pattern: /^/, names: [], literalLength: 0, group: catchAllGroup };
  }

  routeKeys(): string[] {
    return this.routes.map((r) => r.routeKey);
  }

  private handlerOf(group: FunctionGroup): Promise<LambdaHandler> {
    let handler = this.handlers.get(group.name);
    if (!handler) {
      const url = pathToFileURL(resolve(this.projectRoot, group.entry)).href;
      handler = import(url).then((module) => module.handler as LambdaHandler);
      this.handlers.set(group.name, handler);
    }
    return handler;
  }

  async listen(port: number, host = '127.0.0.1'): Promise<number> {
    this.server = createServer((req, res) => {
      this.handle(req, res).catch((error) => {
        console.error('gateway error', error);
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ message: 'Internal Server Error' }));
      });
    });
    this.server.keepAliveTimeout = 5_000;
    await new Promise<void>((ok) => this.server!.listen(port, host, ok));
    return (this.server.address() as { port: number }).port;
  }

  async close(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((ok) => this.server!.close(() => ok()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(req);
    if (body === 'too-large') {
      res.writeHead(413, { 'content-type': 'application/json' }).end(JSON.stringify({ message: 'Request Entity Too Large' }));
      return;
    }
    for (const local of this.localRoutes) if (await local(req, body, res)) return;
    const url = new URL(req.url ?? '/', 'http://local');
    const method = (req.method ?? 'GET').toUpperCase();
    let match: { route: Route; values: RegExpExecArray | string[] } | undefined;
    for (const route of this.routes) {
      if (route.method !== method) continue;
      const values = route.pattern.exec(url.pathname);
      if (values) {
        match = { route, values };
        break;
      }
    }
    if (!match && this.catchAll) match = { route: this.catchAll, values: [] };
    if (!match) {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ message: 'Not Found' }));
      return;
    }
    const { route, values } = match;
    const headers = headersOf(req);
    // As CloudFront does for the API behaviour; a caller playing CloudFront (with the origin secret) may set its own.
    headers[VIEWER_ADDRESS_HEADER] ??= `${req.socket.remoteAddress ?? '127.0.0.1'}:${req.socket.remotePort ?? 0}`;
    const text = textLike(headers['content-type']);
    const now = new Date();
    const requestId = randomUUID();
    const pathParameters = Object.fromEntries(route.names.map((name, i) => [name, decodeURIComponent(values[i + 1])]));
    const event: APIGatewayProxyEventV2 = {
      version: '2.0',
      routeKey: route.routeKey,
      rawPath: url.pathname,
      rawQueryString: url.search.replace(/^\?/, ''),
      headers,
      queryStringParameters: queryParameters(url.searchParams),
      pathParameters: route.names.length > 0 ? pathParameters : undefined,
      requestContext: {
        accountId: '000000000000',
        apiId: 'local',
        domainName: headers.host ?? '127.0.0.1',
        domainPrefix: 'local',
        http: { method, path: url.pathname, protocol: `HTTP/${req.httpVersion}`, sourceIp: req.socket.remoteAddress ?? '127.0.0.1', userAgent: headers['user-agent'] ?? '' },
        requestId,
        routeKey: route.routeKey,
        stage: '$default',
        time: now.toUTCString(),
        timeEpoch: now.getTime(),
      },
      body: body.length > 0 ? (text ? body.toString('utf8') : body.toString('base64')) : undefined,
      isBase64Encoded: body.length > 0 && !text,
    };
    const deadline = Date.now() + lambdaTimeoutMs();
    const context = {
      callbackWaitsForEmptyEventLoop: false,
      functionName: `delivery-ops-${route.group.name}`,
      functionVersion: '$LATEST',
      invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:delivery-ops-${route.group.name}`,
      memoryLimitInMB: '1024',
      awsRequestId: randomUUID(),
      logGroupName: `/aws/lambda/delivery-ops-${route.group.name}`,
      logStreamName: 'local',
      getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
      done: () => undefined,
      fail: () => undefined,
      succeed: () => undefined,
    } as Context;
    const handler = await this.handlerOf(route.group);
    // Each group is its own Lambda with its own role in the cloud; its AWS calls are checked against it.
    const result = await runAs(route.group.name, () => handler(event, context));
    const responseHeaders: Record<string, string | string[]> = { ...(result.headers as Record<string, string>) };
    if (result.cookies?.length) responseHeaders['set-cookie'] = result.cookies;
    const payload = result.body ? Buffer.from(result.body, result.isBase64Encoded ? 'base64' : 'utf8') : Buffer.alloc(0);
    res.writeHead(result.statusCode ?? 200, { ...responseHeaders, 'content-length': String(payload.length) });
    res.end(method === 'HEAD' ? undefined : payload);
  }
}

export const routeKeysOf = (groups: FunctionGroup[]): string[] => groups.flatMap((g) => g.operations.map(routeKey));
