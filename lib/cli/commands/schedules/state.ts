import { callAdmin } from '../../admin/client';
import { adminCommand } from '../../admin-command';
import { localWithRelative } from '../../format/instants';
import { writtenSummary } from './add-update';

export const pauseScheduleCommand = adminCommand({
  name: 'pause',
  summary: 'stop a schedule: nothing of it starts until resumed',
  description: `Pauses a schedule (admin API pause_schedule): nothing of it starts until resumed, not even the fires
already sent to the queue. Idempotent.`,
  examples: ['sundial schedules pause nightly'],
  declare: (command) => command.argument('<id>', 'the schedule id'),
  async execute({ args: [id], admin, print }) {
    const result = await callAdmin(await admin(), 'pause_schedule', { id });
    print(result, () => `Paused schedule '${id}'. Resume it with: sundial schedules resume ${id}`);
    return undefined;
  },
});

export const resumeScheduleCommand = adminCommand({
  name: 'resume',
  summary: 'resume a paused schedule',
  description: `Resumes a schedule (admin API resume_schedule). By default the fire times missed while paused are
skipped; with --replay-missed they are due at once and the schedule's coalesce policy and misfire
grace decide which run.`,
  examples: ['sundial schedules resume nightly', 'sundial schedules resume cleanup --replay-missed'],
  declare: (command) =>
    command
      .argument('<id>', 'the schedule id')
      .option('--replay-missed', 'run the fire times missed while paused (per the coalesce policy)'),
  async execute({ args: [id], options, io, admin, print }) {
    const request = {
      id,
      ...(options.replayMissed ? { replay_missed: true } : {}),
    };
    const result = await callAdmin(await admin(), 'resume_schedule', request);
    print(result, () => writtenSummary('Resumed schedule', result, io));
    return undefined;
  },
});

export const removeScheduleCommand = adminCommand({
  name: 'remove',
  summary: 'delete a schedule (its jobs and results stay until they expire)',
  description:
    'Deletes a schedule (admin API remove_schedule). A second removal fails with schedule_not_found.',
  examples: ['sundial schedules remove nightly'],
  declare: (command) => command.argument('<id>', 'the schedule id'),
  async execute({ args: [id], admin, print }) {
    const result = await callAdmin(await admin(), 'remove_schedule', { id });
    print(result, () => `Removed schedule '${id}'.`);
    return undefined;
  },
});

export const runScheduleCommand = adminCommand({
  name: 'run',
  summary: 'queue one job of a schedule now, outside its fire times',
  description: `Queues one job now with the schedule's task and payload (admin API run_schedule_now); the schedule
itself is unchanged. Follow it with 'sundial jobs get <job id>' or 'sundial jobs result <job id>'.`,
  examples: ['sundial schedules run nightly', 'sundial schedules run nightly --json'],
  declare: (command) => command.argument('<id>', 'the schedule id'),
  async execute({ args: [id], io, admin, print }) {
    const result = await callAdmin(await admin(), 'run_schedule_now', { id });
    const { job } = result;
    print(result, () =>
      [
        `Queued job '${job.id}' (${job.task}) to run ${localWithRelative(job.run_at, 'UTC', io.clock)}.`,
        `Its result: sundial jobs result '${job.id}'`,
      ].join('\n'),
    );
    return undefined;
  },
});
