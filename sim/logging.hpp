#pragma once
// spdlog set-up: one stderr logger, level from --log-level.
#include <string>

namespace ipusim {

/// Configures the default spdlog logger (stderr). Throws ConfigError on an unknown level.
void setup_logging(const std::string& level);

}  // namespace ipusim
