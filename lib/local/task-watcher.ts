import { type FSWatcher, watch } from 'node:fs';
import { type LoadedTasks, loadTasks } from '../runtime/code-schedules/load-tasks';

/**
 * Watches `functions/` and reloads the tasks (and the schedules they declare) when a module is added,
 * edited or removed. A reload that fails (a broken module, a bad schedule) is reported and the previous
 * tasks stay in use.
 */
export function watchTasks(
  dir: string,
  onReload: (loaded: LoadedTasks) => void,
  onError: (error: unknown) => void,
): { close(): void } {
  let timer: NodeJS.Timeout | undefined;
  let watcher: FSWatcher | undefined;
  const reload = () => {
    loadTasks(dir, { reloadKey: String(Date.now()) }).then(onReload, onError);
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
