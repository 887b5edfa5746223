/** How urgent a job is: under a backlog, `critical` jobs start before `normal` ones that came earlier. */
export const PRIORITIES = ['critical', 'normal'] as const;
export type Priority = (typeof PRIORITIES)[number];
export const DEFAULT_PRIORITY: Priority = 'normal';
