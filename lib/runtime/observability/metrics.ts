import { Metrics } from '@aws-lambda-powertools/metrics';
import type { Clock } from '../../core/clock';
import { discardLines, type LineSink, type Logger } from './logger';

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
  if (output.sink === discardLines) return;
  const emf = sinkMetricsFor(output);
  emf.begin(output, dimensions);
  for (const metric of metrics) {
    for (const value of metric.values) emf.addMetric(metric.name, metric.unit, value);
  }
  emf.publishStoredMetrics();
}

/**
 * One Powertools `Metrics` per sink and namespace, made once per process: making one reads the
 * environment and builds a console, which every invocation would otherwise pay for. A call fills and
 * publishes it synchronously, so calls never interleave on it.
 */
const sinkMetrics = new WeakMap<LineSink, Map<string, SinkMetrics>>();

function sinkMetricsFor(output: MetricsOutput): SinkMetrics {
  let byNamespace = sinkMetrics.get(output.sink);
  if (!byNamespace) {
    byNamespace = new Map();
    sinkMetrics.set(output.sink, byNamespace);
  }
  let emf = byNamespace.get(output.namespace);
  if (!emf) {
    emf = new SinkMetrics(output);
    byNamespace.set(output.namespace, emf);
  }
  return emf;
}

class SinkMetrics extends Metrics {
  /** The current call's output (its time stamp, and the logger Powertools' warnings go to). */
  private readonly current: { output: MetricsOutput };

  constructor(output: MetricsOutput) {
    const current = { output };
    super({
      namespace: output.namespace,
      logger: {
        debug: () => {},
        info: () => {},
        warn: (...content: unknown[]) => current.output.logger.warn(`metrics: ${content.join(' ')}`),
        error: (...content: unknown[]) => current.output.logger.error(`metrics: ${content.join(' ')}`),
      },
    });
    this.current = current;
  }

  /** Starts a call's metrics: its output and exactly its dimensions. */
  begin(output: MetricsOutput, dimensions: Record<string, string>): void {
    this.current.output = output;
    this.clearMetrics();
    // Powertools adds a `service` dimension by default, which would make these metrics other ones.
    this.clearDefaultDimensions();
    this.setDefaultDimensions(dimensions);
  }

  /** Writes the stored metrics to the sink instead of the process console (also when 100 values filled a document). */
  override publishStoredMetrics(): this {
    if (this.hasStoredMetrics() && !this.isDisabled()) {
      this.setTimestamp(this.current.output.timestamp);
      this.current.output.sink(JSON.stringify(this.serializeMetrics()));
    }
    this.clearMetrics();
    return this;
  }
}
