#pragma once
// Reading JSON input with limits, so that no input can hang or exhaust the machine: only
// regular files (a FIFO would block for ever, a directory or /proc/self/mem fails inside
// the stream), at most kMaxJsonFileBytes per file, at most kMaxJsonDepth levels of nesting
// (checked while parsing, before anything deep is built), no key or string longer than
// kMaxJsonStringBytes or holding an escaped NUL, and number overflow ("1e999") reported as
// bad input naming the file and the JSON path. A UTF-8 byte order mark at the start of a
// file is skipped (RFC 8259 section 8.1 lets parsers ignore it; some editors write one). Every
// error is a ConfigError (exit 2) whose message names the limit it hit.
#include <cstddef>
#include <cstdint>
#include <string>

#include "sim/json.hpp"

namespace ipusim {

/// Deepest nesting of arrays/objects accepted in any JSON input (configs, sweeps, cases).
constexpr std::size_t kMaxJsonDepth = 256;
/// Largest JSON input file accepted, in bytes (the largest preset is a few KB).
constexpr std::uintmax_t kMaxJsonFileBytes = 64ull << 20;
/// Longest key or string value accepted, in bytes (names and descriptions are short).
constexpr std::size_t kMaxJsonStringBytes = 1ull << 20;

/// Parses `text` as JSON. `origin` (a file name, or e.g. "--mapping-json") starts every
/// error message; syntax errors keep nlohmann's line/column text, depth and number errors
/// name the JSON path where they occurred.
Json parse_json_text(const std::string& text, const std::string& origin);

/// Reads a whole input file. `path` must name a regular file (after following symlinks) of
/// at most kMaxJsonFileBytes; `what` describes it in errors ("config file", "included file").
std::string read_input_file(const std::string& path, const std::string& what);

/// read_input_file() + parse_json_text().
Json read_json_input(const std::string& path, const std::string& what = "file");

}  // namespace ipusim
