#pragma once
// The page of a collective size scan (`ipusim collective --min-bytes A --max-bytes B --html`):
// bus and algorithm bandwidth against the message size, time against size, and the table.
#include "sim/json.hpp"
#include "tools/html/html_page.hpp"

namespace ipusim::html {

/// The page of a scan from its result list (each element one `collective --json` result
/// with `size_bytes`, `time_ns`, `algorithm_bandwidth_GBps`, `bus_bandwidth_GBps`, `op`,
/// `algorithm`, `dtype`; missing numbers are left out of the charts).
Page collective_scan_page(const Json& results);

}  // namespace ipusim::html
