// `ipusim params`: every declared parameter with type, unit, default, range, description.
#include <spdlog/spdlog.h>

#include <boost/program_options.hpp>
#include <iomanip>
#include <iostream>

#include "sim/params.hpp"
#include "tools/common/cli_util.hpp"

namespace ipusim::cli {

int cmd_params(const Args& args) {
  namespace po = boost::program_options;
  po::options_description opts("ipusim params [--json] [--filter TEXT]");
  opts.add_options()("help", "show this help")("json", "print JSON instead of a table")(
      "quiet,q", "print only the result: warnings off (the command prints nothing else)")(
      "filter", po::value<std::string>(), "only parameters whose path contains TEXT");
  const auto vm = parse_options(opts, {}, args);
  if (vm.count("help")) {
    std::cout << opts << "\n";
    return 0;
  }
  if (vm.count("quiet")) spdlog::set_level(spdlog::level::err);
  register_all_params();
  const std::string filter = vm.count("filter") ? vm["filter"].as<std::string>() : "";
  Json out = Json::array();
  for (const auto& spec : ParamRegistry::instance().all()) {
    if (!filter.empty() && spec.path.find(filter) == std::string::npos) continue;
    Json row = {{"path", spec.path},
                {"type", to_string(spec.type)},
                {"unit", spec.unit},
                {"default", spec.default_value},
                {"description", spec.description}};
    if (spec.min) row["min"] = *spec.min;
    if (spec.max) row["max"] = *spec.max;
    if (!spec.choices.empty()) row["choices"] = spec.choices;
    if (spec.plausible_min) row["plausible_min"] = *spec.plausible_min;  // outside: a warning
    if (spec.plausible_max) row["plausible_max"] = *spec.plausible_max;
    out.push_back(row);
  }
  if (vm.count("json")) {
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  for (const auto& row : out) {
    std::string range;
    if (row.contains("choices")) {
      for (const auto& c : row["choices"])
        range += (range.empty() ? "" : "|") + c.get<std::string>();
    } else if (row.contains("min") || row.contains("max")) {
      range = "[" + (row.contains("min") ? row["min"].dump() : "") + ", " +
              (row.contains("max") ? row["max"].dump() : "") + "]";
    }
    if (row.contains("plausible_min")) {
      range += " warn outside [" + row["plausible_min"].dump() + ", " +
               row["plausible_max"].dump() + "]";
    }
    std::cout << std::left << std::setw(52) << row["path"].get<std::string>() << " " << std::setw(7)
              << row["type"].get<std::string>() << " " << std::setw(8)
              << row["unit"].get<std::string>() << " default " << std::setw(12)
              << (row["default"].is_null()
                      ? std::string(row["type"] == "json" ? "(none)" : "(required)")
                      : row["default"].dump())
              << " " << std::setw(14) << range << " " << row["description"].get<std::string>()
              << "\n";
  }
  return 0;
}

}  // namespace ipusim::cli
