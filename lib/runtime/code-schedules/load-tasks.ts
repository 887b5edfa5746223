import type { DesiredSchedule } from '../../core/code-schedules/desired';
import { loadTaskRegistryFromDirectory } from '../tasks/load-directory';
import type { TaskRegistry } from '../tasks/registry';
import { declaredSchedules } from './declared-schedules';

/** The tasks of a folder and the schedules they declare, both checked. */
export interface LoadedTasks {
  registry: TaskRegistry;
  schedules: DesiredSchedule[];
}

/**
 * Loads the task modules of `dir` and checks the schedules they declare (`declaredSchedules`).
 *
 * @throws TaskRegistryError for a module that cannot be used; DeclaredSchedulesError for a bad schedule
 */
export async function loadTasks(dir: string, options: { reloadKey?: string } = {}): Promise<LoadedTasks> {
  const registry = await loadTaskRegistryFromDirectory(dir, options);
  return { registry, schedules: declaredSchedules(registry) };
}
