import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, CfnFunction, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';

/** The repository root: entries in the function manifest are relative to it. */
export const projectRoot = fileURLToPath(new URL('../../', import.meta.url));

/** Template metadata key of each function's manifest name (test/iam reads it). */
export const FUNCTION_NAME_METADATA = 'delivery-ops:function';

export interface ServiceFunctionProps {
  /**
   * The function's name in the manifests (an endpoint group, a stream consumer, a job). The
   * local stack invokes its handler under this name, and the IAM check finds its role by it.
   */
  name: string;
  /** Handler module relative to the project root; it exports `handler`. */
  entry: string;
  environment: Record<string, string>;
  /** @default 1024 */
  memorySize?: number;
  /** @default 10 seconds */
  timeout?: Duration;
  /** A cap on concurrent executions, taken from the account's pool. @default none */
  reservedConcurrency?: number;
}

/**
 * One Lambda function with the conventions every function of the service shares: Node 24 on
 * arm64, an ESM bundle made by the local esbuild, its own log group and its own role. The API
 * groups use it, and the webhook worker, fan-out and sweeper should use it too.
 */
export class ServiceFunction extends Construct {
  /** The manifest name (props.name). */
  readonly name: string;
  readonly function: NodejsFunction;
  readonly role: Role;
  readonly logGroup: LogGroup;

  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    super(scope, id);
    this.name = props.name;

    this.logGroup = new LogGroup(this, 'Logs', {
      retention: RetentionDays.ONE_MONTH,
      // Logs are operational data only; keeping them after the function is gone helps nobody.
      removalPolicy: RemovalPolicy.DESTROY,
    });

    // An own role instead of AWSLambdaBasicExecutionRole: that managed policy may write to
    // every log group in the account, this one only to the function's own.
    this.role = new Role(this, 'Role', { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
    this.logGroup.grantWrite(this.role);

    this.function = new NodejsFunction(this, 'Function', {
      entry: join(projectRoot, props.entry),
      handler: 'handler',
      projectRoot,
      depsLockFilePath: join(projectRoot, 'package-lock.json'),
      runtime: Runtime.NODEJS_24_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize ?? 1024,
      timeout: props.timeout ?? Duration.seconds(10),
      reservedConcurrentExecutions: props.reservedConcurrency,
      role: this.role,
      logGroup: this.logGroup,
      tracing: Tracing.ACTIVE,
      environment: { ...props.environment, NODE_OPTIONS: '--enable-source-maps' },
      bundling: {
        forceDockerBundling: false,
        format: OutputFormat.ESM,
        target: 'node24',
        mainFields: ['module', 'main'],
        // Some dependencies still call require(); ESM output has no require unless we make one.
        banner: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
        minify: true,
        sourceMap: true,
        sourcesContent: false,
        // The AWS SDK is bundled too, so the deployed code runs the versions the tests ran,
        // not whatever the managed runtime happens to ship.
        externalModules: [],
      },
    });

    (this.function.node.defaultChild as CfnFunction).addMetadata(FUNCTION_NAME_METADATA, props.name);

    Validations.of(this.role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: 'Active tracing needs xray:PutTraceSegments and xray:PutTelemetryRecords, which do not support resource-level permissions.',
    });
  }
}
