import { describe, expect, it } from 'vitest';
import { ExecutionRecorder } from '../../bench/soak/recorder';

type Stored = { status: string; result: { attempt: number } | null };

/** `job@1` completed attempt 1 in an invocation that died before its result was acknowledged. */
function completedThenTakenBack(): ExecutionRecorder {
  const recorder = new ExecutionRecorder();
  recorder.start('free', { jobId: 'job@1', attempt: 1, at: 0, rev: 0 });
  recorder.complete('job@1', 1);
  recorder.discard(['job@1']);
  return recorder;
}

const storedAs = (stored: Stored | undefined) => async () => stored;

describe('ExecutionRecorder.restoreWrittenResults: a result written though its writer saw the write fail', () => {
  it('counts the execution when the store holds its success for the attempt that completed', async () => {
    const recorder = completedThenTakenBack();

    await recorder.restoreWrittenResults(storedAs({ status: 'success', result: { attempt: 1 } }));

    expect(recorder.executions.get('job@1')).toBe(1);
    expect(recorder.resultsWrittenUnseen).toBe(1);
    expect(recorder.startedAfterCompletion.size).toBe(0);
  });

  it.each([
    ['a retry on its way', { status: 'retrying', result: null }],
    ['the success of another attempt', { status: 'success', result: { attempt: 2 } }],
    ['no job', undefined],
  ])('leaves it taken back when the store holds %s', async (_, stored) => {
    const recorder = completedThenTakenBack();

    await recorder.restoreWrittenResults(storedAs(stored));

    expect(recorder.executions.has('job@1')).toBe(false);
    expect(recorder.resultsWrittenUnseen).toBe(0);
  });

  it('counts it once when the late answer of that write comes after the store was read', async () => {
    const recorder = completedThenTakenBack();

    await recorder.restoreWrittenResults(storedAs({ status: 'success', result: { attempt: 1 } }));
    recorder.restore('job@1');

    expect(recorder.executions.get('job@1')).toBe(1);
  });

  it('flags a double execution when the job started again after the result it wrote', async () => {
    const recorder = completedThenTakenBack();
    recorder.start('free', { jobId: 'job@1', attempt: 2, at: 5, rev: 0 });

    await recorder.restoreWrittenResults(storedAs({ status: 'success', result: { attempt: 1 } }));

    expect([...recorder.startedAfterCompletion]).toEqual(['job@1']);
  });
});
