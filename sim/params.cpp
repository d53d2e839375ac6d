#include "sim/params.hpp"

#include <algorithm>
#include <set>

namespace ipusim {

ParamRegistry& ParamRegistry::instance() {
  static ParamRegistry registry;
  return registry;
}

void ParamRegistry::add(const std::vector<ParamSpec>& specs) {
  for (const auto& spec : specs) {
    auto it = std::find_if(specs_.begin(), specs_.end(),
                           [&](const ParamSpec& s) { return s.path == spec.path; });
    if (it != specs_.end()) {
      *it = spec;
    } else {
      specs_.push_back(spec);
    }
  }
}

const ParamSpec* ParamRegistry::find(const std::string& pointer) const {
  const std::string norm = normalise_pointer(pointer);
  for (const auto& spec : specs_) {
    if (spec.path == norm) return &spec;
  }
  return nullptr;
}

std::vector<std::string> ParamRegistry::keys_under(const std::string& object_pointer) const {
  const std::string prefix = normalise_pointer(object_pointer) + "/";
  std::set<std::string> keys;
  for (const auto& spec : specs_) {
    if (spec.path.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string rest = spec.path.substr(prefix.size());
    const std::string key = rest.substr(0, rest.find('/'));
    if (key != "*") keys.insert(key);
  }
  return {keys.begin(), keys.end()};
}

bool ParamRegistry::is_declared_prefix(const std::string& pointer) const {
  const std::string norm = normalise_pointer(pointer);
  for (const auto& spec : specs_) {
    if (spec.path == norm) return true;
    if (spec.path.compare(0, norm.size() + 1, norm + "/") == 0) return true;
  }
  return false;
}

std::vector<ParamSpec> ParamRegistry::all() const {
  std::vector<ParamSpec> sorted = specs_;
  std::sort(sorted.begin(), sorted.end(),
            [](const ParamSpec& a, const ParamSpec& b) { return a.path < b.path; });
  return sorted;
}

std::string normalise_pointer(const std::string& pointer) {
  std::string out;
  std::size_t pos = 0;
  while (pos < pointer.size()) {
    // Each segment starts after a '/'.
    std::size_t next = pointer.find('/', pos + 1);
    if (next == std::string::npos) next = pointer.size();
    const std::string segment = pointer.substr(pos + 1, next - pos - 1);
    const bool numeric =
        !segment.empty() &&
        std::all_of(segment.begin(), segment.end(), [](char c) { return c >= '0' && c <= '9'; });
    out += "/";
    out += numeric ? "*" : segment;
    pos = next;
  }
  return out;
}

std::string to_string(ParamType type) {
  switch (type) {
    case ParamType::Int:
      return "int";
    case ParamType::Double:
      return "double";
    case ParamType::Bool:
      return "bool";
    case ParamType::String:
      return "string";
    case ParamType::Enum:
      return "enum";
    case ParamType::Json:
      return "json";
  }
  return "?";
}

}  // namespace ipusim
