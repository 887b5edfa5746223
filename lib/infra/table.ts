import { RemovalPolicy } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type { Construct } from 'constructs';
import {
  GLOBAL_SECONDARY_INDEXES,
  type IndexProjection,
  type KeyAttribute,
  TABLE_KEYS,
  TTL_ATTRIBUTE,
} from '../adapters/dynamodb/table-design';
import type { SundialBilling, SundialProvisionedBilling } from './props';

/**
 * The single table of schedules, jobs (with results) and task counters. Keys, sparse indexes and the
 * TTL attribute come from the adapters' table design, the only source of those names.
 *
 * - On-demand billing by default: load follows schedules, which come in bursts (top of the hour), not
 *   a baseline. Provisioned capacity with target-tracking auto scaling (table and every index, between
 *   the same bounds) is the option for a steady load.
 * - Point-in-time recovery: schedules are user data that only the admin API recreates.
 * - Encryption with the AWS-managed key (`aws/dynamodb`): use of the key is visible in CloudTrail and
 *   costs no monthly key fee; a customer-managed key would add a key policy to run and grants for each
 *   Lambda, for a control (revoking the service's access) this table does not need.
 * - Deletion protection whenever the table is retained, so a stray `cdk destroy` or replacement
 *   cannot drop it.
 */
export function createTable(
  scope: Construct,
  removalPolicy: RemovalPolicy,
  billing: Required<SundialBilling> = { mode: 'on-demand' },
): dynamodb.Table {
  const provisioned = billing.mode === 'provisioned' ? billing : undefined;
  const capacity = provisioned
    ? { readCapacity: provisioned.readCapacity.min, writeCapacity: provisioned.writeCapacity.min }
    : {};
  const table = new dynamodb.Table(scope, 'Table', {
    partitionKey: attribute(TABLE_KEYS.partitionKey),
    sortKey: attribute(TABLE_KEYS.sortKey),
    billingMode: provisioned ? dynamodb.BillingMode.PROVISIONED : dynamodb.BillingMode.PAY_PER_REQUEST,
    ...capacity,
    timeToLiveAttribute: TTL_ATTRIBUTE,
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
    encryption: dynamodb.TableEncryption.AWS_MANAGED,
    deletionProtection: removalPolicy !== RemovalPolicy.DESTROY,
    removalPolicy,
  });
  for (const index of GLOBAL_SECONDARY_INDEXES) {
    table.addGlobalSecondaryIndex({
      indexName: index.indexName,
      partitionKey: attribute(index.partitionKey),
      ...(index.sortKey ? { sortKey: attribute(index.sortKey) } : {}),
      ...projection(index.projection),
      ...capacity,
    });
  }
  if (provisioned) autoScale(table, provisioned);
  return table;
}

/** Target tracking on reads and writes of the table and of each index, between the configured bounds. */
function autoScale(table: dynamodb.Table, billing: Required<SundialProvisionedBilling>): void {
  const target = { targetUtilizationPercent: billing.targetUtilizationPercent };
  const reads = { minCapacity: billing.readCapacity.min, maxCapacity: billing.readCapacity.max };
  const writes = { minCapacity: billing.writeCapacity.min, maxCapacity: billing.writeCapacity.max };
  table.autoScaleReadCapacity(reads).scaleOnUtilization(target);
  table.autoScaleWriteCapacity(writes).scaleOnUtilization(target);
  for (const index of GLOBAL_SECONDARY_INDEXES) {
    table.autoScaleGlobalSecondaryIndexReadCapacity(index.indexName, reads).scaleOnUtilization(target);
    table.autoScaleGlobalSecondaryIndexWriteCapacity(index.indexName, writes).scaleOnUtilization(target);
  }
}

function attribute(key: KeyAttribute): dynamodb.Attribute {
  return {
    name: key.name,
    type: key.type === 'S' ? dynamodb.AttributeType.STRING : dynamodb.AttributeType.NUMBER,
  };
}

function projection(
  design: IndexProjection,
): Pick<dynamodb.GlobalSecondaryIndexProps, 'projectionType' | 'nonKeyAttributes'> {
  if (design === 'KEYS_ONLY') return { projectionType: dynamodb.ProjectionType.KEYS_ONLY };
  if (design === 'ALL') return { projectionType: dynamodb.ProjectionType.ALL };
  return { projectionType: dynamodb.ProjectionType.INCLUDE, nonKeyAttributes: [...design.include] };
}
