import CoreMetrics

extension GlobalConfiguration {
    /// The swift-metrics factory TIP reports to. Default nil: `MetricsSystem.factory`, the backend the application
    /// bootstrapped; while that is swift-metrics' no-op factory, nothing is made or recorded.
    ///
    /// ```swift
    /// MetricsSystem.bootstrap(PrometheusMetricsFactory())   // TIP's metrics appear with the application's
    /// ```
    ///
    /// | label | kind | dimensions |
    /// |---|---|---|
    /// | `tip_fetches_total` | counter | `pipeline`; `source` (below); `result`: `success`, `failure` or `cancelled` |
    /// | `tip_downloaded_bytes_total` | counter | (bytes received from the network) |
    /// | `tip_cache_lookups_total` | counter | `cache`: `rendered`, `memory` or `disk`; `result`: `hit` or `miss` |
    /// | `tip_cache_evictions_total` | counter | `cache` (entries evicted to stay within the budgets) |
    /// | `tip_download_duration_seconds` | timer | `result`: `success` or `failure` |
    /// | `tip_decode_duration_seconds` | timer | `type`: the image type |
    ///
    /// A fetch's `source` is `memory`, `disk`, `additional`, `network`, `network_resumed` or `none`.
    public var metricsFactory: (any MetricsFactory)? {
        get { metrics.factoryOverride }
        set { metrics.factoryOverride = newValue }
    }
}
