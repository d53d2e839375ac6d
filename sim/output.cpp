#include "sim/output.hpp"

#include <filesystem>
#include <iomanip>

#include "sim/errors.hpp"
#include "sim/output_file.hpp"
#include "sim/params.hpp"
#include "sim/sim_options.hpp"

namespace ipusim {

JsonWriteResult try_write_json_file(const std::string& dir, const std::string& name,
                                    const Json& value) {
  JsonWriteResult r;
  r.path = (std::filesystem::path(dir) / name).string();
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    r.error = "cannot create output folder '" + dir + "': " + ec.message();
    r.exit_code = 2;
    return r;
  }
  // Streamed (no second copy of a large report in memory), then renamed into place.
  r.error = try_write_file_atomic(r.path,
                                  [&](std::ostream& out) { out << std::setw(2) << value << "\n"; });
  r.exit_code = r.error.empty() ? 0 : 3;
  return r;
}

std::string write_json_file(const std::string& dir, const std::string& name, const Json& value) {
  const JsonWriteResult r = try_write_json_file(dir, name, value);
  if (r.exit_code == 2) throw ConfigError(r.error);
  if (r.exit_code != 0) throw WriteError(r.error);
  return r.path;
}

void register_sim_params() {
  ParamRegistry::instance().add({
      {"/name",
       ParamType::String,
       "",
       "",
       {},
       {},
       {},
       "Free-form name of this configuration, copied into the report"},
      {"/description",
       ParamType::String,
       "",
       "",
       {},
       {},
       {},
       "Free-form description of this configuration"},
  });
  register_sim_options();
}

}  // namespace ipusim
