import type { EpochMs } from '../clock';
import { SundialError } from '../errors';

/**
 * An `and` trigger advanced its children `maxIterations` times without finding instants where all
 * of them fire within `threshold_seconds` of each other. Its children may never coincide.
 */
export class MaxIterationsReachedError extends SundialError {
  constructor(
    readonly maxIterations: number,
    readonly fromInclusive: EpochMs,
  ) {
    super(
      'trigger_max_iterations',
      `the 'and' trigger found no instant where all its triggers fire within threshold_seconds of each other after ${maxIterations} iterations (searching from ${new Date(fromInclusive).toISOString()}); its triggers may never coincide: check them, or raise threshold_seconds or max_iterations`,
    );
  }
}
