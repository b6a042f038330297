import Testing
@testable import TesseraHTTP

/// The Prometheus text writer and the latency histogram.
@Suite struct MetricsFormatTests {
    @Test func labelValuesAndHelpAreEscaped() {
        var out = PrometheusText()
        out.family("x_total", type: "counter", help: "a \\ b\nc")
        out.sample("x_total", ["plugin": "a\"b\\c\nd"], 2)
        out.sample("x_seconds", [], 0.25)
        out.sample("x_le", ["le": "+Inf"], .infinity)
        #expect(out.text == """
            # HELP x_total a \\\\ b\\nc
            # TYPE x_total counter
            x_total{plugin="a\\"b\\\\c\\nd"} 2
            x_seconds 0.25
            x_le{le="+Inf"} +Inf

            """)
    }

    @Test func histogramBucketsAreCumulativeWithInfEqualToTheCount() {
        var histogram = LatencyHistogram()
        for seconds in [0.0001, 0.0007, 0.003, 0.003, 42] { histogram.observe(seconds) }
        let buckets = histogram.cumulativeBuckets
        #expect(buckets.first! == ("0.0005", 1))
        #expect(buckets[1] == ("0.001", 2))
        #expect(buckets[3] == ("0.005", 4))
        #expect(buckets[buckets.count - 2] == ("10", 4))
        #expect(buckets.last! == ("+Inf", 5))
        #expect(histogram.count == 5)
        #expect(abs(histogram.sum - 42.0068) < 1e-9)
    }
}
