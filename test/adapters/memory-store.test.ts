import { MemoryStore } from '../../lib/adapters/memory/memory-store';
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
    async teardown() {},
  };
});
