/**
 * The benchmarks' SQS emulator, in a process of its own (`startBenchSqs` forks it): it sends its endpoint,
 * and stops on any message or when its parent goes away.
 */
import { startSqsEmulator } from '../../lib/local/sqs-emulator';

const emulator = await startSqsEmulator();
const stop = async () => {
  await emulator.stop();
  process.disconnect?.();
};
process.once('message', () => void stop());
process.once('disconnect', () => void emulator.stop());
process.send?.({ endpoint: emulator.endpoint });
