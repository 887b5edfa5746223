/**
 * Run in a child process by the construct at synth and by `sundial schedules plan`:
 *
 *   node --import tsx declarations-script.ts <functionsDir>   (the CDK app's declarations as JSON on stdin)
 *
 * Loads the task modules of `functionsDir`, checks every schedule declared in code (`declaredSchedules`)
 * and prints, as the last line of stdout, `{"schedules": [...]}` (each a `DesiredSchedule`) or
 * `{"problems": [...]}`. Task modules may log before that line; they see `SUNDIAL_TASK_INSPECTION=1`.
 */
import { text } from 'node:stream/consumers';
import { loadTaskRegistryFromDirectory } from '../tasks/load-directory';
import { TaskRegistryError } from '../tasks/registry';
import { DeclaredSchedulesError, declaredSchedules } from './declared-schedules';

const [functionsDir] = process.argv.slice(2);
process.stdout.write(`\n${JSON.stringify(await answer())}\n`, () => {
  // A task module may hold the event loop open (a timer, a client): the answer is out, so stop here.
  process.exit(0);
});

async function answer(): Promise<unknown> {
  try {
    if (functionsDir === undefined) return { problems: ['usage: declarations-script.ts <functionsDir>'] };
    const input = (await text(process.stdin)).trim();
    const appDeclarations = input === '' ? [] : (JSON.parse(input) as unknown[]);
    const registry = await loadTaskRegistryFromDirectory(functionsDir);
    const schedules = declaredSchedules(registry, appDeclarations);
    return { schedules };
  } catch (error) {
    if (error instanceof DeclaredSchedulesError || error instanceof TaskRegistryError) {
      return { problems: error.problems };
    }
    return { problems: [error instanceof Error ? error.message : String(error)] };
  }
}
