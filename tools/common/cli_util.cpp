#include "tools/common/cli_util.hpp"

#include <algorithm>
#include <filesystem>
#include <limits>

#include "models/params/model_params.hpp"
#include "runtime/workloads/runtime_params.hpp"
#include "sim/config.hpp"
#include "sim/errors.hpp"
#include "sim/output.hpp"
#include "sim/params.hpp"
#include "sim/units.hpp"
#include "tools/common/subprocess.hpp"

namespace ipusim::cli {

boost::program_options::variables_map parse_options(
    const boost::program_options::options_description& opts,
    const boost::program_options::positional_options_description& positional, const Args& args) {
  namespace po = boost::program_options;
  po::variables_map vm;
  try {
    // Positional arguments beyond those the command takes go to a hidden option, so that the
    // error can say which they are (Boost only says "too many positional options").
    po::options_description all;
    all.add(opts);
    all.add_options()("ipusim-extra-positional", po::value<std::vector<std::string>>(), "");
    po::positional_options_description pos = positional;
    if (pos.max_total_count() != std::numeric_limits<unsigned>::max())
      pos.add("ipusim-extra-positional", -1);
    po::store(po::command_line_parser(args).options(all).positional(pos).run(), vm);
    if (vm.count("ipusim-extra-positional")) {
      std::string extra;
      for (const auto& a : vm["ipusim-extra-positional"].as<std::vector<std::string>>())
        extra += (extra.empty() ? "'" : ", '") + a + "'";
      std::string expected;
      for (unsigned i = 0; i < positional.max_total_count(); ++i)
        expected += " " + positional.name_for_position(i);
      throw ConfigError("unexpected argument " + extra + ": the command takes " +
                        std::to_string(positional.max_total_count()) + " positional argument" +
                        (positional.max_total_count() == 1 ? "" : "s") +
                        (expected.empty() ? "" : " (" + expected.substr(1) + ")") +
                        " (see --help)");
    }
    po::notify(vm);
  } catch (const po::error& e) {
    throw ConfigError(std::string(e.what()) + " (see --help)");
  }
  return vm;
}

void register_all_params() {
  static bool done = false;
  if (done) return;
  done = true;
  register_sim_params();
  register_model_params();
  register_runtime_params();
}

namespace {

std::string join_words(const std::vector<std::string>& words, const std::string& sep) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : sep) + w;
  return out;
}

}  // namespace

std::uint64_t parse_size_bytes(const std::string& text, const std::string& flag, bool allow_zero) {
  return ipusim::parse_size_bytes(text, flag, allow_zero);
}

void check_choice(const std::string& flag, const std::string& value,
                  const std::vector<std::string>& choices) {
  if (choices.empty() || std::find(choices.begin(), choices.end(), value) != choices.end()) return;
  std::string msg =
      flag + ": unknown value '" + value + "' (expected " + join_words(choices, "|") + ")";
  const std::string guess = closest_match(value, choices);
  if (!guess.empty()) msg += "; did you mean '" + guess + "'?";
  throw ConfigError(msg);
}

std::vector<std::string> registry_choices(const std::string& pointer) {
  register_all_params();
  const ParamSpec* spec = ParamRegistry::instance().find(pointer);
  return spec ? spec->choices : std::vector<std::string>{};
}

void check_config_overrides(const std::string& config, const std::vector<std::string>& sets,
                            const std::function<std::string(std::size_t)>& where) {
  register_all_params();
  ConfigDoc doc = ConfigDoc::load_file(config);
  for (std::size_t i = 0; i < sets.size(); ++i) {
    try {
      doc.apply_override(sets[i]);
    } catch (const ConfigError& e) {
      throw ConfigError(where(i) + ": " + e.what());
    }
  }
}

std::string resolve_input_path(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (path.empty() || fs::exists(path, ec) || fs::path(path).is_absolute()) return path;
  const std::string found = locate_source_file(path);
  return found.empty() ? path : found;
}

const std::vector<std::string>& system_sections() {
  static const std::vector<std::string> sections = {"chip", "ipu_link", "machine", "system"};
  return sections;
}

std::string resolve_system_config(const std::string& name_or_path, const std::string& flag) {
  namespace fs = std::filesystem;
  if (fs::is_regular_file(resolve_input_path(name_or_path)))
    return resolve_input_path(name_or_path);
  const bool bare =
      name_or_path.find('/') == std::string::npos && fs::path(name_or_path).extension().empty();
  if (bare) {
    const std::string preset = locate_source_file("configs/systems/" + name_or_path + ".json");
    if (!preset.empty()) return preset;
  }
  std::vector<std::string> presets;
  const std::string dir = locate_source_file("configs/systems");
  if (!dir.empty()) {
    for (const auto& e : fs::directory_iterator(dir)) {
      if (e.path().extension() == ".json") presets.push_back(e.path().stem().string());
    }
  }
  std::sort(presets.begin(), presets.end());
  std::string msg = flag + ": '" + name_or_path + "' is neither a config file nor a system preset";
  if (!presets.empty()) msg += " (presets: " + join_words(presets, ", ") + ")";
  const std::string guess = bare ? closest_match(name_or_path, presets) : "";
  if (!guess.empty()) msg += "; did you mean '" + guess + "'?";
  throw ConfigError(msg);
}

void check_output_file_flag(const std::string& flag, const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path file(path);
  const fs::path dir = file.has_parent_path() ? file.parent_path() : fs::path(".");
  if (fs::is_directory(file, ec))
    throw ConfigError(flag + " " + path + ": is a folder; expected a file name");
  if (!fs::exists(dir, ec)) {
    throw ConfigError(flag + " " + path + ": the folder '" + dir.string() +
                      "' does not exist (create it first)");
  }
  if (!fs::is_directory(dir, ec))
    throw ConfigError(flag + " " + path + ": '" + dir.string() + "' is not a folder");
}

}  // namespace ipusim::cli
