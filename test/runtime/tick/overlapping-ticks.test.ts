import { describe, it } from 'vitest';
import { MemoryStore } from '../../../lib/adapters/memory/memory-store';
import { overlappingMissedTicksScenario, overlappingTicksScenario } from './overlapping-ticks';

describe('overlapping lease-less ticks (in memory)', () => {
  it('both read and send, one moves the schedule on, every fire is sent and later runs once', async () => {
    await overlappingTicksScenario(new MemoryStore());
  });

  it.each(['A', 'B'] as const)(
    'over missed fires, coalesced to different latest fires, run what the ticks in sequence run (%s moves the schedule on)',
    async (first) => {
      await overlappingMissedTicksScenario(new MemoryStore(), first);
    },
  );
});
