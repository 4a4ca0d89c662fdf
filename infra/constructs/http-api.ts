import { RemovalPolicy, Validations } from 'aws-cdk-lib';
import { CfnStage, HttpApi, HttpMethod, HttpRoute, HttpRouteKey, HttpStage, LogGroupLogDestination, PayloadFormatVersion } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { FunctionGroup } from '../../functions/index.ts';
import type { ApiFunctions } from './api-functions.ts';
import { deployedName } from '../deployment.ts';

export interface HttpApiProps {
  groups: readonly FunctionGroup[];
  functions: ApiFunctions;
  /** Steady-state requests per second for the whole stage. @default 500 */
  throttleRate?: number;
  /** @default 1000 */
  throttleBurst?: number;
}

/**
 * Each public tracking route's own throttle, in every deploy. Without it only the stage's 500/s
 * bounded them, and at that rate a flood of link requests that CloudFront cannot cache (a new
 * token each) would take a new account's 10 concurrent executions from every other function.
 * At 50/s and a ~20 ms answer the tracking function needs about one execution; recipients
 * refresh a page every 30 s or more, so 50/s serves thousands watching at once (docs/capacity.md).
 */
export const TRACKING_ROUTE_THROTTLE = { rateLimit: 50, burstLimit: 50 } as const;

const authorizationReason = (access: 'member' | 'public'): string =>
  access === 'public'
    ? 'A public operation by design (no token); the function still validates input and rate limits apply at the edge.'
    : 'Authorization runs inside the function: aws-jwt-verify checks the OIDC token, then the table confirms an active membership of x-tenant-id.';

/** The HTTP API: exactly the routes of the function manifest, nothing else. */
export class ServiceHttpApi extends Construct {
  readonly api: HttpApi;
  readonly stage: HttpStage;
  readonly accessLogs: LogGroup;

  constructor(scope: Construct, id: string, props: HttpApiProps) {
    super(scope, id);

    // No CORS preflight. An unknown path goes to the catch-all group's `$default` route, so that
    // its 404 is a problem+json document with a request id like every other error.
    this.api = new HttpApi(this, 'Api', { apiName: deployedName(this, 'api') ?? 'delivery-ops', createDefaultStage: false });

    this.accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.stage = new HttpStage(this, 'DefaultStage', {
      httpApi: this.api,
      stageName: '$default',
      autoDeploy: true,
      throttle: { rateLimit: props.throttleRate ?? 500, burstLimit: props.throttleBurst ?? 1000 },
      accessLogSettings: {
        destination: new LogGroupLogDestination(this.accessLogs),
        format: AccessLogFormat.custom(
          JSON.stringify({
            requestId: '$context.requestId',
            requestTime: '$context.requestTimeEpoch',
            routeKey: '$context.routeKey',
            status: '$context.status',
            sourceIp: '$context.identity.sourceIp',
            userAgent: '$context.identity.userAgent',
            responseLength: '$context.responseLength',
            responseLatency: '$context.responseLatency',
            integrationLatency: '$context.integrationLatency',
            integrationError: '$context.integrationErrorMessage',
          }),
        ),
      },
    });

    // Routes get no API Gateway authorizer: a JWT authorizer could check the token but not the
    // tenant membership, and the 401/403 bodies must be the service's problem+json documents.
    const routeSettings: Record<string, { ThrottlingRateLimit: number; ThrottlingBurstLimit: number }> = {};
    const routesByKey = new Map<string, HttpRoute>();
    for (const group of props.groups) {
      // One integration per group; each route still gets its own invoke permission.
      const integration = new HttpLambdaIntegration(`${group.name}Integration`, props.functions.functionFor(group.name), {
        payloadFormatVersion: PayloadFormatVersion.VERSION_2_0,
      });
      for (const operation of group.operations) {
        // Named by operationId: stable, unique, and free of the slashes in a route key.
        const route = new HttpRoute(this, operation.operationId, {
          httpApi: this.api,
          routeKey: HttpRouteKey.with(operation.path, HttpMethod[operation.method]),
          integration,
        });
        routesByKey.set(`${operation.method} ${operation.path}`, route);
        Validations.of(route).acknowledge({ id: 'AwsSolutions-APIG4', reason: authorizationReason(operation.access) });
        if (group.name === 'tracking') {
          routeSettings[`${operation.method} ${operation.path}`] = { ThrottlingRateLimit: TRACKING_ROUTE_THROTTLE.rateLimit, ThrottlingBurstLimit: TRACKING_ROUTE_THROTTLE.burstLimit };
        }
      }
      if (group.catchAll) {
        const route = new HttpRoute(this, 'CatchAll', { httpApi: this.api, routeKey: HttpRouteKey.DEFAULT, integration });
        Validations.of(route).acknowledge({ id: 'AwsSolutions-APIG4', reason: 'The catch-all route only answers 404 problem+json for paths no operation has; it reads nothing.' });
      }
    }
    (this.stage.node.defaultChild as CfnStage).routeSettings = routeSettings;
    // API Gateway looks each settings key up among the API's routes when the stage is made
    // (NotFoundException "Unable to find Route by key ... within the provided RouteSettings"),
    // and CloudFormation cannot see a key: the stage waits for every route it names.
    for (const key of Object.keys(routeSettings)) {
      const route = routesByKey.get(key);
      if (!route) throw new Error(`the stage's route settings name ${key}, which the API has no route for`);
      this.stage.node.addDependency(route);
    }
  }

  /** The API's host name without scheme, for the CloudFront origin. */
  get domainName(): string {
    return `${this.api.apiId}.execute-api.${this.api.stack.region}.${this.api.stack.urlSuffix}`;
  }
}
