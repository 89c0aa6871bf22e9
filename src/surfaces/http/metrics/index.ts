export { PlaneMetrics } from './plane-metrics.js'
export { startMetricsServer, type MetricsServer } from './start-metrics-server.js'
