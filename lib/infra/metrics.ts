import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';

/**
 * The runtime's CloudWatch EMF metrics (written to stdout by the tick and the worker, turned into
 * metrics by CloudWatch Logs). Names and dimensions must match lib/runtime/handlers/{tick,worker}.ts.
 */
export const EMF = {
  /** `SUNDIAL_METRICS_NAMESPACE`'s default. */
  defaultNamespace: 'Sundial',
  tick: {
    dimensions: { Service: 'tick' },
    names: [
      'SchedulesProcessed',
      'JobsEnqueued',
      'SendFailures',
      'FireLag',
      'TickDuration',
      'JobsReaped',
      'JobsWoken',
      'TickErrors',
    ],
  },
  /** The dispatcher Lambda (ADR 0006): lib/runtime/handlers/dispatcher.ts. */
  dispatcher: {
    dimensions: { Service: 'dispatcher' },
    names: [
      'SchedulesProcessed',
      'JobsEnqueued',
      'SendFailures',
      'FireLag',
      'DispatcherDuration',
      'DispatcherErrors',
    ],
  },
  worker: {
    dimensions: { Service: 'worker' },
    names: [
      'JobsSucceeded',
      'JobsFailed',
      'JobsRetried',
      'JobsMissed',
      'JobsDeferred',
      'JobsWaiting',
      'UnreadableMessages',
      'StartLag',
    ],
  },
  /** Jobs running per task: dimensions `Service` and `Task` (one series per task). */
  runningJobs: { name: 'RunningJobs', dimensionKeys: ['Service', 'Task'] },
} as const;

export type TickMetric = (typeof EMF.tick.names)[number];
export type WorkerMetric = (typeof EMF.worker.names)[number];
export type DispatcherMetric = (typeof EMF.dispatcher.names)[number];

/** Builds `cloudwatch.Metric`s for the runtime's EMF metrics of one deployment. */
export class SundialMetrics {
  constructor(readonly namespace: string) {}

  tick(name: TickMetric, statistic: string, period = Duration.minutes(1)): cloudwatch.Metric {
    return new cloudwatch.Metric({
      namespace: this.namespace,
      metricName: name,
      dimensionsMap: { ...EMF.tick.dimensions },
      statistic,
      period,
    });
  }

  dispatcher(name: DispatcherMetric, statistic: string, period = Duration.minutes(1)): cloudwatch.Metric {
    return new cloudwatch.Metric({
      namespace: this.namespace,
      metricName: name,
      dimensionsMap: { ...EMF.dispatcher.dimensions },
      statistic,
      period,
    });
  }

  worker(name: WorkerMetric, statistic: string, period = Duration.minutes(1)): cloudwatch.Metric {
    return new cloudwatch.Metric({
      namespace: this.namespace,
      metricName: name,
      dimensionsMap: { ...EMF.worker.dimensions },
      statistic,
      period,
    });
  }

  /** One series per task, found by a SEARCH expression (tasks come and go without a deploy). */
  runningJobsPerTask(period = Duration.minutes(1)): cloudwatch.MathExpression {
    const schema = [this.namespace, ...EMF.runningJobs.dimensionKeys].map((part) => `"${part}"`).join(',');
    return new cloudwatch.MathExpression({
      expression: `SEARCH('{${schema}} MetricName="${EMF.runningJobs.name}"', 'Maximum', ${period.toSeconds()})`,
      label: '',
      period,
    });
  }
}
