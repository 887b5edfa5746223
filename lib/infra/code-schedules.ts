import { join } from 'node:path';
import { CustomResource } from 'aws-cdk-lib';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import type { AppScheduleDeclaration } from '../core/code-schedules/declaration';
import { runTaskScript } from './tasks';

/** The script that checks declared schedules (named, never imported: infra runs no runtime code). */
const DECLARATIONS_SCRIPT = 'lib/runtime/code-schedules/declarations-script.ts';
/**
 * The most the declared schedules may take in the template, as JSON. CloudFormation sends them to the
 * reconcile twice in an update (new and old properties), and an invocation carries at most 256 KB.
 */
export const MAX_DECLARED_SCHEDULES_BYTES = 100_000;

export interface CheckedDeclarations {
  /** Every declared schedule, checked and with its fields explicit (the reconcile's input). */
  readonly schedules: readonly unknown[];
  readonly problems: readonly string[];
}

/**
 * Checks the schedules declared in code (those of the tasks in `functionsDir` and the app's own) as the
 * runtime will: in a child process that loads the task modules, so one bad schedule fails the synth with
 * a message that names it and its field. Runs only when something declares schedules.
 */
export function checkDeclaredSchedules(
  functionsDir: string,
  appDeclarations: readonly AppScheduleDeclaration[],
  tasksDeclare: boolean,
  projectRoot: string,
): CheckedDeclarations {
  if (!tasksDeclare && appDeclarations.length === 0) return { schedules: [], problems: [] };
  const ran = runTaskScript(
    join(projectRoot, DECLARATIONS_SCRIPT),
    [functionsDir],
    projectRoot,
    JSON.stringify(appDeclarations),
  );
  if ('error' in ran) {
    return {
      schedules: [],
      problems: [`could not check the declared schedules in a child process: ${ran.error}`],
    };
  }
  const answer = ran.answer as { schedules?: unknown[]; problems?: string[] };
  if (answer.problems) return { schedules: [], problems: answer.problems };
  const schedules = answer.schedules ?? [];
  const bytes = Buffer.byteLength(JSON.stringify(schedules));
  if (bytes > MAX_DECLARED_SCHEDULES_BYTES) {
    return {
      schedules: [],
      problems: [
        `the schedules declared in code take ${bytes} bytes as JSON; at most ${MAX_DECLARED_SCHEDULES_BYTES} fit in a deploy: move large payloads out of them`,
      ],
    };
  }
  return { schedules, problems: [] };
}

export interface CodeSchedulesResourceProps {
  /** The reconcile's Lambda: CloudFormation invokes it with each Create, Update and Delete. */
  readonly handler: lambda.IFunction;
  readonly schedules: readonly unknown[];
  readonly maxRemovalPercent: number;
  readonly keepOnDelete: boolean;
}

/**
 * The custom resource whose properties are the declared schedules: every deploy that changes them
 * sends an Update, and deleting the stack a Delete. Its values are JSON text (CloudFormation turns the
 * numbers and booleans of a custom resource's properties into strings).
 */
export function codeSchedulesResource(scope: Construct, props: CodeSchedulesResourceProps): CustomResource {
  return new CustomResource(scope, 'CodeSchedules', {
    serviceToken: props.handler.functionArn,
    resourceType: 'Custom::SundialSchedules',
    properties: {
      Schedules: JSON.stringify(props.schedules),
      MaxRemovalPercent: String(props.maxRemovalPercent),
      OnDelete: props.keepOnDelete ? 'keep' : 'remove',
    },
  });
}
