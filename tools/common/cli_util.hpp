#pragma once
// Shared helpers for sub-commands: option parsing that turns Boost errors into
// ConfigError (exit 2), and registration of every layer's parameters.
#include <boost/program_options.hpp>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "tools/cli/commands.hpp"

namespace ipusim::cli {

/// Parses `args` with `opts` and positional names; unknown options and bad values throw
/// ConfigError with Boost's message.
boost::program_options::variables_map parse_options(
    const boost::program_options::options_description& opts,
    const boost::program_options::positional_options_description& positional, const Args& args);

/// Declares every layer's parameters in the registry (idempotent).
void register_all_params();

/// A byte count given on the command line: a plain integer ("67108864") or a number with
/// a binary (KiB, MiB, GiB, TiB: powers of 1024) or decimal (KB, MB, GB, TB: powers of
/// 1000) suffix, case-insensitive, optionally with a space or a fraction that gives whole
/// bytes ("1.5GiB"). ConfigError naming `flag` otherwise (zero and negative included when
/// `allow_zero` is false).
std::uint64_t parse_size_bytes(const std::string& text, const std::string& flag,
                               bool allow_zero = false);

/// Checks that `value` of `flag` is one of `choices`; ConfigError naming the flag, the
/// accepted values and the closest one ("--op: unknown value 'alreduce' ...; did you
/// mean 'allreduce'?").
void check_choice(const std::string& flag, const std::string& value,
                  const std::vector<std::string>& choices);

/// The choices the parameter registry declares for an enum parameter (e.g.
/// "/workload/op"); empty if it has none.
std::vector<std::string> registry_choices(const std::string& pointer);

/// Loads `config` and applies `sets` in order, as `ipusim run` would, without running
/// anything: a key that does not exist (or a bad config) throws ConfigError prefixed with
/// `where(i)`, the name of the i-th override for the user (e.g. "sweep.json: /axes/0/path").
void check_config_overrides(const std::string& config, const std::vector<std::string>& sets,
                            const std::function<std::string(std::size_t)>& where);

/// A config file or folder named on the command line: the path as given when it exists;
/// else, for a relative path, the same path in the ipusim source tree or the configs a
/// pip-installed package ships (locate_source_file), so that the README's commands
/// (`ipusim run configs/default.json`) work from any folder; else as given (the loader
/// then says it is missing).
std::string resolve_input_path(const std::string& path);

/// The top-level sections a system preset owns: `run --system` replaces them.
const std::vector<std::string>& system_sections();

/// Checks before any work that the file `path` given by `flag` (e.g. "--junit") can be
/// created: its folder exists and is a folder, and `path` is not itself a folder.
/// ConfigError naming the flag, the path and the reason otherwise.
void check_output_file_flag(const std::string& flag, const std::string& path);

/// A system given as a file path, or as a preset name ("pod64" ->
/// configs/systems/pod64.json in the source tree); ConfigError naming `flag` and the
/// presets when neither exists.
std::string resolve_system_config(const std::string& name_or_path,
                                  const std::string& flag = "--system");

}  // namespace ipusim::cli
