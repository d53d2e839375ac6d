#pragma once
// Strict JSON configuration: `$include` with relative paths and cycle detection, `--set`
// overrides, typed reads that check type and range against the ParamRegistry, and
// unknown-key errors that name the file, the JSON path, the allowed keys and a suggestion.
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "sim/errors.hpp"
#include "sim/json.hpp"

namespace ipusim {

/// Deepest `$include` chain accepted (the main file is level 1).
constexpr std::size_t kMaxIncludeDepth = 64;
/// Most config files loaded for one config, counting every include (repeats included).
constexpr std::size_t kMaxIncludeFiles = 1000;

/// A loaded configuration: the merged JSON tree, the file that set each value, and the
/// resolved tree (input plus every default that was read), written as resolved_config.json.
class ConfigDoc {
 public:
  /// Loads a file and its `$include`s (later values override earlier ones; the including
  /// file overrides what it includes). Throws ConfigError on missing or non-regular files,
  /// JSON syntax errors (with line), include cycles (naming the cycle), a file listed twice
  /// in one `$include`, and the limits kMaxIncludeDepth, kMaxIncludeFiles, kMaxJsonDepth.
  static ConfigDoc load_file(const std::string& path);
  /// Wraps an in-memory JSON object; `origin` names it in error messages.
  static ConfigDoc from_json(const Json& root, const std::string& origin);

  /// Applies `a.b.c=value` (or `/a/b/c=value`). The value is parsed as JSON, falling back
  /// to a string. The path must exist in the tree or be a declared parameter.
  void apply_override(const std::string& assignment);

  /// Takes top-level sections from `other` (e.g. a system preset for `run --system`): each
  /// section in `replaced` becomes other's (absent there: absent here, so defaults apply),
  /// each in `merged` gets other's values on top of its own. Origins follow the values.
  void take_sections(const ConfigDoc& other, const std::vector<std::string>& replaced,
                     const std::vector<std::string>& merged);

  const Json& root() const { return root_; }
  Json& resolved() { return resolved_; }
  const Json& resolved() const { return resolved_; }
  /// The file that set the value at `pointer` (or its nearest set ancestor).
  /// Names `origin` (e.g. "--input data.json") as where the value at `pointer` and below
  /// came from, for error messages (a CLI flag copied into the config by apply_override).
  void set_origin(const std::string& pointer, const std::string& origin);
  std::string origin_of(const std::string& pointer) const;
  /// The top-level file name.
  const std::string& main_file() const { return main_file_; }

 private:
  Json root_ = Json::object();
  Json resolved_ = Json::object();
  std::map<std::string, std::string> origin_;
  std::string main_file_;
  friend class ConfigNode;
};

/// Typed, strict view of one JSON object inside a ConfigDoc. Every `get_*` consults the
/// ParamRegistry for the default, unit and range of `<path>/<key>`, and records the value
/// in the resolved tree. `finish()` reports keys that nobody read as unknown.
class ConfigNode {
 public:
  ConfigNode(ConfigDoc& doc, std::string pointer);

  /// JSON pointer of this object ("" for the root).
  const std::string& path() const { return pointer_; }
  bool has(const std::string& key) const;

  double get_double(const std::string& key);
  std::int64_t get_int(const std::string& key);
  std::uint64_t get_uint(const std::string& key);
  bool get_bool(const std::string& key);
  std::string get_string(const std::string& key);
  /// A string that must be one of the spec's `choices`.
  std::string get_enum(const std::string& key);
  /// Raw JSON (declared with ParamType::Json), e.g. explicit per-tile byte lists.
  Json get_json(const std::string& key);

  /// A nested object (an absent key gives an empty object, so its defaults apply).
  ConfigNode child(const std::string& key);
  /// A nested array of objects.
  std::vector<ConfigNode> children(const std::string& key);
  /// Marks a key as read without interpreting it (e.g. "kind" dispatch handled elsewhere).
  void mark_used(const std::string& key);
  /// Marks `key` as read and records `value` as its resolved value: a default derived from
  /// other settings (e.g. replicas = IPUs / IPUs per replica), so resolved_config.json has it.
  void resolve(const std::string& key, const Json& value);

  /// Throws ConfigError for the first key that was never read (file, path, allowed keys,
  /// "did you mean"). Call after reading all keys of this object.
  void finish() const;

  /// Builds a ConfigError message for a bad value at `key` (path and file included).
  [[noreturn]] void fail(const std::string& key, const std::string& what) const;
  /// The file that set the value at `key` (relative paths in a config resolve against it).
  std::string origin(const std::string& key) const;

 private:
  const Json* lookup(const std::string& key) const;
  Json value_or_default(const std::string& key, const struct ParamSpec*& spec);
  ConfigDoc* doc_;
  std::string pointer_;
  std::vector<std::string> used_;
};

/// Levenshtein-closest candidate, or "" if none is reasonably close.
std::string closest_match(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace ipusim
