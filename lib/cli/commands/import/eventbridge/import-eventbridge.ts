import { ValidationError } from '../../../../core/errors';
import { parseTrigger } from '../../../../core/triggers';
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

/** What became of one EventBridge schedule: `added`, `replaced`, `kept`, `would add` (dry run), `skipped`, `failed`. */
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
 * Converts the file's EventBridge schedules and adds those that convert (none in a dry run, which
 * checks their triggers locally instead). Every item gets an outcome, in file order.
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
  const submitted = options.dryRun
    ? convertible.map(checkedLocally)
    : await submitSchedules(
        convertible.map((conversion) => conversion.schedule),
        { client: await options.admin(), ...options },
      );
  const outcomeOf = new Map(convertible.map((conversion, position) => [conversion, submitted[position]]));
  return conversions.map((conversion) => outcome(conversion, outcomeOf.get(conversion)));
}

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

/** A dry run's check: the trigger as the admin API would read it. */
function checkedLocally(conversion: EventBridgeConversion, position: number): ItemOutcome {
  const base = { kind: 'schedule' as const, index: position, id: null };
  try {
    parseTrigger(conversion.schedule?.trigger);
    return { ...base, ok: true, status: 'would add' };
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    return { ...base, ok: false, error: { code: 'invalid_input', message: error.message } };
  }
}
