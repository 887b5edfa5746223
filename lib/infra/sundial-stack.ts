import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { STACK_OUTPUTS } from '../core/limits';
import type { SundialProps } from './props';
import { Sundial } from './sundial';

export interface SundialStackProps extends StackProps {
  /** The settings of the Sundial construct. */
  readonly sundial?: SundialProps;
}

/** A stack holding one {@link Sundial}, with the names and URLs the CLI and operators need as outputs. */
export class SundialStack extends Stack {
  readonly sundial: Sundial;

  constructor(scope: Construct, id: string, props: SundialStackProps = {}) {
    super(scope, id, props);
    this.sundial = new Sundial(this, 'Sundial', props.sundial);
    const { adminFunction, table, queue, deadLetterQueue, eventBus } = this.sundial;
    new CfnOutput(this, STACK_OUTPUTS.adminFunctionName, {
      value: adminFunction.functionName,
      description: 'Invoke this function for the admin API (aws lambda invoke / the sundial CLI)',
    });
    new CfnOutput(this, STACK_OUTPUTS.tableName, {
      value: table.tableName,
      description: 'Schedules, jobs and results',
    });
    new CfnOutput(this, STACK_OUTPUTS.queueUrl, { value: queue.queueUrl, description: 'Jobs queue' });
    new CfnOutput(this, STACK_OUTPUTS.deadLetterQueueUrl, {
      value: deadLetterQueue.queueUrl,
      description: 'Dead-lettered job messages',
    });
    new CfnOutput(this, STACK_OUTPUTS.eventBusName, {
      value: eventBus.eventBusName,
      description: 'Job events',
    });
    new CfnOutput(this, STACK_OUTPUTS.dashboardName, {
      value: this.sundial.dashboard.dashboardName,
      description: 'CloudWatch dashboard',
    });
  }
}
