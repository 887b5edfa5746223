import { describe, it } from 'vitest';
import { MemoryStore } from '../../../lib/adapters/memory/memory-store';
import { overlappingMissedScenario, overlappingOnTimeScenario, STUCK_AT } from './overlapping-ticks';

describe('a dispatcher stuck past its shard lease, overlapped by the next tick (in memory)', () => {
  it.each(STUCK_AT)(
    'both read one note on time, stuck %s: every fire sent, each runs once, one chain after',
    async (stuckAt) => {
      await overlappingOnTimeScenario(new MemoryStore(), stuckAt);
    },
  );

  it.each(STUCK_AT)(
    'both read one note late, coalesced to different latest fires, stuck %s: they run what the two in sequence run',
    async (stuckAt) => {
      await overlappingMissedScenario(new MemoryStore(), stuckAt);
    },
  );
});
