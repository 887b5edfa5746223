import { type FSWatcher, watch } from 'node:fs';
import { loadTaskRegistryFromDirectory } from '../runtime/tasks/load-directory';
import type { TaskRegistry } from '../runtime/tasks/registry';

/**
 * Watches `functions/` and reloads the task registry when a module is added, edited or removed.
 * A reload that fails (a broken module) is reported and the previous registry stays in use.
 */
export function watchTasks(
  dir: string,
  onReload: (registry: TaskRegistry) => void,
  onError: (error: unknown) => void,
): { close(): void } {
  let timer: NodeJS.Timeout | undefined;
  let watcher: FSWatcher | undefined;
  const reload = () => {
    loadTaskRegistryFromDirectory(dir, { reloadKey: String(Date.now()) }).then(onReload, onError);
  };
  try {
    watcher = watch(dir, () => {
      clearTimeout(timer);
      timer = setTimeout(reload, 250);
    });
  } catch (error) {
    onError(error);
  }
  return {
    close() {
      clearTimeout(timer);
      watcher?.close();
    },
  };
}
