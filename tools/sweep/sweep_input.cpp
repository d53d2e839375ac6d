#include "tools/sweep/sweep_input.hpp"

#include <algorithm>
#include <fstream>
#include <iomanip>
#include <sstream>

#include "sim/config.hpp"
#include "sim/errors.hpp"
#include "sim/json_parse.hpp"
#include "sim/output_file.hpp"

namespace ipusim::cli {

namespace {

std::string join(const std::vector<std::string>& items, const std::string& sep) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : sep) + s;
  return out;
}

std::string escape_pointer_token(const std::string& key) {
  std::string out;
  for (char c : key) {
    if (c == '~')
      out += "~0";
    else if (c == '/')
      out += "~1";
    else
      out += c;
  }
  return out;
}

}  // namespace

Json read_json_file(const std::string& path) {
  // Regular files only, size and nesting limits, overflow named with its path (exit 2).
  return read_json_input(path, "file");
}

void write_json_pretty(const std::string& path, const Json& value) {
  write_file_atomic(path, [&](std::ostream& out) { out << std::setw(2) << value << "\n"; });
}

std::string describe_json(const Json& value) {
  if (value.is_string()) return "the string " + value.dump();
  if (value.is_number()) return "the number " + value.dump();
  if (value.is_boolean()) return value.get<bool>() ? "true" : "false";
  if (value.is_null()) return "null";
  if (value.is_array()) return "a list";
  return "an object";
}

StrictObject::StrictObject(const Json& value, std::string file, std::string pointer)
    : value_(&value), file_(std::move(file)), pointer_(std::move(pointer)) {
  if (!value.is_object()) {
    throw ConfigError(file_ + ": " + (pointer_.empty() ? "/" : pointer_) +
                      ": expected an object, got " + describe_json(value));
  }
}

void StrictObject::allow_only(const std::vector<std::string>& allowed) const {
  for (auto it = value_->begin(); it != value_->end(); ++it) {
    if (std::find(allowed.begin(), allowed.end(), it.key()) != allowed.end()) continue;
    std::vector<std::string> sorted = allowed;
    std::sort(sorted.begin(), sorted.end());
    std::string msg = file_ + ": unknown key '" + it.key() + "' at " + pointer_of(it.key()) +
                      "; allowed keys at " + (pointer_.empty() ? "/" : pointer_) + ": " +
                      join(sorted, ", ");
    const std::string guess = closest_match(it.key(), sorted);
    if (!guess.empty()) msg += "; did you mean '" + guess + "'?";
    throw ConfigError(msg);
  }
}

bool StrictObject::has(const std::string& key) const { return value_->contains(key); }

const Json& StrictObject::required(const std::string& key) const {
  if (!has(key)) fail(key, "missing required key '" + key + "'");
  return value_->at(key);
}

std::string StrictObject::string(const std::string& key) const {
  const Json& v = required(key);
  if (!v.is_string()) fail(key, "expected a string, got " + describe_json(v));
  return v.get<std::string>();
}

std::string StrictObject::string_or(const std::string& key, const std::string& fallback) const {
  return has(key) ? string(key) : fallback;
}

double StrictObject::number(const std::string& key) const {
  const Json& v = required(key);
  if (!v.is_number()) fail(key, "expected a number, got " + describe_json(v));
  return v.get<double>();
}

double StrictObject::number_or(const std::string& key, double fallback) const {
  return has(key) ? number(key) : fallback;
}

std::vector<std::string> StrictObject::string_list(const std::string& key) const {
  std::vector<std::string> out;
  if (!has(key)) return out;
  const Json& v = value_->at(key);
  if (!v.is_array()) fail(key, "expected a list of strings, got " + describe_json(v));
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (!v[i].is_string()) {
      fail(key + "/" + std::to_string(i), "expected a string, got " + describe_json(v[i]));
    }
    out.push_back(v[i].get<std::string>());
  }
  return out;
}

std::string StrictObject::pointer_of(const std::string& key) const {
  return pointer_ + "/" + escape_pointer_token(key);
}

void StrictObject::fail(const std::string& key, const std::string& what) const {
  // `key` may already be a sub-path ("set/2"); it is appended as written.
  throw ConfigError(file_ + ": " + pointer_ + "/" + key + ": " + what);
}

void check_json_pointer(const std::string& pointer, const std::string& where) {
  try {
    const Json::json_pointer jp(pointer);
    (void)jp;
  } catch (const Json::exception&) {
    throw ConfigError(where + ": expected a JSON pointer such as \"/simulated/time_ns\", got \"" +
                      pointer + "\"");
  }
}

const Json* find_pointer(const Json& doc, const std::string& pointer) {
  try {
    const Json::json_pointer jp(pointer);
    if (!doc.contains(jp)) return nullptr;
    return &doc.at(jp);
  } catch (const Json::exception&) {
    return nullptr;
  }
}

}  // namespace ipusim::cli
