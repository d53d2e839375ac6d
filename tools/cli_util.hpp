#pragma once
// Shared helpers for sub-commands: option parsing that turns Boost errors into
// ConfigError (exit 2), and registration of every layer's parameters.
#include <boost/program_options.hpp>
#include <string>

#include "tools/commands.hpp"

namespace ipusim::cli {

/// Parses `args` with `opts` and positional names; unknown options and bad values throw
/// ConfigError with Boost's message.
boost::program_options::variables_map parse_options(
    const boost::program_options::options_description& opts,
    const boost::program_options::positional_options_description& positional, const Args& args);

/// Declares every layer's parameters in the registry (idempotent).
void register_all_params();

}  // namespace ipusim::cli
