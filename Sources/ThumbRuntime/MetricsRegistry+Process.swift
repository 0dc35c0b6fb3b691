import Prometheus

extension MetricsRegistry {
    /// The process_* metrics every Prometheus client library exports, under their usual names
    /// (never namespaced), set from /proc when scraped.
    struct ProcessGauges: Sendable {
        private let cpuSeconds: Prometheus.Counter
        private let gauges: [(Gauge, @Sendable (ProcessStats) -> Double)]

        init(registry: PrometheusCollectorRegistry) {
            func name(_ metric: String, _ help: String) -> MetricNameDescriptor {
                MetricNameDescriptor(metricName: metric, unitName: "", helpText: help)
            }
            cpuSeconds = registry.makeCounter(descriptor: name("process_cpu_seconds_total",
                                                               "Total user and system CPU time spent in seconds."))
            let figures: [(String, String, @Sendable (ProcessStats) -> Double)] = [
                ("process_resident_memory_bytes", "Resident memory size in bytes.", { $0.residentBytes }),
                ("process_virtual_memory_bytes", "Virtual memory size in bytes.", { $0.virtualBytes }),
                ("process_open_fds", "Number of open file descriptors.", { $0.openDescriptors }),
                ("process_max_fds", "Maximum number of open file descriptors.", { $0.maxDescriptors }),
                ("process_start_time_seconds", "Start time of the process since unix epoch in seconds.", { $0.startTimeSeconds }),
            ]
            gauges = figures.map { metric, help, value in (registry.makeGauge(descriptor: name(metric, help)), value) }
        }

        /// A scrape that cannot read /proc goes without these figures, and says nothing wrong.
        func update() {
            let stats: ProcessStats
            do throws(SystemFailure) {
                stats = try ProcessStats.read()
            } catch {
                return
            }
            cpuSeconds.reset()
            cpuSeconds.increment(by: stats.cpuSeconds)
            for (gauge, value) in gauges { gauge.set(to: value(stats)) }
        }
    }
}
