import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { WireSchedule } from '../../../core/admin-contract';
import { APP_DECLARATIONS } from '../../../core/code-schedules/declaration';
import { type DesiredSchedule, revisionOf } from '../../../core/code-schedules/desired';
import { planSchedules, removalGuardProblem } from '../../../core/code-schedules/plan';
import { isRecord } from '../../../core/json';
import { type AdminClient, callAdmin } from '../../admin/client';
import { adminCommand } from '../../admin-command';
import { EXIT_OPERATION_FAILED, UsageError } from '../../command';
import { type PlanReport, renderPlan } from '../../format/plan';
import { wholeNumberFrom } from '../../option-values';

/** The script that checks the declarations of a functions folder (named, never imported: it runs task code). */
const DECLARATIONS_SCRIPT = resolve(
  import.meta.dirname,
  '../../../runtime/code-schedules/declarations-script.ts',
);
const PAGE_SIZE = 500;
/** The construct's default. */
const DEFAULT_MAX_REMOVAL_PERCENT = 50;

export const planSchedulesCommand = adminCommand({
  name: 'plan',
  summary: 'show what a deploy would change in the schedules declared in code',
  description: `Compares the schedules declared in code with the stored ones (the local platform's, or the
deployed stack's) and lists, field by field, what a deploy would create, update and remove, with the next
fire times before and after each change in the schedule's own time zone (a time zone or DST shift shows),
the drift a deploy keeps (a paused schedule, a schedule edited outside Sundial) and whether the deploy would
be refused (an id the admin API manages, too many removals). The declarations come from the task modules of
--functions, or from a synthesized template (--template, after cdk synth), which also holds the CDK app's own.
Nothing is written.`,
  examples: [
    'sundial schedules plan',
    'sundial schedules plan --json',
    'npx cdk synth -q && sundial schedules plan --template cdk.out/Sundial.template.json --stack Sundial',
  ],
  declare: (command) =>
    command
      .option('--functions <dir>', 'the task modules whose schedules to compare (default: functions)')
      .option('--template <file>', 'a synthesized template: its Custom::SundialSchedules resource')
      .option(
        '--max-removal-percent <n>',
        `the removal guard to check against (default: the template's, else ${DEFAULT_MAX_REMOVAL_PERCENT})`,
        wholeNumberFrom(0, 100),
      ),
  async execute({ options, io, admin, print }) {
    if (options.functions !== undefined && options.template !== undefined) {
      throw new UsageError('give --functions or --template, not both');
    }
    const cwd = io.cwd ?? process.cwd();
    const source = options.template
      ? await fromTemplate(options.template, cwd)
      : await fromFunctions(options.functions ?? 'functions', cwd);
    if ('problems' in source) {
      io.stderr.write(
        `error: the schedules declared in code are not valid:\n  ${source.problems.join('\n  ')}\n`,
      );
      return EXIT_OPERATION_FAILED;
    }
    const client = await admin();
    const stored = await allSchedules(client);
    // A plan from functions/ cannot see the CDK app's declarations: leave those out rather than remove them.
    const notCompared = source.appDeclarationsKnown
      ? []
      : stored.filter((schedule) => schedule.managed_by?.declared_in === APP_DECLARATIONS).map((s) => s.id);
    const compared = stored.filter((schedule) => !notCompared.includes(schedule.id));
    const plan = planSchedules(source.schedules, compared, io.clock.now());
    const maxRemovalPercent =
      options.maxRemovalPercent ?? source.maxRemovalPercent ?? DEFAULT_MAX_REMOVAL_PERCENT;
    const refused =
      plan.clashes.length > 0
        ? `declared in code but managed through the admin API: ${plan.clashes.join(', ')}`
        : (removalGuardProblem(plan, { maxRemovalPercent }, revisionOf(source.schedules)) ?? null);
    const report: PlanReport = {
      source: source.name,
      target: client.description,
      plan,
      refused,
      notCompared,
    };
    print(report, () => renderPlan(report));
    return undefined;
  },
});

interface Declarations {
  name: string;
  schedules: DesiredSchedule[];
  /** Whether the CDK app's own declarations are among them. */
  appDeclarationsKnown: boolean;
  maxRemovalPercent?: number;
}

/** The declarations of a functions folder, checked by the runtime in a child process (task code runs there). */
function fromFunctions(dir: string, cwd: string): Promise<Declarations | { problems: string[] }> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', DECLARATIONS_SCRIPT, dir],
      {
        cwd,
        encoding: 'utf8',
        timeout: 60_000,
        maxBuffer: 16 * 1024 * 1024,
        env: { ...process.env, SUNDIAL_TASK_INSPECTION: '1' },
      },
      (error, stdout, stderr) => {
        const last = stdout.trim().split('\n').pop() ?? '';
        let answer: { schedules?: DesiredSchedule[]; problems?: string[] } = {};
        try {
          answer = JSON.parse(last) as typeof answer;
        } catch {
          answer = {
            problems: [`could not read the task modules of ${dir}: ${stderr.trim() || String(error)}`],
          };
        }
        if (answer.problems) done({ problems: answer.problems });
        else done({ name: `${dir}/`, schedules: answer.schedules ?? [], appDeclarationsKnown: false });
      },
    ).stdin?.end();
  });
}

/** The declarations a synthesized template deploys: the properties of its `Custom::SundialSchedules`. */
async function fromTemplate(file: string, cwd: string): Promise<Declarations> {
  let template: unknown;
  try {
    template = JSON.parse(await readFile(resolve(cwd, file), 'utf8'));
  } catch (error) {
    throw new UsageError(`--template ${file}: cannot read it as JSON: ${(error as Error).message}`);
  }
  const resources =
    isRecord(template) && isRecord(template.Resources) ? Object.values(template.Resources) : [];
  const resource = resources.find((entry) => isRecord(entry) && entry.Type === 'Custom::SundialSchedules');
  const properties = isRecord(resource) && isRecord(resource.Properties) ? resource.Properties : undefined;
  if (!properties || typeof properties.Schedules !== 'string') {
    throw new UsageError(
      `--template ${file}: has no Custom::SundialSchedules resource; is it a Sundial stack?`,
    );
  }
  return {
    name: file,
    schedules: JSON.parse(properties.Schedules) as DesiredSchedule[],
    appDeclarationsKnown: true,
    maxRemovalPercent: Number(properties.MaxRemovalPercent ?? DEFAULT_MAX_REMOVAL_PERCENT),
  };
}

async function allSchedules(client: AdminClient): Promise<WireSchedule[]> {
  const schedules: WireSchedule[] = [];
  let cursor: string | null = null;
  do {
    const page: { schedules: WireSchedule[]; cursor: string | null } = await callAdmin(
      client,
      'list_schedules',
      {
        limit: PAGE_SIZE,
        ...(cursor !== null && { cursor }),
      },
    );
    schedules.push(...page.schedules);
    cursor = page.cursor;
  } while (cursor !== null);
  return schedules;
}
