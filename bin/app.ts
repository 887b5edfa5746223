#!/usr/bin/env node
/**
 * The CDK app: one Sundial stack, configured by the `sundial` context object (cdk.json or
 * `-c sundial='{…}'`), checked by cdk-nag's AwsSolutions rules on every synth (a finding fails it).
 *
 *   npx cdk synth | diff | deploy | destroy    (the pinned CLI, aws-cdk 2.1148.1)
 */
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { propsFromContext } from '../lib/infra/context';
import { PROJECT_ROOT } from '../lib/infra/sundial';
import { SundialStack } from '../lib/infra/sundial-stack';

const app = new App();
const stackName = (app.node.tryGetContext('stackName') as string | undefined) ?? 'Sundial';
new SundialStack(app, stackName, {
  description: 'Sundial: serverless scheduled jobs (DynamoDB, SQS, EventBridge, Lambda)',
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
  sundial: propsFromContext(app, app.node.tryGetContext('sundial'), PROJECT_ROOT),
});
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
app.synth();
