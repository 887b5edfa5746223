import { UsageError } from '../../../command';
import type { TaskChoice } from './convert';

/** The options of `sundial import` that only mean something with `--from-eventbridge`. */
export interface EventBridgeFlags {
  fromEventbridge?: true | undefined;
  task?: string | undefined;
  taskFor?: string[] | undefined;
  dryRun?: true | undefined;
}

/**
 * The task choice of `--task` and `--task-for ARN=TASK`; usage errors for those flags without
 * `--from-eventbridge`, for a malformed mapping, and for neither flag.
 */
export function taskChoice(flags: EventBridgeFlags): TaskChoice | undefined {
  const given = [flags.task && '--task', flags.taskFor && '--task-for', flags.dryRun && '--dry-run'].filter(
    Boolean,
  );
  if (!flags.fromEventbridge) {
    if (given.length > 0) throw new UsageError(`${given.join(', ')}: only apply with --from-eventbridge`);
    return undefined;
  }
  const taskFor = new Map<string, string>();
  for (const mapping of flags.taskFor ?? []) {
    const split = mapping.lastIndexOf('=');
    if (split <= 0 || split === mapping.length - 1) {
      throw new UsageError(
        `--task-for: write <target ARN>=<task>, e.g. 'arn:aws:lambda:eu-west-1:123456789012:function:report=report' (got '${mapping}')`,
      );
    }
    taskFor.set(mapping.slice(0, split), mapping.slice(split + 1));
  }
  if (flags.task === undefined && taskFor.size === 0) {
    throw new UsageError(
      '--from-eventbridge: say which task runs the schedules: --task TASK, or --task-for <target ARN>=TASK per target',
    );
  }
  return { task: flags.task, taskFor };
}
