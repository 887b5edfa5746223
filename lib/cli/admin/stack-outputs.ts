import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { STACK_OUTPUTS } from '../../core/limits';
import { AdminUnavailableError } from './answer';
import { describeSdkError } from './lambda-admin';

/** The stack output holding the admin function's name (lib/infra/sundial-stack.ts writes it). */
const ADMIN_FUNCTION_OUTPUT = STACK_OUTPUTS.adminFunctionName;

export interface AwsSettings {
  profile?: string | undefined;
  region?: string | undefined;
}

/**
 * Reads the admin function's name from the deployed stack's outputs (`DescribeStacks`), with the
 * user's own AWS credentials. Fails with a message that says how to point the CLI elsewhere.
 */
export async function adminFunctionFromStack(stackName: string, aws: AwsSettings): Promise<string> {
  const client = new CloudFormationClient({
    ...(aws.profile === undefined ? {} : { profile: aws.profile }),
    ...(aws.region === undefined ? {} : { region: aws.region }),
  });
  try {
    const output = await client.send(new DescribeStacksCommand({ StackName: stackName }));
    const outputs = output.Stacks?.[0]?.Outputs ?? [];
    const found = outputs.find((entry) => entry.OutputKey?.includes(ADMIN_FUNCTION_OUTPUT));
    if (!found?.OutputValue) {
      throw new AdminUnavailableError(
        `stack '${stackName}' has no ${ADMIN_FUNCTION_OUTPUT} output`,
        'is it a Sundial stack? pass the admin function with --function',
      );
    }
    return found.OutputValue;
  } catch (error) {
    if (error instanceof AdminUnavailableError) throw error;
    throw new AdminUnavailableError(
      `cannot read the outputs of stack '${stackName}': ${describeSdkError(error)}`,
      'is the local platform running? start it with npm start; for AWS, deploy with npx cdk deploy, ' +
        'or pass --stack, --region, --profile or --function',
    );
  } finally {
    client.destroy();
  }
}
