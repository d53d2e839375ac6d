#pragma once
// Link utilisation drawn on the system's topology: IPUs on their IPU-Link ladder (one
// column pair per ILD, one rung per two IPUs) and every used IPU-Link direction as a segment
// coloured by its utilisation; plus the busiest links of every kind.
#include <vector>

#include "sim/json.hpp"
#include "tools/html/html_page.hpp"

namespace ipusim::html {

/// One used link from report.stats: its path, utilisation and bytes.
struct LinkUse {
  std::string name;  ///< e.g. "ild0.m0.ipu0->ipu1_partner"
  double utilisation = 0;
  double bytes = 0;
  int ild = -1, from_ipu = -1, to_ipu = -1;  ///< IPU-Links only (global index in the ILD)
};

/// Every leaf object of report.stats.system with a "utilisation", in document order.
std::vector<LinkUse> collect_links(const Json& stats_system);

/// The topology chart and the busiest-links chart (empty when the report has no links).
std::vector<Chart> topology_charts(const Json& stats_system);

}  // namespace ipusim::html
