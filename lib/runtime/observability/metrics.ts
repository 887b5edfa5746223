import { Metrics } from '@aws-lambda-powertools/metrics';
import type { Clock } from '../../core/clock';
import type { LineSink, Logger } from './logger';

export type MetricUnit = 'Count' | 'Milliseconds';

export interface Metric {
  name: string;
  unit: MetricUnit;
  /** One value, or many (a distribution such as fire lags). */
  values: readonly number[];
}

/** Where metrics go: the namespace, the time they are stamped with, the sink, and a logger for Powertools' warnings. */
export interface MetricsOutput {
  namespace: string;
  timestamp: number;
  sink: LineSink;
  logger: Logger;
}

/** The metrics output of the runtime's dependencies. */
export function metricsOutputOf(deps: {
  config: { metricsNamespace: string };
  clock: Clock;
  metricsSink: LineSink;
  logger: Logger;
}): MetricsOutput {
  return {
    namespace: deps.config.metricsNamespace,
    timestamp: deps.clock.now(),
    sink: deps.metricsSink,
    logger: deps.logger,
  };
}

/**
 * Writes metrics as CloudWatch Embedded Metric Format documents (one JSON line each) with Powertools
 * Metrics; Lambda's log stream turns them into metrics without API calls. Every metric gets exactly
 * `dimensions` (lib/infra/metrics.ts reads them by these). Metrics without values are left out; a
 * distribution of more than 100 values is spread over several documents, as CloudWatch requires.
 */
export function writeMetrics(
  output: MetricsOutput,
  dimensions: Record<string, string>,
  metrics: readonly Metric[],
): void {
  const emf = new SinkMetrics(output, dimensions);
  for (const metric of metrics) {
    for (const value of metric.values) emf.addMetric(metric.name, metric.unit, value);
  }
  emf.publishStoredMetrics();
}

class SinkMetrics extends Metrics {
  constructor(
    private readonly output: MetricsOutput,
    dimensions: Record<string, string>,
  ) {
    super({
      namespace: output.namespace,
      logger: {
        debug: () => {},
        info: () => {},
        warn: (...content: unknown[]) => output.logger.warn(`metrics: ${content.join(' ')}`),
        error: (...content: unknown[]) => output.logger.error(`metrics: ${content.join(' ')}`),
      },
    });
    // Powertools adds a `service` dimension by default, which would make these metrics other ones.
    this.clearDefaultDimensions();
    this.setDefaultDimensions(dimensions);
  }

  /** Writes the stored metrics to the sink instead of the process console (also when 100 values filled a document). */
  override publishStoredMetrics(): this {
    if (this.hasStoredMetrics() && !this.isDisabled()) {
      this.setTimestamp(this.output.timestamp);
      this.output.sink(JSON.stringify(this.serializeMetrics()));
    }
    this.clearMetrics();
    return this;
  }
}
