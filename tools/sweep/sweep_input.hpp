#pragma once
// Strict reading of the tools' own input files (sweep files, regress cases, validation
// references): typed reads whose errors name the file, the JSON path and what was
// expected, and rejection of unknown keys with a "did you mean".
#include <string>
#include <vector>

#include "sim/json.hpp"

namespace ipusim::cli {

/// Reads and parses a JSON file; ConfigError names the file and the parse position.
Json read_json_file(const std::string& path);

/// Writes `value` as pretty JSON (2-space indent, trailing newline); ConfigError on failure.
void write_json_pretty(const std::string& path, const Json& value);

/// Short description of a JSON value for error messages ("the string \"x\"", "a list").
std::string describe_json(const Json& value);

/// A strict view of one JSON object inside an input file.
class StrictObject {
 public:
  /// Wraps `value` found at `pointer` in `file`; throws ConfigError if it is not an object.
  StrictObject(const Json& value, std::string file, std::string pointer);

  /// Throws ConfigError for the first key not in `allowed` (with the allowed keys).
  void allow_only(const std::vector<std::string>& allowed) const;
  /// True if the key is present.
  bool has(const std::string& key) const;
  /// The raw value of a required key.
  const Json& required(const std::string& key) const;
  /// A required string.
  std::string string(const std::string& key) const;
  /// An optional string.
  std::string string_or(const std::string& key, const std::string& fallback) const;
  /// A required number.
  double number(const std::string& key) const;
  /// An optional number.
  double number_or(const std::string& key, double fallback) const;
  /// An optional list of strings (empty when absent).
  std::vector<std::string> string_list(const std::string& key) const;
  /// The JSON pointer of a key inside this object.
  std::string pointer_of(const std::string& key) const;
  /// Throws ConfigError "<file>: <pointer>/<key>: <what>".
  [[noreturn]] void fail(const std::string& key, const std::string& what) const;

  const Json& json() const { return *value_; }
  const std::string& file() const { return file_; }
  const std::string& pointer() const { return pointer_; }

 private:
  const Json* value_;
  std::string file_;
  std::string pointer_;
};

/// Checks that `pointer` is a valid JSON pointer ("/a/b/0"); ConfigError at `where` if not.
void check_json_pointer(const std::string& pointer, const std::string& where);

/// The value at a JSON pointer in `doc`, or nullptr if absent (or the pointer is invalid).
const Json* find_pointer(const Json& doc, const std::string& pointer);

}  // namespace ipusim::cli
