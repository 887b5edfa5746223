import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateTableCommand, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, inject, it } from 'vitest';
import { startDynamoDbLocal } from '../../lib/local/dynamodb-local';
import { localDynamoDbClient } from '../support/dynamodb';
import { listeningSockets, processTree } from '../support/listening-sockets';
import { running } from '../support/started-platform';

const portOf = (url: string) => Number(new URL(url).port);

/** The java processes this test process started. */
function javaChildren(): number[] {
  return processTree(process.pid).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'java';
    } catch {
      return false;
    }
  });
}

describe('DynamoDB Local as Sundial starts it', () => {
  it('outlives a Ctrl-C to its process group when asked to, and still stops when told', async () => {
    // Prepare: as the local platform starts it (a terminal's Ctrl-C reaches every process of the group)
    const before = new Set(javaChildren());
    const dynamo = await startDynamoDbLocal({ ignoreCtrlC: true });
    const java = javaChildren().find((pid) => !before.has(pid)) as number;

    // Act
    process.kill(java, 'SIGINT');
    await new Promise((done) => setTimeout(done, 2_000));
    const client = localDynamoDbClient(dynamo.endpoint);
    const tables = await client.send(new ListTablesCommand({}));
    client.destroy();
    await dynamo.stop();

    // Assess
    expect(tables.TableNames).toBeDefined();
    expect(running(java)).toBe(false);
  });

  it('keeps its tables in a data folder across restarts (arguments reach it through the launcher)', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'sundial data & <more> '));
    try {
      const first = await startDynamoDbLocal({ dataDir });
      const client = localDynamoDbClient(first.endpoint);
      await client.send(
        new CreateTableCommand({
          TableName: 'kept',
          AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
          KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
          BillingMode: 'PAY_PER_REQUEST',
        }),
      );
      client.destroy();
      await first.stop();

      const second = await startDynamoDbLocal({ dataDir });
      const again = localDynamoDbClient(second.endpoint);
      const tables = await again.send(new ListTablesCommand({}));
      again.destroy();
      await second.stop();

      expect(tables.TableNames).toContain('kept');
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it("the test harness's instance listens on loopback only", () => {
    const port = portOf(inject('dynamodbEndpoint'));

    const sockets = listeningSockets(1).filter((socket) => socket.port === port);

    expect(sockets.length).toBeGreaterThan(0);
    expect(sockets.filter((socket) => !socket.loopback)).toEqual([]);
  });
});
