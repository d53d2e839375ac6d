#include <string>

#include "runtime/ir/ir_json.hpp"
#include "sim/config.hpp"
#include "sim/errors.hpp"
#include "sim/json_parse.hpp"
#include "tests/fuzz/fuzz_entries.hpp"

// The explicit training-graph entry lives apart: it alone needs ipusim::runtime.
namespace ipusim::fuzz {

int fuzz_graph(const std::uint8_t* data, std::size_t size) {
  static const bool registered = [] {
    rt::register_ir_json_params();
    return true;
  }();
  (void)registered;
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    Json root = {{"workload", {{"model", parse_json_text(text, "fuzz_graph.json")}}}};
    ConfigDoc doc = ConfigDoc::from_json(root, "fuzz_graph.json");
    ConfigNode model(doc, "/workload/model");
    (void)rt::read_explicit_model(model);
  } catch (const ConfigError&) {
  }
  return 0;
}

}  // namespace ipusim::fuzz
