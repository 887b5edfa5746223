import { MemoryStore } from '../../lib/adapters/memory/memory-store';
import { noteItemExpiresAt } from '../../lib/core/ports/due-note-items';
import { describeStoreContract } from './store-contract';

describeStoreContract('in-memory', async () => {
  const store = new MemoryStore();
  return {
    store,
    async setRunningCount(task, running) {
      store.setRunningCount(task, running);
    },
    async expireRecords(now) {
      store.deleteExpiredRecords(now);
    },
    async putRawNoteItem(shard, bucket, name, entries) {
      store.putRawNoteItem(shard, bucket, name, entries, noteItemExpiresAt(bucket));
    },
    async teardown() {},
  };
});
