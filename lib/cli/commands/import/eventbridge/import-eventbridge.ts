import type { AdminClient } from '../../../admin/client';
import { UsageError } from '../../../command';
import type { ItemOutcome } from '../submit';
import { submitSchedules } from '../submit';
import {
  convertEventBridgeSchedule,
  type EventBridgeConversion,
  eventBridgeItems,
  type TaskChoice,
} from './convert';

/**
 * What became of one EventBridge schedule: `added`, `replaced`, `kept` (or in a dry run `would add`,
 * `would replace`, `would keep`), `skipped`, `failed`.
 */
export interface EventBridgeOutcome {
  index: number;
  source: string;
  id: string | null;
  status: string;
  /** Why it was skipped, or the admin API's error (`code: message`). */
  problem?: string;
  notes: string[];
  /** The add_schedule fields sent (or, in a dry run, that would be sent). */
  schedule?: Record<string, unknown>;
}

export interface EventBridgeImportOptions {
  choice: TaskChoice;
  dryRun: boolean;
  concurrency: number;
  conflictPolicy?: string | undefined;
  admin(): Promise<AdminClient>;
  onProgress(settled: number): void;
}

/**
 * Converts the file's EventBridge schedules and adds those that convert. A dry run sends them with
 * `dry_run`: the admin API checks each as it would add it (task, payload, trigger, an id in use) and
 * writes nothing. Every item gets an outcome, in file order.
 */
export async function importEventBridgeSchedules(
  content: unknown,
  path: string,
  options: EventBridgeImportOptions,
): Promise<EventBridgeOutcome[]> {
  const items = eventBridgeItems(content);
  if (typeof items === 'string') throw new UsageError(`${path}: ${items}`);
  if (items.length === 0) throw new UsageError(`${path}: holds no schedules`);
  const conversions = items.map((item, index) => convertEventBridgeSchedule(item, index, options.choice));
  const convertible = conversions.filter((conversion) => conversion.schedule !== undefined);
  const requests = convertible.map((conversion) =>
    options.dryRun ? { ...conversion.schedule, dry_run: true } : conversion.schedule,
  );
  const submitted =
    requests.length === 0
      ? []
      : await submitSchedules(requests, { client: await options.admin(), ...options });
  const outcomeOf = new Map(convertible.map((conversion, position) => [conversion, submitted[position]]));
  return conversions.map((conversion) => {
    const result = outcome(conversion, outcomeOf.get(conversion));
    return options.dryRun ? { ...result, status: WOULD[result.status] ?? result.status } : result;
  });
}

/** What a dry run says for what the import would have done. */
const WOULD: Readonly<Record<string, string>> = {
  added: 'would add',
  replaced: 'would replace',
  kept: 'would keep',
};

function outcome(conversion: EventBridgeConversion, submitted: ItemOutcome | undefined): EventBridgeOutcome {
  const { index, source, notes, schedule } = conversion;
  const id = typeof schedule?.id === 'string' ? schedule.id : null;
  if (conversion.skipped !== undefined || submitted === undefined) {
    return { index, source, id, status: 'skipped', problem: conversion.skipped ?? 'not converted', notes };
  }
  if (!submitted.ok) {
    const problem = `${submitted.error?.code}: ${submitted.error?.message}`;
    return { index, source, id, status: 'failed', problem, notes, ...(schedule && { schedule }) };
  }
  return {
    index,
    source,
    id: submitted.id ?? id,
    status: submitted.status ?? 'added',
    notes,
    ...(schedule && { schedule }),
  };
}
