#include "sim/config.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "sim/json_parse.hpp"
#include "sim/params.hpp"
#include "sim/units.hpp"

namespace ipusim {
namespace fs = std::filesystem;

namespace {

std::string join(const std::vector<std::string>& items, const std::string& sep) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? sep : "") + items[i];
  return out;
}

std::string child_pointer(const std::string& parent, const std::string& key) {
  return parent + "/" + key;
}

/// Records `file` as the origin of every value under `value` at `pointer`.
void mark_origin(std::map<std::string, std::string>& origin, const std::string& pointer,
                 const Json& value, const std::string& file) {
  origin[pointer] = file;
  if (value.is_object()) {
    for (auto it = value.begin(); it != value.end(); ++it)
      mark_origin(origin, child_pointer(pointer, it.key()), it.value(), file);
  } else if (value.is_array()) {
    for (std::size_t i = 0; i < value.size(); ++i)
      mark_origin(origin, child_pointer(pointer, std::to_string(i)), value[i], file);
  }
}

/// Deep merge: objects merge key by key; anything else replaces.
void merge_into(Json& base, const Json& overlay) {
  for (auto it = overlay.begin(); it != overlay.end(); ++it) {
    if (it.value().is_object() && base.contains(it.key()) && base[it.key()].is_object()) {
      merge_into(base[it.key()], it.value());
    } else {
      base[it.key()] = it.value();
    }
  }
}

/// Loads a config and its includes with limits, so that no include graph can hang or
/// exhaust the machine: the include chain is at most kMaxIncludeDepth deep, at most
/// kMaxIncludeFiles file loads happen in all (a fan-out of 10 includes of 10 includes...
/// stops here instead of expanding 10^7 times), a file appears at most once in one
/// `$include` list and at most once on a chain (a cycle).
struct Loader {
  std::map<std::string, std::string>& origin;
  std::vector<std::string> stack;      // canonical paths being loaded, for cycle detection
  std::size_t loads = 0;               // files loaded so far (every include counts)
  std::map<std::string, Json> parsed;  // canonical path -> parsed text (each file read once)

  Json load(const fs::path& path, const std::string& included_from) {
    std::error_code ec;
    fs::path canonical = fs::weakly_canonical(path, ec);
    if (ec) canonical = path;
    const std::string name = canonical.string();
    const std::string where = included_from.empty() ? "" : included_from + ": ";
    if (std::find(stack.begin(), stack.end(), name) != stack.end()) {
      std::vector<std::string> cycle(std::find(stack.begin(), stack.end(), name), stack.end());
      cycle.push_back(name);
      throw ConfigError(where + "include cycle: " + join(cycle, " -> "));
    }
    if (stack.size() >= kMaxIncludeDepth) {
      throw ConfigError(where + "including '" + path.string() +
                        "' would nest includes deeper than " + std::to_string(kMaxIncludeDepth) +
                        " levels (the limit on $include depth)");
    }
    if (++loads > kMaxIncludeFiles) {
      throw ConfigError(where + "including '" + path.string() + "' would load more than " +
                        std::to_string(kMaxIncludeFiles) +
                        " config files in all (the limit on $include fan-out)");
    }
    auto cached = parsed.find(name);
    if (cached == parsed.end()) {
      Json text;
      try {
        text =
            read_json_input(path.string(), included_from.empty() ? "config file" : "included file");
      } catch (const ConfigError& e) {
        throw ConfigError(where + e.what());
      }
      if (!text.is_object())
        throw ConfigError(where + path.string() + ": expected a JSON object at the top level");
      cached = parsed.emplace(name, std::move(text)).first;
    }
    Json text = cached->second;

    stack.push_back(name);
    Json merged = Json::object();
    if (text.contains("$include")) {
      const Json& inc = text["$include"];
      std::vector<std::string> files;
      if (inc.is_string()) {
        files.push_back(inc.get<std::string>());
      } else if (inc.is_array() &&
                 std::all_of(inc.begin(), inc.end(), [](const Json& j) { return j.is_string(); })) {
        for (const auto& f : inc) files.push_back(f.get<std::string>());
      } else {
        throw ConfigError(path.string() +
                          ": /$include: expected a file name or a list of file names");
      }
      std::vector<std::string> seen;  // canonical names in this list, to refuse duplicates
      for (std::size_t i = 0; i < files.size(); ++i) {
        const std::string& f = files[i];
        if (f.empty())
          throw ConfigError(path.string() + ": /$include/" + std::to_string(i) +
                            ": empty file name");
        const fs::path child = fs::path(f).is_absolute() ? fs::path(f) : path.parent_path() / f;
        const std::string child_name = fs::weakly_canonical(child, ec).string();
        const auto dup = std::find(seen.begin(), seen.end(), ec ? child.string() : child_name);
        if (dup != seen.end()) {
          throw ConfigError(path.string() + ": /$include/" + std::to_string(i) + ": '" + f +
                            "' is already included at /$include/" +
                            std::to_string(dup - seen.begin()) +
                            " (each file at most once per $include list)");
        }
        seen.push_back(ec ? child.string() : child_name);
        // Errors in the included file name the including file and the $include entry.
        merge_into(merged, load(child, path.string() + ": /$include/" + std::to_string(i)));
      }
      text.erase("$include");
    }
    mark_origin(origin, "", text, path.string());
    merge_into(merged, text);
    stack.pop_back();
    return merged;
  }
};

/// Edit distance, for "did you mean" suggestions.
std::size_t levenshtein(const std::string& a, const std::string& b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string describe_value(const Json& v) {
  std::string s = v.dump();
  if (s.size() > 60) s = s.substr(0, 57) + "...";
  return s;
}

std::string range_text(const ParamSpec& spec) {
  std::ostringstream out;
  out << "[" << (spec.min ? Json(*spec.min).dump() : std::string("-inf")) << ", "
      << (spec.max ? Json(*spec.max).dump() : std::string("inf")) << "]";
  if (!spec.unit.empty()) out << " " << spec.unit;
  return out.str();
}

/// The number a text value stands for in the parameter's unit ("1GiB" in B, "100Gbit/s" in
/// GB/s); nullopt when the unit takes no text or the text is no value of it.
std::optional<double> number_from_text(const ParamSpec& spec, const std::string& text) {
  try {
    return value_from_text(text, spec.unit, spec.path);
  } catch (const ConfigError&) {
    return std::nullopt;
  }
}

/// "an integer in B (or a size with its unit: 64MiB, 1GiB, 100MB)": what a number parameter takes.
std::string expected_number(const ParamSpec& spec) {
  std::string text = spec.type == ParamType::Int ? "an integer" : "a number";
  if (!spec.unit.empty()) text += " in " + spec.unit;
  if (spec.unit == "B" || spec.unit == "GiB")
    text += " (or a size with its unit: 64MiB, 1GiB, 100MB)";
  if (spec.unit == "GB/s") text += " (or a rate with its unit: 100Gbit/s, 12.5GB/s)";
  return text;
}

/// Warns (once per JSON path and process) about a value outside the parameter's plausible
/// range: it runs, but is most likely a number meant in another unit.
void warn_if_implausible(const ParamSpec& spec, const std::string& where, double value) {
  if ((!spec.plausible_min || value >= *spec.plausible_min) &&
      (!spec.plausible_max || value <= *spec.plausible_max))
    return;
  static std::set<std::string> warned;
  if (!warned.insert(where).second) return;
  std::ostringstream text;  // shortest form of each number: "128", "17.18", "1"
  text << where << " = " << value << " " << spec.unit << " is outside the plausible range [";
  if (spec.plausible_min)
    text << *spec.plausible_min;
  else
    text << "-inf";
  text << ", ";
  if (spec.plausible_max)
    text << *spec.plausible_max;
  else
    text << "inf";
  text << "] " << spec.unit << ": a value in another unit?";
  if (!spec.plausible_hint.empty()) text << " (" << spec.plausible_hint << ")";
  spdlog::warn("{}", text.str());
}

}  // namespace

std::string closest_match(const std::string& word, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t best_distance = std::max<std::size_t>(3, word.size() / 3) + 1;
  for (const auto& c : candidates) {
    const std::size_t d = levenshtein(word, c);
    if (d < best_distance) {
      best_distance = d;
      best = c;
    }
  }
  return best;
}

ConfigDoc ConfigDoc::load_file(const std::string& path) {
  ConfigDoc doc;
  doc.main_file_ = path;
  Loader loader{doc.origin_, {}, 0, {}};
  doc.root_ = loader.load(fs::path(path), "");
  return doc;
}

ConfigDoc ConfigDoc::from_json(const Json& root, const std::string& origin) {
  if (!root.is_object()) throw ConfigError(origin + ": expected a JSON object at the top level");
  ConfigDoc doc;
  doc.main_file_ = origin;
  doc.root_ = root;
  mark_origin(doc.origin_, "", root, origin);
  return doc;
}

std::string ConfigDoc::origin_of(const std::string& pointer) const {
  std::string p = pointer;
  while (true) {
    auto it = origin_.find(p);
    if (it != origin_.end()) return it->second;
    if (p.empty()) return main_file_;
    p = p.substr(0, p.rfind('/'));
  }
}

void ConfigDoc::apply_override(const std::string& assignment) {
  const auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0) {
    throw ConfigError("--set '" + assignment + "': expected path.to.key=value");
  }
  std::string path = assignment.substr(0, eq);
  const std::string text = assignment.substr(eq + 1);
  std::string pointer = path;
  if (pointer[0] != '/') {
    std::replace(pointer.begin(), pointer.end(), '.', '/');
    pointer = "/" + pointer;
  }
  Json value;
  try {
    value = parse_json_text(text, "--set " + path);
  } catch (const ConfigError& e) {
    // Bare words are strings (--set sim.fidelity=aggregated); but text that is JSON-shaped
    // yet too deep or overflowing ("1e999") is an error, not a string.
    const std::string msg = e.what();
    if (msg.find("invalid JSON") == std::string::npos) throw;
    value = text;
  }
  // A path that is not a valid JSON pointer ("a~2b") or runs through a list with a
  // non-numeric key is bad input, not an internal error.
  try {
    const Json::json_pointer jp(pointer);
    const auto& registry = ParamRegistry::instance();
    const bool exists = root_.contains(jp);
    const ParamSpec* spec = registry.find(pointer);
    if (!exists && !spec) {
      const std::string parent = pointer.substr(0, pointer.rfind('/'));
      const std::string key = pointer.substr(pointer.rfind('/') + 1);
      std::vector<std::string> candidates = registry.keys_under(parent);
      const Json::json_pointer parent_jp(parent);
      if (root_.contains(parent_jp) && root_[parent_jp].is_object()) {
        for (auto it = root_[parent_jp].begin(); it != root_[parent_jp].end(); ++it)
          candidates.push_back(it.key());
      }
      std::sort(candidates.begin(), candidates.end());
      candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
      const auto declared = registry.keys_under(parent);
      if (std::find(declared.begin(), declared.end(), key) != declared.end()) {
        // A declared list or object (e.g. /workload/model/ops) that this config does not
        // have: not a misspelling, so no "did you mean" the same key.
        throw ConfigError("--set " + path + ": " + pointer +
                          " is a list or object of parameters that this config does not have; "
                          "--set changes values the config "
                          "has or single parameters with a default: write it in the config file");
      }
      std::string msg = "--set " + path + ": no parameter at " + pointer +
                        " (overrides change existing parameters; they do not add keys)";
      if (!candidates.empty())
        msg += "; keys at " + (parent.empty() ? "/" : parent) + ": " + join(candidates, ", ");
      const std::string guess = closest_match(key, candidates);
      if (!guess.empty() && guess != key) msg += "; did you mean '" + guess + "'?";
      throw ConfigError(msg);
    }
    // The value's JSON type must suit the declared parameter, checked now so that sweep,
    // regress and validate refuse a bad override before anything runs (the typed get_*
    // still check ranges when the config is read).
    if (spec) {
      const char* expected = nullptr;
      std::string expected_text;  // numbers: with the unit and the text it takes
      switch (spec->type) {
        case ParamType::Int:
        case ParamType::Double:
          // Text with a unit ("1GiB", "100Gbit/s") is checked now and converted when read.
          if (value.is_string() && number_from_text(*spec, value.get<std::string>())) break;
          if (!value.is_number()) expected_text = expected_number(*spec);
          break;
        case ParamType::Bool:
          if (!value.is_boolean()) expected = "true or false";
          break;
        case ParamType::String:
        case ParamType::Enum:
          if (!value.is_string()) expected = "a string";
          break;
        case ParamType::Json:
          break;
      }
      if (expected) {
        throw ConfigError("--set " + path + ": " + pointer + ": expected " + expected +
                          (spec->unit.empty() ? "" : " in " + spec->unit) + ", got " +
                          describe_value(value));
      }
      if (!expected_text.empty()) {
        throw ConfigError("--set " + path + ": " + pointer + ": expected " + expected_text +
                          ", got " + describe_value(value));
      }
    }
    root_[jp] = value;
  } catch (const Json::exception& e) {
    throw ConfigError("--set " + path + ": " + pointer + " is not a usable path: " + e.what());
  }
  mark_origin(origin_, pointer, value, "--set " + path);
}

void ConfigDoc::take_sections(const ConfigDoc& other, const std::vector<std::string>& replaced,
                              const std::vector<std::string>& merged) {
  const auto copy_origins = [&](const std::string& section) {
    const std::string prefix = "/" + section;
    for (const auto& [pointer, file] : other.origin_) {
      if (pointer == prefix || pointer.rfind(prefix + "/", 0) == 0) origin_[pointer] = file;
    }
  };
  for (const std::string& section : replaced) {
    root_.erase(section);
    const std::string prefix = "/" + section;
    for (auto it = origin_.begin(); it != origin_.end();) {
      it = it->first == prefix || it->first.rfind(prefix + "/", 0) == 0 ? origin_.erase(it)
                                                                        : std::next(it);
    }
    if (other.root_.contains(section)) {
      root_[section] = other.root_[section];
      copy_origins(section);
    }
  }
  for (const std::string& section : merged) {
    if (!other.root_.contains(section)) continue;
    if (!root_.contains(section) || !root_[section].is_object() ||
        !other.root_[section].is_object()) {
      root_[section] = other.root_[section];
    } else {
      merge_into(root_[section], other.root_[section]);
    }
    copy_origins(section);
  }
}

void ConfigDoc::set_origin(const std::string& pointer, const std::string& origin) {
  const Json::json_pointer jp(pointer);
  if (root_.contains(jp)) mark_origin(origin_, pointer, root_[jp], origin);
}

ConfigNode::ConfigNode(ConfigDoc& doc, std::string pointer)
    : doc_(&doc), pointer_(std::move(pointer)) {
  const Json::json_pointer jp(pointer_);
  if (doc_->root_.contains(jp) && !doc_->root_[jp].is_object()) {
    throw ConfigError(doc_->origin_of(pointer_) + ": " + pointer_ + ": expected an object, got " +
                      describe_value(doc_->root_[jp]));
  }
  if (!doc_->resolved_.contains(jp)) doc_->resolved_[jp] = Json::object();
}

const Json* ConfigNode::lookup(const std::string& key) const {
  const Json::json_pointer jp(child_pointer(pointer_, key));
  if (!doc_->root_.contains(jp)) return nullptr;
  return &doc_->root_[jp];
}

bool ConfigNode::has(const std::string& key) const { return lookup(key) != nullptr; }

void ConfigNode::fail(const std::string& key, const std::string& what) const {
  const std::string ptr = child_pointer(pointer_, key);
  throw ConfigError(doc_->origin_of(ptr) + ": " + ptr + ": " + what);
}

std::string ConfigNode::origin(const std::string& key) const {
  return doc_->origin_of(child_pointer(pointer_, key));
}

Json ConfigNode::value_or_default(const std::string& key, const ParamSpec*& spec) {
  const std::string ptr = child_pointer(pointer_, key);
  spec = ParamRegistry::instance().find(ptr);
  if (!spec) {
    // A programming error, not bad input: every parameter must be declared.
    throw std::logic_error("parameter " + normalise_pointer(ptr) + " is read but not declared");
  }
  mark_used(key);
  const Json* v = lookup(key);
  if (v && v->is_string() && (spec->type == ParamType::Int || spec->type == ParamType::Double)) {
    // A size or rate written with its unit ("1GiB", "100Gbit/s"): the number in the
    // parameter's unit (the resolved config records the number).
    const std::optional<double> number = number_from_text(*spec, v->get<std::string>());
    if (number)
      return spec->type == ParamType::Int && *number < 9.2e18
                 ? Json(static_cast<std::int64_t>(*number))
                 : Json(*number);
    fail(key, "expected " + expected_number(*spec) + ", got " + describe_value(*v));
  }
  if (v) return *v;
  // An absent Json-typed parameter without a default is optional (returns null).
  if (spec->default_value.is_null() && spec->type != ParamType::Json)
    fail(key, "required parameter is missing (" + spec->description + ")");
  return spec->default_value;
}

double ConfigNode::get_double(const std::string& key) {
  const ParamSpec* spec = nullptr;
  const Json v = value_or_default(key, spec);
  if (!v.is_number())
    fail(key, "expected a number" + (spec->unit.empty() ? "" : " in " + spec->unit) + ", got " +
                  describe_value(v));
  const double d = v.get<double>();
  if (!std::isfinite(d) || (spec->min && d < *spec->min) || (spec->max && d > *spec->max))
    fail(key, "value " + describe_value(v) + " is out of range " + range_text(*spec));
  warn_if_implausible(*spec, child_pointer(pointer_, key), d);
  doc_->resolved_[Json::json_pointer(child_pointer(pointer_, key))] = v;
  return d;
}

std::int64_t ConfigNode::get_int(const std::string& key) {
  const ParamSpec* spec = nullptr;
  const Json v = value_or_default(key, spec);
  bool integral = v.is_number_integer();
  if (v.is_number_float()) {
    const double d = v.get<double>();
    integral = std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.2e18;
  }
  if (!integral)
    fail(key, "expected an integer" + (spec->unit.empty() ? "" : " in " + spec->unit) + ", got " +
                  describe_value(v));
  const std::int64_t i =
      v.is_number_float() ? static_cast<std::int64_t>(v.get<double>()) : v.get<std::int64_t>();
  if ((spec->min && static_cast<double>(i) < *spec->min) ||
      (spec->max && static_cast<double>(i) > *spec->max))
    fail(key, "value " + describe_value(v) + " is out of range " + range_text(*spec));
  warn_if_implausible(*spec, child_pointer(pointer_, key), static_cast<double>(i));
  doc_->resolved_[Json::json_pointer(child_pointer(pointer_, key))] = i;
  return i;
}

std::uint64_t ConfigNode::get_uint(const std::string& key) {
  const std::int64_t i = get_int(key);
  if (i < 0) fail(key, "expected a non-negative integer, got " + std::to_string(i));
  return static_cast<std::uint64_t>(i);
}

bool ConfigNode::get_bool(const std::string& key) {
  const ParamSpec* spec = nullptr;
  const Json v = value_or_default(key, spec);
  if (!v.is_boolean()) fail(key, "expected true or false, got " + describe_value(v));
  doc_->resolved_[Json::json_pointer(child_pointer(pointer_, key))] = v;
  return v.get<bool>();
}

std::string ConfigNode::get_string(const std::string& key) {
  const ParamSpec* spec = nullptr;
  const Json v = value_or_default(key, spec);
  if (!v.is_string()) fail(key, "expected a string, got " + describe_value(v));
  doc_->resolved_[Json::json_pointer(child_pointer(pointer_, key))] = v;
  return v.get<std::string>();
}

std::string ConfigNode::get_enum(const std::string& key) {
  const ParamSpec* spec = nullptr;
  const Json v = value_or_default(key, spec);
  const std::string allowed = join(spec->choices, ", ");
  if (!v.is_string()) fail(key, "expected one of {" + allowed + "}, got " + describe_value(v));
  const std::string s = v.get<std::string>();
  if (std::find(spec->choices.begin(), spec->choices.end(), s) == spec->choices.end()) {
    std::string msg = "'" + s + "' is not one of {" + allowed + "}";
    const std::string guess = closest_match(s, spec->choices);
    if (!guess.empty()) msg += "; did you mean '" + guess + "'?";
    fail(key, msg);
  }
  doc_->resolved_[Json::json_pointer(child_pointer(pointer_, key))] = v;
  return s;
}

Json ConfigNode::get_json(const std::string& key) {
  const ParamSpec* spec = nullptr;
  const Json v = value_or_default(key, spec);
  if (v.is_null()) return v;
  doc_->resolved_[Json::json_pointer(child_pointer(pointer_, key))] = v;
  return v;
}

ConfigNode ConfigNode::child(const std::string& key) {
  mark_used(key);
  return ConfigNode(*doc_, child_pointer(pointer_, key));
}

std::vector<ConfigNode> ConfigNode::children(const std::string& key) {
  mark_used(key);
  const Json* v = lookup(key);
  std::vector<ConfigNode> nodes;
  if (!v) return nodes;
  if (!v->is_array()) fail(key, "expected a list of objects, got " + describe_value(*v));
  for (std::size_t i = 0; i < v->size(); ++i) {
    if (!(*v)[i].is_object())
      fail(key + "/" + std::to_string(i), "expected an object, got " + describe_value((*v)[i]));
    nodes.emplace_back(*doc_, child_pointer(child_pointer(pointer_, key), std::to_string(i)));
  }
  return nodes;
}

void ConfigNode::mark_used(const std::string& key) {
  if (std::find(used_.begin(), used_.end(), key) == used_.end()) used_.push_back(key);
  const Json* v = lookup(key);
  if (v && !v->is_object() && !v->is_array()) {
    doc_->resolved_[Json::json_pointer(child_pointer(pointer_, key))] = *v;
  }
}

void ConfigNode::resolve(const std::string& key, const Json& value) {
  mark_used(key);
  doc_->resolved_[Json::json_pointer(child_pointer(pointer_, key))] = value;
}

void ConfigNode::finish() const {
  const Json::json_pointer jp(pointer_);
  if (!doc_->root_.contains(jp)) return;
  const Json& obj = doc_->root_[jp];
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    if (std::find(used_.begin(), used_.end(), it.key()) != used_.end()) continue;
    std::vector<std::string> allowed = ParamRegistry::instance().keys_under(pointer_);
    for (const auto& u : used_) allowed.push_back(u);
    std::sort(allowed.begin(), allowed.end());
    allowed.erase(std::unique(allowed.begin(), allowed.end()), allowed.end());
    const std::string ptr = child_pointer(pointer_, it.key());
    std::string msg = doc_->origin_of(ptr) + ": unknown key '" + it.key() + "' at " + ptr;
    if (!allowed.empty())
      msg +=
          "; allowed keys at " + (pointer_.empty() ? "/" : pointer_) + ": " + join(allowed, ", ");
    const std::string guess = closest_match(it.key(), allowed);
    if (guess == it.key()) {
      // A declared key that these settings do not read (e.g. "ops" with a generator):
      // suggesting the key itself would be no help.
      msg += "; '" + it.key() + "' is not read with the other settings of this object";
    } else if (!guess.empty()) {
      msg += "; did you mean '" + guess + "'?";
    }
    throw ConfigError(msg);
  }
}

}  // namespace ipusim
