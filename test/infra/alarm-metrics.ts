/** The metrics an alarm reads: its own (a plain alarm), or each metric of its expression (metric math). */
export type AlarmMetric = { Namespace?: string; MetricName?: string; Dimensions?: unknown };

export const metricsOf = (alarm: Record<string, any>): AlarmMetric[] =>
  alarm.Metrics ? (alarm.Metrics as { MetricStat?: { Metric: AlarmMetric } }[]).flatMap((m) => (m.MetricStat ? [m.MetricStat.Metric] : [])) : [alarm as AlarmMetric];

/** Whether the alarm reads this metric of the resource with this logical id. */
export const readsMetric = (alarm: Record<string, any>, metricName: string, logicalId?: string): boolean =>
  metricsOf(alarm).some((m) => m.MetricName === metricName && (logicalId === undefined || JSON.stringify(m.Dimensions).includes(`"${logicalId}"`)));
