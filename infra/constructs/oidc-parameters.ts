import { createHash } from 'node:crypto';
import { CfnParameter, CfnRule, Fn } from 'aws-cdk-lib';
import { Construct } from 'constructs';

export interface OidcParametersProps {
  issuer: string;
  audience: string;
  /** The values synth uses when no setting names the identity provider. */
  placeholders: { issuer: string; audience: string };
}

/**
 * The issuer and audience as stack parameters, with a rule that refuses the placeholders: CloudFormation
 * checks rules before it creates or changes any resource, so a deploy without real settings stops
 * there, while `cdk synth` needs no settings at all.
 *
 * A parameter's logical id carries a digest of its value. The CDK CLI sends a parameter it was not
 * given as UsePreviousValue, which would let a later deploy that forgot the settings keep the
 * previous, real value and pass the rule; a new value makes a new parameter, whose default counts.
 */
export class OidcParameters extends Construct {
  /** The issuer parameter's value (a Ref): what the functions read is what the rule checked. */
  readonly issuer: string;
  /** The audience parameter's value (a Ref), likewise. */
  readonly audience: string;
  readonly rule: CfnRule;

  constructor(scope: Construct, id: string, props: OidcParametersProps) {
    super(scope, id);
    const issuer = this.parameter('Issuer', props.issuer, 'the tokens\' iss (context key oidcIssuer)');
    const audience = this.parameter('Audience', props.audience, 'the tokens\' aud or client_id (context key oidcAudience)');
    // Not the literal values: a deploy that sets the parameters themselves (--parameters) would
    // pass the rule while the functions kept the value synth saw, the placeholder included.
    this.issuer = issuer.valueAsString;
    this.audience = audience.valueAsString;
    this.rule = new CfnRule(this, 'NotPlaceholder', {
      assertions: [
        {
          assert: Fn.conditionNot(Fn.conditionEquals(issuer.valueAsString, props.placeholders.issuer)),
          assertDescription: 'The OIDC issuer is the placeholder, which accepts no token: deploy with -c oidcIssuer=<your issuer URL>.',
        },
        {
          assert: Fn.conditionNot(Fn.conditionEquals(audience.valueAsString, props.placeholders.audience)),
          assertDescription: 'The OIDC audience is the placeholder: deploy with -c oidcAudience=<the audience your tokens carry>.',
        },
      ],
    });
  }

  private parameter(name: string, value: string, meaning: string): CfnParameter {
    const digest = createHash('sha256').update(value).digest('hex').slice(0, 8);
    const parameter = new CfnParameter(this, `${name}${digest}`, {
      type: 'String',
      default: value,
      description: `OIDC ${name.toLowerCase()}: ${meaning}. Set by the context key; the stack refuses the placeholder.`,
    });
    parameter.overrideLogicalId(`Oidc${name}${digest}`);
    return parameter;
  }
}
