#include "sim/logging.hpp"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "sim/errors.hpp"

namespace ipusim {

void setup_logging(const std::string& level) {
  const auto lvl = spdlog::level::from_str(level);
  if (lvl == spdlog::level::off && level != "off") {
    throw ConfigError("--log-level '" + level +
                      "': expected one of trace, debug, info, warn, error, critical, off");
  }
  auto logger = spdlog::stderr_color_mt("ipusim");
  logger->set_pattern("[%l] %v");
  spdlog::set_default_logger(logger);
  spdlog::set_level(lvl);
}

}  // namespace ipusim
