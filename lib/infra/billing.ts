import { Token } from 'aws-cdk-lib';
import type { SundialBilling, SundialCapacityRange } from './props';

/** DynamoDB's default per-table throughput quota, in capacity units. */
const MAX_CAPACITY_UNITS = 40_000;
const DEFAULT_TARGET_UTILIZATION_PERCENT = 70;

/** The billing prop with its default filled in; problems are added to `problems`. */
export function resolveBilling(
  billing: SundialBilling | undefined,
  problems: string[],
): Required<SundialBilling> {
  if (billing === undefined || billing.mode === 'on-demand') return { mode: 'on-demand' };
  if (billing.mode !== 'provisioned') {
    problems.push(
      `billing.mode must be 'on-demand' or 'provisioned', got ${JSON.stringify((billing as { mode: unknown }).mode)}`,
    );
    return { mode: 'on-demand' };
  }
  checkRange('billing.readCapacity', billing.readCapacity, problems);
  checkRange('billing.writeCapacity', billing.writeCapacity, problems);
  const target = billing.targetUtilizationPercent ?? DEFAULT_TARGET_UTILIZATION_PERCENT;
  if (!Token.isUnresolved(target) && (!Number.isInteger(target) || target < 20 || target > 90)) {
    problems.push(`billing.targetUtilizationPercent must be an integer from 20 to 90, got ${target}`);
  }
  return { ...billing, targetUtilizationPercent: target };
}

function checkRange(name: string, range: SundialCapacityRange | undefined, problems: string[]): void {
  if (typeof range !== 'object' || range === null) {
    problems.push(`${name} is required in provisioned mode: { min, max } capacity units`);
    return;
  }
  const { min, max } = range;
  for (const [bound, value] of [
    ['min', min],
    ['max', max],
  ] as const) {
    if (Token.isUnresolved(value)) continue;
    if (!Number.isInteger(value) || value < 1 || value > MAX_CAPACITY_UNITS) {
      problems.push(`${name}.${bound} must be an integer from 1 to ${MAX_CAPACITY_UNITS}, got ${value}`);
    }
  }
  if (!Token.isUnresolved(min) && !Token.isUnresolved(max) && min > max) {
    problems.push(`${name}.min (${min}) must not exceed ${name}.max (${max})`);
  }
}
