import { parseArgs } from 'node:util';
import type { EpochMs } from '../../core/clock';
import { ValidationError } from '../../core/errors';
import { isoInZone } from '../../core/instants';
import {
  canonicalCronExpression,
  MaxIterationsReachedError,
  parseIsoInstant,
  parseTrigger,
  previewFireTimes,
  type TriggerSpec,
  triggerTimezone,
} from '../../core/triggers';
import { type Command, EXIT_OK, UsageError } from '../command';
import { renderFireTimeTable } from '../format/fire-times';
import type { CliIo } from '../io';

const DEFAULT_COUNT = 10;
const MAX_COUNT = 1_000;

const HELP = `Usage:
  sundial preview '<cron expression>' [--timezone <zone>] [--from <ISO>] [--count <n>] [--json]
  sundial preview --trigger '<trigger JSON>' [--from <ISO>] [--count <n>] [--json]

Shows the fire times at or after --from: in the trigger's time zone (with its UTC offset and
abbreviation) and in UTC. Nothing is stored; use it to check a schedule before adding it.

Options:
  --trigger <json>   a trigger: cron, interval, calendar_interval, date, and, or (docs/triggers.md)
  --timezone <zone>  IANA time zone of a cron expression (default UTC)
  --from <ISO>       first instant to consider, with Z or an offset (default now)
  --count <n>        how many fire times, 1-${MAX_COUNT} (default ${DEFAULT_COUNT})
  --json             print only a JSON array of ISO-8601 times in the trigger's time zone
  -h, --help         show this help

Examples:
  sundial preview '30 2 * * *' --timezone America/New_York --from 2026-03-07T00:00:00Z --count 3
  sundial preview --trigger '{"type": "interval", "minutes": 90}' --json
  sundial preview --trigger '{"type": "calendar_interval", "months": 1, "start_date": "2026-01-31", "hour": 9, "timezone": "Europe/Berlin"}'
`;

interface PreviewRequest {
  trigger: TriggerSpec;
  /** How the trigger was given, for the table's title. */
  title: string;
  from: EpochMs;
  count: number;
  json: boolean;
}

export const previewCommand: Command = {
  name: 'preview',
  summary: 'show the next fire times of a trigger or cron expression',
  help: HELP,
  async run(args, io) {
    const request = parsePreviewArgs(args, io);
    if (request === 'help') {
      io.stdout.write(HELP);
      return EXIT_OK;
    }
    let fires: EpochMs[];
    try {
      fires = previewFireTimes(request.trigger, request.from, request.count);
    } catch (error) {
      if (error instanceof MaxIterationsReachedError) throw new UsageError(`--trigger: ${error.message}`);
      throw error;
    }
    const zone = triggerTimezone(request.trigger);
    io.stdout.write(request.json ? jsonOutput(fires, zone) : tableOutput(fires, zone, request));
    return EXIT_OK;
  },
};

function parsePreviewArgs(args: readonly string[], io: CliIo): PreviewRequest | 'help' {
  const { values, positionals } = parseArgs({
    args: [...args],
    allowPositionals: true,
    strict: true,
    options: {
      trigger: { type: 'string' },
      timezone: { type: 'string' },
      from: { type: 'string' },
      count: { type: 'string' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) return 'help';
  const from = values.from === undefined ? io.clock.now() : parseFrom(values.from);
  const count = values.count === undefined ? DEFAULT_COUNT : parseCount(values.count);
  const json = values.json;
  if (values.trigger !== undefined) {
    if (positionals.length > 0) throw new UsageError('give either a cron expression or --trigger, not both');
    if (values.timezone !== undefined) {
      throw new UsageError(
        '--timezone: only applies to a cron expression; put "timezone" in the --trigger JSON',
      );
    }
    return { trigger: parseTriggerJson(values.trigger), title: 'the trigger', from, count, json };
  }
  const [expression, ...extra] = positionals;
  if (expression === undefined)
    throw new UsageError("give a cron expression ('*/5 * * * *') or --trigger '<JSON>'");
  if (extra.length > 0) {
    throw new UsageError(
      `quote the cron expression as one argument: sundial preview '${positionals.join(' ')}'`,
    );
  }
  const trigger = parseCronShortcut(expression, values.timezone);
  const canonical = canonicalCronExpression(expression);
  const readAs = canonical === expression ? '' : ` (read as '${canonical}')`;
  return { trigger, title: `cron '${expression}'${readAs}`, from, count, json };
}

function parseFrom(text: string): EpochMs {
  const parsed = parseIsoInstant(text);
  if (!parsed.ok) throw new UsageError(`--from: ${parsed.problem}`);
  return parsed.value;
}

function parseCount(text: string): number {
  const count = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!(count >= 1 && count <= MAX_COUNT)) {
    throw new UsageError(`--count: must be a whole number from 1 to ${MAX_COUNT} (got '${text}')`);
  }
  return count;
}

function parseTriggerJson(text: string): TriggerSpec {
  let input: unknown;
  try {
    input = JSON.parse(text);
  } catch (error) {
    throw new UsageError(
      `--trigger: not valid JSON (${error instanceof Error ? error.message : String(error)})`,
    );
  }
  try {
    return parseTrigger(input);
  } catch (error) {
    if (error instanceof ValidationError) throw new UsageError(`--trigger: ${error.message}`);
    throw error;
  }
}

/** A bare cron expression; problems are reported against the argument the user typed. */
function parseCronShortcut(expression: string, timezone: string | undefined): TriggerSpec {
  try {
    return parseTrigger({ type: 'cron', expression, ...(timezone === undefined ? {} : { timezone }) });
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    const problems = error.issues.map((issue) =>
      issue.path === 'trigger.timezone'
        ? `--timezone: ${issue.message}`
        : `cron expression: ${issue.message}`,
    );
    throw new UsageError(problems.join('; '));
  }
}

function jsonOutput(fires: readonly EpochMs[], zone: string): string {
  return `${JSON.stringify(
    fires.map((fire) => isoInZone(fire, zone)),
    null,
    2,
  )}\n`;
}

function tableOutput(fires: readonly EpochMs[], zone: string, request: PreviewRequest): string {
  const from = isoInZone(request.from, 'UTC');
  if (fires.length === 0)
    return `No fire times of ${request.title} at or after ${from}: the trigger has finished.\n`;
  const lines = [
    `Fire times of ${request.title} in ${zone}, at or after ${from}:`,
    '',
    renderFireTimeTable(fires, zone),
  ];
  if (fires.length < request.count) {
    lines.push('', `The trigger has no more fire times: ${fires.length} of the ${request.count} asked for.`);
  }
  return `${lines.join('\n')}\n`;
}
