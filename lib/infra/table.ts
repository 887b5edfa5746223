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

/**
 * The single table of schedules, jobs (with results) and task counters. Keys, sparse indexes and the
 * TTL attribute come from the adapters' table design, the only source of those names.
 *
 * - On-demand billing: load follows schedules, which come in bursts (top of the hour), not a baseline.
 * - Point-in-time recovery: schedules are user data that only the admin API recreates.
 * - Encryption with the AWS-managed key (`aws/dynamodb`): use of the key is visible in CloudTrail and
 *   costs no monthly key fee; a customer-managed key would add a key policy to run and grants for each
 *   Lambda, for a control (revoking the service's access) this table does not need.
 * - Deletion protection whenever the table is retained, so a stray `cdk destroy` or replacement
 *   cannot drop it.
 */
export function createTable(scope: Construct, removalPolicy: RemovalPolicy): dynamodb.Table {
  const table = new dynamodb.Table(scope, 'Table', {
    partitionKey: attribute(TABLE_KEYS.partitionKey),
    sortKey: attribute(TABLE_KEYS.sortKey),
    billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
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
    });
  }
  return table;
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
