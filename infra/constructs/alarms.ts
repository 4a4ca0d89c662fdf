import { ArnFormat, Duration, Stack } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import type { AlarmProps, IAlarmAction } from 'aws-cdk-lib/aws-cloudwatch';
import { Alarm, ComparisonOperator, MathExpression, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

export interface AlarmsProps {
  api: HttpApi;
  /** Keyed by a readable name, which also names the alarms. */
  functions: ReadonlyMap<string, IFunction>;
  deadLetterQueues: ReadonlyMap<string, IQueue>;
  /** Subscribed to the topic when given. */
  email?: string;
}

const period = Duration.minutes(5);

/**
 * A throttle alarm fires on a sustained rate, not on one throttle (a queue worker at its mapping's
 * bound, a burst that Lambda retried): at least `percent` of a function's invocation attempts
 * throttled in each of `minutes` consecutive minutes. Attempts are Invocations plus Throttles
 * (Lambda does not count a throttled request as an invocation).
 */
export const THROTTLE_ALARM = { percent: 10, minutes: 5 } as const;

/** Alarms that need a person, all sent to one topic. */
export class Alarms extends Construct {
  readonly topic: Topic;
  private readonly action: IAlarmAction;

  constructor(scope: Construct, id: string, props: AlarmsProps) {
    super(scope, id);
    this.topic = new Topic(this, 'Topic', { displayName: 'delivery-ops alarms', enforceSSL: true });
    // enforceSSL gives the topic a policy, and a topic policy replaces the default one, which let
    // the account's services publish: without this statement no alarm would reach anyone.
    // CloudWatch names the alarm as aws:SourceArn; CloudFormation names each alarm after the stack.
    const stack = Stack.of(this);
    this.topic.addToResourcePolicy(
      new PolicyStatement({
        sid: 'CloudWatchAlarmsOfThisStack',
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [this.topic.topicArn],
        conditions: {
          StringEquals: { 'aws:SourceAccount': stack.account },
          ArnLike: { 'aws:SourceArn': stack.formatArn({ service: 'cloudwatch', resource: 'alarm', resourceName: `${stack.stackName}-*`, arnFormat: ArnFormat.COLON_RESOURCE_NAME }) },
        },
      }),
    );
    if (props.email) this.topic.addSubscription(new EmailSubscription(props.email));
    this.action = new SnsAction(this.topic);

    this.alarm('Api5xx', {
      alarmDescription: 'The HTTP API answered 5xx: a function failed, timed out or could not be invoked.',
      metric: props.api.metricServerError({ period, statistic: 'Sum' }),
      threshold: 5,
    });

    for (const [name, fn] of props.functions) {
      this.alarm(`${name}Errors`, {
        alarmDescription: `Function ${name} threw or timed out.`,
        metric: fn.metricErrors({ period, statistic: 'Sum' }),
        threshold: 1,
      });
      const minute = { period: Duration.minutes(1), statistic: 'Sum' };
      this.alarm(`${name}Throttles`, {
        alarmDescription: `Function ${name}: ${THROTTLE_ALARM.percent}% or more of its invocations throttled in each of ${THROTTLE_ALARM.minutes} minutes in a row: account or reserved concurrency is used up.`,
        metric: new MathExpression({
          expression: 'IF(throttles + invocations > 0, 100 * throttles / (throttles + invocations), 0)',
          usingMetrics: { throttles: fn.metricThrottles(minute), invocations: fn.metricInvocations(minute) },
          period: Duration.minutes(1),
          label: `${name} throttled %`,
        }),
        threshold: THROTTLE_ALARM.percent,
        evaluationPeriods: THROTTLE_ALARM.minutes,
        datapointsToAlarm: THROTTLE_ALARM.minutes,
      });
    }

    for (const [name, queue] of props.deadLetterQueues) {
      this.alarm(`${name}Depth`, {
        alarmDescription: `Messages wait in ${name}: they failed every receive and need a look.`,
        metric: queue.metricApproximateNumberOfMessagesVisible({ period, statistic: 'Maximum' }),
        threshold: 0,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      });
    }
  }

  /** Sends an alarm made elsewhere (the webhooks issue, for example) to the same topic. */
  notify(alarm: Alarm): Alarm {
    alarm.addAlarmAction(this.action);
    return alarm;
  }

  private alarm(id: string, props: Omit<AlarmProps, 'evaluationPeriods'> & { evaluationPeriods?: number }): Alarm {
    return this.notify(
      new Alarm(this, id, {
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        // No traffic is not an incident.
        treatMissingData: TreatMissingData.NOT_BREACHING,
        ...props,
      }),
    );
  }
}
