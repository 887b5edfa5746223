import { describe, it } from 'vitest';
import { MemoryStore } from '../../../lib/adapters/memory/memory-store';
import { overlappingTicksScenario } from './overlapping-ticks';

describe('overlapping lease-less ticks (in memory)', () => {
  it('both read and send, one moves the schedule on, every fire is sent and later runs once', async () => {
    await overlappingTicksScenario(new MemoryStore());
  });
});
