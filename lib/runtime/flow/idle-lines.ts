import { type WakeDeps, wakeForFreeSlots } from './wake-line';

/**
 * The tick's fallback for lost wake-ups (a worker that died between giving its slot back and waking
 * the next job): every task with free slots gets as many of its waiting jobs woken. A line is woken
 * within one tick of a slot coming free. Returns how many jobs were woken.
 */
export async function wakeIdleLines(deps: WakeDeps): Promise<number> {
  const tasks = await deps.jobStore.allTaskSlots();
  const woken = await Promise.all(tasks.map((slots) => wakeForFreeSlots(deps, slots)));
  return woken.reduce((sum, count) => sum + count, 0);
}
