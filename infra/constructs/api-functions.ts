import type { FunctionGroup } from '../../functions/index.ts';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { Construct } from 'constructs';
import type { DataTable } from './data-table.ts';
import { ServiceFunction } from './service-function.ts';

export interface OidcSettings {
  issuer: string;
  audience: string;
  /** The issuer requires two-step verification of everyone (decisions.md section 4). */
  mfaEnforced: boolean;
}

export interface ApiFunctionsProps {
  groups: readonly FunctionGroup[];
  data: DataTable;
  oidc: OidcSettings;
  serviceName: string;
  /** Reserved concurrency by group name (the public tracking group's cap). @default none */
  reservedConcurrency?: Readonly<Record<string, number>>;
}

/** One Lambda per endpoint group of the function manifest. */
export class ApiFunctions extends Construct {
  /** Keyed by group name, in manifest order. */
  readonly byGroup: ReadonlyMap<string, ServiceFunction>;

  constructor(scope: Construct, id: string, props: ApiFunctionsProps) {
    super(scope, id);
    const byGroup = new Map<string, ServiceFunction>();
    for (const group of props.groups) {
      const fn = new ServiceFunction(this, pascal(group.name), {
        name: group.name,
        entry: group.entry,
        environment: {
          TABLE_NAME: props.data.table.tableName,
          OIDC_ISSUER: props.oidc.issuer,
          OIDC_AUDIENCE: props.oidc.audience,
          OIDC_MFA_ENFORCED: props.oidc.mfaEnforced ? '1' : '0',
          POWERTOOLS_SERVICE_NAME: props.serviceName,
        },
        reservedConcurrency: props.reservedConcurrency?.[group.name],
      });
      props.data.grantAccess(fn.function, group.table);
      byGroup.set(group.name, fn);
    }
    this.byGroup = byGroup;
  }

  functionFor(groupName: string): NodejsFunction {
    const fn = this.byGroup.get(groupName);
    if (!fn) throw new Error(`No function for endpoint group "${groupName}"`);
    return fn.function;
  }
}

/** Construct ids follow CDK's PascalCase habit; group names are kebab or lower case. */
const pascal = (name: string): string =>
  name.replace(/(^|[-_\s]+)(\w)/g, (_match, _sep: string, letter: string) => letter.toUpperCase());
