#include "tools/html/topology_chart.hpp"

#include <algorithm>
#include <cstdio>
#include <map>

namespace ipusim::html {

namespace {

void walk(const Json& node, const std::string& path, int ild, std::vector<LinkUse>& out) {
  for (const auto& [key, value] : node.items()) {
    if (!value.is_object()) continue;
    const std::string name = path.empty() ? key : path + "." + key;
    int this_ild = ild;
    if (path.empty() && key.rfind("ild", 0) == 0) this_ild = std::atoi(key.c_str() + 3);
    if (value.contains("utilisation") && value["utilisation"].is_number()) {
      LinkUse l;
      l.name = name;
      l.utilisation = value["utilisation"].get<double>();
      l.bytes = value.value("bytes", 0.0);
      int from = -1, to = -1;
      char kind[64] = {0};
      // IPU-Link directions are named "ipuA->ipuB_kind" (global IPU indices).
      if (std::sscanf(key.c_str(), "ipu%d->ipu%d_%63s", &from, &to, kind) == 3) {
        l.ild = this_ild;
        l.from_ipu = from;
        l.to_ipu = to;
      }
      out.push_back(l);
    } else {
      walk(value, name, this_ild, out);
    }
  }
}

}  // namespace

std::vector<LinkUse> collect_links(const Json& stats_system) {
  std::vector<LinkUse> out;
  if (stats_system.is_object()) walk(stats_system, "", -1, out);
  return out;
}

std::vector<Chart> topology_charts(const Json& stats_system) {
  const std::vector<LinkUse> links = collect_links(stats_system);
  std::vector<Chart> charts;
  if (links.empty()) return charts;
  const int ipus = stats_system.value("ipus", 0);
  const int ilds = std::max(1, stats_system.value("ilds", 1));
  const int per_ild = std::max(1, ipus / ilds);
  // Ladder coordinates: an ILD is two columns (IPUs 2k and 2k+1 form rung k); ILDs sit side
  // by side three columns apart. The two directions of a link are drawn 0.08 apart.
  auto x_of = [&](int g) { return (g / per_ild) * 3 + (g % per_ild) % 2; };
  auto y_of = [&](int g) { return (g % per_ild) / 2; };
  Json segments = Json::array();
  for (const LinkUse& l : links) {
    if (l.from_ipu < 0 || l.to_ipu < 0) continue;
    const double x1 = x_of(l.from_ipu), y1 = y_of(l.from_ipu);
    const double x2 = x_of(l.to_ipu), y2 = y_of(l.to_ipu);
    const double offset = l.from_ipu < l.to_ipu ? 0.08 : -0.08;
    const bool vertical = x1 == x2;
    segments.push_back({{"link", l.name},
                        {"x", x1 + (vertical ? offset : 0)},
                        {"y", y1 + (vertical ? 0 : offset)},
                        {"x2", x2 + (vertical ? offset : 0)},
                        {"y2", y2 + (vertical ? 0 : offset)},
                        {"utilisation", l.utilisation},
                        {"GiB", l.bytes / 1073741824.0}});
  }
  if (!segments.empty() && ipus > 0) {
    Json nodes = Json::array();
    for (int g = 0; g < ipus; ++g)
      nodes.push_back({{"ipu", "IPU " + std::to_string(g)}, {"x", x_of(g)}, {"y", y_of(g)}});
    const int rungs = (per_ild + 1) / 2;
    const Json x_scale = {{"domain", {-0.5, ilds * 3 - 1.5}}};
    const Json y_scale = {{"domain", {rungs - 0.5, -0.5}}};
    Json spec = {
        {"width", std::min(1200, 220 * ilds + 80)},
        {"height", std::min(1400, std::max(320, rungs * 26))},
        {"layer",
         Json::array(
             {{{"data", {{"values", segments}}},
               {"mark", {{"type", "rule"}, {"strokeWidth", 3}}},
               {"encoding",
                {{"x",
                  {{"field", "x"},
                   {"type", "quantitative"},
                   {"scale", x_scale},
                   {"axis", nullptr}}},
                 {"y",
                  {{"field", "y"},
                   {"type", "quantitative"},
                   {"scale", y_scale},
                   {"title", "IPU-Link ladder rung (IPUs 2k, 2k+1)"},
                   {"axis", {{"tickMinStep", 1}, {"format", "d"}}}}},
                 {"x2", {{"field", "x2"}}},
                 {"y2", {{"field", "y2"}}},
                 {"color",
                  {{"field", "utilisation"},
                   {"type", "quantitative"},
                   {"scale", {{"scheme", "viridis"}, {"zero", true}}}}},
                 {"tooltip", Json::array({{{"field", "link"}},
                                          {{"field", "utilisation"}, {"format", ".3f"}},
                                          {{"field", "GiB"}, {"format", ".3f"}}})}}}},
              {{"data", {{"values", nodes}}},
               {"mark", {{"type", "point"}, {"filled", true}, {"size", 40}, {"color", "#4c78a8"}}},
               {"encoding",
                {{"x", {{"field", "x"}, {"type", "quantitative"}, {"scale", x_scale}}},
                 {"y", {{"field", "y"}, {"type", "quantitative"}, {"scale", y_scale}}},
                 {"tooltip", {{"field", "ipu"}}}}}}})}};
    charts.push_back({"topology", spec, false});
  }
  // The busiest links of every kind (IPU-Links, gateway links, DDR, GW-Links, host links).
  std::vector<LinkUse> sorted = links;
  std::stable_sort(sorted.begin(), sorted.end(), [](const LinkUse& a, const LinkUse& b) {
    return a.utilisation > b.utilisation;
  });
  if (sorted.size() > 30) sorted.resize(30);
  Json bars = Json::array();
  for (const LinkUse& l : sorted)
    bars.push_back(
        {{"link", l.name}, {"utilisation", l.utilisation}, {"GiB", l.bytes / 1073741824.0}});
  Json spec = {
      {"data", {{"values", bars}}},
      {"width", 700},
      {"mark", "bar"},
      {"encoding",
       {{"y", {{"field", "link"}, {"type", "nominal"}, {"sort", "-x"}, {"title", nullptr}}},
        {"x",
         {{"field", "utilisation"}, {"type", "quantitative"}, {"scale", {{"domain", {0, 1}}}}}},
        {"tooltip", Json::array({{{"field", "link"}},
                                 {{"field", "utilisation"}, {"format", ".3f"}},
                                 {{"field", "GiB"}, {"format", ".3f"}}})}}}};
  charts.push_back({"busiest_links", spec, false});
  return charts;
}

}  // namespace ipusim::html
