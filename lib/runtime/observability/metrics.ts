import { type LineSink, stdoutSink } from './logger';

export type MetricUnit = 'Count' | 'Milliseconds';

export interface Metric {
  name: string;
  unit: MetricUnit;
  /** One value, or many (a distribution such as fire lags). */
  values: readonly number[];
}

/** CloudWatch accepts at most 100 values per metric in one EMF document. */
const MAX_VALUES_PER_DOCUMENT = 100;

/**
 * Renders metrics as CloudWatch Embedded Metric Format documents (one JSON line each), which Lambda's
 * log stream turns into metrics without API calls. Distributions longer than 100 values are split
 * over several documents. Format: https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/CloudWatch_Embedded_Metric_Format_Specification.html
 */
export function emfDocuments(
  namespace: string,
  dimensions: Record<string, string>,
  metrics: readonly Metric[],
  timestamp: number,
): string[] {
  const present = metrics.filter((metric) => metric.values.length > 0);
  const rounds = Math.max(
    0,
    ...present.map((metric) => Math.ceil(metric.values.length / MAX_VALUES_PER_DOCUMENT)),
  );
  const documents: string[] = [];
  for (let round = 0; round < rounds; round++) {
    const slices = present
      .map((metric) => ({
        metric,
        values: metric.values.slice(round * MAX_VALUES_PER_DOCUMENT, (round + 1) * MAX_VALUES_PER_DOCUMENT),
      }))
      .filter((slice) => slice.values.length > 0);
    const document: Record<string, unknown> = {
      _aws: {
        Timestamp: timestamp,
        CloudWatchMetrics: [
          {
            Namespace: namespace,
            Dimensions: [Object.keys(dimensions)],
            Metrics: slices.map(({ metric }) => ({ Name: metric.name, Unit: metric.unit })),
          },
        ],
      },
      ...dimensions,
    };
    for (const { metric, values } of slices) document[metric.name] = values.length === 1 ? values[0] : values;
    documents.push(JSON.stringify(document));
  }
  return documents;
}

/** Writes EMF documents to stdout (or the given sink). */
export function writeMetrics(
  namespace: string,
  dimensions: Record<string, string>,
  metrics: readonly Metric[],
  timestamp: number,
  sink: LineSink = stdoutSink,
): void {
  for (const document of emfDocuments(namespace, dimensions, metrics, timestamp)) sink(document);
}
