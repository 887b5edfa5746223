/** Sums the EMF metrics the tick and worker write (counts only), to report what the runtime did. */
export class MetricTotals {
  readonly totals = new Map<string, number>();

  add(line: string): void {
    let document: Record<string, unknown>;
    try {
      document = JSON.parse(line) as Record<string, unknown>;
    } catch {
      return;
    }
    const metrics = (
      document._aws as { CloudWatchMetrics?: { Metrics?: { Name: string; Unit: string }[] }[] }
    )?.CloudWatchMetrics?.[0]?.Metrics;
    for (const metric of metrics ?? []) {
      const value = document[metric.Name];
      if (metric.Unit !== 'Count' || typeof value !== 'number' || metric.Name === 'RunningJobs') continue;
      this.totals.set(metric.Name, (this.totals.get(metric.Name) ?? 0) + value);
    }
  }

  get(name: string): number {
    return this.totals.get(name) ?? 0;
  }
}
