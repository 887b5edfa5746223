import { type Command, InvalidArgumentError } from '@commander-js/extra-typings';
import type { EpochMs } from '../../core/clock';
import { ValidationError } from '../../core/errors';
import { isoInZone } from '../../core/instants';
import {
  anchorIntervals,
  canonicalCronExpression,
  isEventBridgeExpression,
  MaxIterationsReachedError,
  parseIsoInstant,
  parseTrigger,
  previewFireTimes,
  type TriggerSpec,
  triggerTimezone,
} from '../../core/triggers';
import { type CommandBuilder, UsageError } from '../command';
import { renderFireTimeTable } from '../format/fire-times';
import { examplesHelp, reflow } from '../help-text';
import { jsonValue, wholeNumberFrom } from '../option-values';

const DEFAULT_COUNT = 10;
const MAX_COUNT = 1_000;

const DESCRIPTION = `Shows the fire times at or after --from: in the trigger's time zone (with its UTC offset and
abbreviation) and in UTC. Nothing is stored; use it to check a schedule before adding it. An interval
without start_at starts now, as add_schedule stores it.`;

const EXAMPLES = [
  "sundial preview '30 2 * * *' --timezone America/New_York --from 2026-03-07T00:00:00Z --count 3",
  "sundial preview 'cron(0 10 ? * MON-FRI *)' --timezone Europe/Berlin",
  `sundial preview --trigger '{"type": "interval", "minutes": 90}' --json`,
  `sundial preview --trigger '{"type": "calendar_interval", "months": 1, "start_date": "2026-01-31", "hour": 9, "timezone": "Europe/Berlin"}'`,
];

interface PreviewRequest {
  trigger: TriggerSpec;
  /** How the trigger was given, for the table's title. */
  title: string;
  from: EpochMs;
  count: number;
}

function declarePreview(parent: Command) {
  return parent
    .command('preview')
    .usage("['<cron expression>' | 'cron(…)' | 'rate(…)' | 'at(…)' | --trigger '<trigger JSON>'] [options]")
    .summary('show the next fire times of a trigger or cron expression')
    .description(reflow(DESCRIPTION))
    .addHelpText('after', examplesHelp(EXAMPLES))
    .argument(
      '[expression...]',
      "a cron expression, quoted as one argument: '*/5 * * * *', or an EventBridge Scheduler one: 'cron(0 10 ? * MON-FRI *)', 'rate(5 minutes)', 'at(2026-05-01T09:30:00)'",
    )
    .option(
      '--trigger <json>',
      'a trigger: cron, interval, calendar_interval, date, and, or, eventbridge (docs/triggers.md)',
      jsonValue,
    )
    .option('--timezone <zone>', 'IANA time zone of the expression (default: UTC)')
    .option('--from <ISO>', 'first instant to consider, with Z or an offset (default: now)', instantValue)
    .option(
      '--count <n>',
      `how many fire times, 1-${MAX_COUNT}`,
      wholeNumberFrom(1, MAX_COUNT),
      DEFAULT_COUNT,
    )
    .option('--json', "print only a JSON array of ISO-8601 times in the trigger's time zone");
}

type PreviewOptions = ReturnType<ReturnType<typeof declarePreview>['opts']>;

/** `sundial preview`: fire times computed locally, no admin API. */
export const previewCommand: CommandBuilder = (parent, invocation) => {
  const command = declarePreview(parent);
  command.action(async (expression, options) => {
    const { io } = invocation;
    const now = io.clock.now();
    const request = previewRequest(expression, options, options.from ?? now);
    // An interval without start_at starts now, exactly as add_schedule would store it.
    request.trigger = anchorIntervals(request.trigger, now);
    let fires: EpochMs[];
    try {
      fires = previewFireTimes(request.trigger, request.from, request.count);
    } catch (error) {
      if (error instanceof MaxIterationsReachedError) throw new UsageError(`--trigger: ${error.message}`);
      throw error;
    }
    const zone = triggerTimezone(request.trigger);
    io.stdout.write(options.json ? jsonOutput(fires, zone) : tableOutput(fires, zone, request));
  });
};

function previewRequest(expression: string[], options: PreviewOptions, from: EpochMs): PreviewRequest {
  const { count } = options;
  if (options.trigger !== undefined) {
    if (expression.length > 0) throw new UsageError('give either a cron expression or --trigger, not both');
    if (options.timezone !== undefined) {
      throw new UsageError(
        '--timezone: only applies to a cron expression; put "timezone" in the --trigger JSON',
      );
    }
    return { trigger: parseTriggerOption(options.trigger), title: 'the trigger', from, count };
  }
  const [cron, ...extra] = expression;
  if (cron === undefined)
    throw new UsageError("give a cron expression ('*/5 * * * *') or --trigger '<JSON>'");
  if (extra.length > 0) {
    throw new UsageError(
      `quote the cron expression as one argument: sundial preview '${expression.join(' ')}'`,
    );
  }
  if (isEventBridgeExpression(cron)) {
    const trigger = parseExpressionShortcut('eventbridge', cron, options.timezone);
    return { trigger, title: `'${cron}'`, from, count };
  }
  const trigger = parseExpressionShortcut('cron', cron, options.timezone);
  const canonical = canonicalCronExpression(cron);
  const readAs = canonical === cron ? '' : ` (read as '${canonical}')`;
  return { trigger, title: `cron '${cron}'${readAs}`, from, count };
}

function instantValue(text: string): EpochMs {
  const parsed = parseIsoInstant(text);
  if (!parsed.ok) throw new InvalidArgumentError(parsed.problem);
  return parsed.value;
}

/** The trigger's fields are checked here, so each problem is reported with its path (not the whole JSON). */
function parseTriggerOption(input: unknown): TriggerSpec {
  try {
    return parseTrigger(input);
  } catch (error) {
    if (error instanceof ValidationError) throw new UsageError(`--trigger: ${error.message}`);
    throw error;
  }
}

/** A bare expression (cron, or EventBridge's); problems are reported against the argument the user typed. */
function parseExpressionShortcut(
  type: 'cron' | 'eventbridge',
  expression: string,
  timezone: string | undefined,
): TriggerSpec {
  try {
    return parseTrigger({ type, expression, ...(timezone === undefined ? {} : { timezone }) });
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    const problems = error.issues.map((issue) =>
      issue.path === 'trigger.timezone'
        ? `--timezone: ${issue.message}`
        : `${type === 'cron' ? 'cron expression' : 'expression'}: ${issue.message}`,
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
