#include "sim/json_parse.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "sim/errors.hpp"

namespace ipusim {
namespace {

/// Where the parser is: one entry per open array/object, with the current key or index.
/// Kept up to date from nlohmann's parser callback, so that an error thrown by the lexer
/// (number overflow) or by the depth check can name the JSON path.
struct PathTracker {
  struct Level {
    bool array = false;
    std::size_t index = 0;
    std::string key;
  };
  std::vector<Level> levels;

  std::string pointer() const { return pointer(levels.size()); }

  /// The pointer made of the first `count` levels (count = levels.size() - 1: the innermost
  /// container itself, without its current key).
  std::string pointer(std::size_t count) const {
    std::string out;
    for (std::size_t i = 0; i < count && i < levels.size(); ++i) {
      const Level& l = levels[i];
      out += "/";
      out += l.array ? std::to_string(l.index) : l.key;
      if (out.size() > 200) return out.substr(0, 200) + "...";  // a readable prefix of a deep path
    }
    return out.empty() ? "/" : out;
  }

  /// A value (scalar or closed container) completed in the current container.
  void value_done() {
    if (!levels.empty() && levels.back().array) ++levels.back().index;
  }
};

std::string errno_text() { return std::strerror(errno); }

/// Refuses a key or string value that no config needs and that would misbehave later: an
/// escaped NUL (C APIs, file names and terminals cut the text there) or more than
/// kMaxJsonStringBytes (names and descriptions are short; data are numbers).
void check_string(const std::string& origin, const std::string& pointer, const std::string& text,
                  bool is_key) {
  const char* what = is_key ? "a key" : "a string";
  if (text.size() > kMaxJsonStringBytes) {
    throw ConfigError(origin + ": " + pointer + ": " + what + " of " + std::to_string(text.size()) +
                      " bytes, more than the limit of " + std::to_string(kMaxJsonStringBytes) +
                      " bytes per JSON string");
  }
  if (text.find('\0') != std::string::npos) {
    throw ConfigError(origin + ": " + pointer + ": " + what +
                      " holds a NUL character (\\u0000) at byte " +
                      std::to_string(text.find('\0')) + "; NUL is not allowed in keys or strings");
  }
}

}  // namespace

Json parse_json_text(const std::string& text, const std::string& origin) {
  PathTracker where;
  using Event = Json::parse_event_t;
  Json::parser_callback_t track = [&](int /*depth*/, Event event, Json& parsed) -> bool {
    switch (event) {
      case Event::object_start:
      case Event::array_start:
        if (where.levels.size() >= kMaxJsonDepth) {
          throw ConfigError(origin + ": " + where.pointer() + ": JSON nested deeper than " +
                            std::to_string(kMaxJsonDepth) + " levels (the limit on JSON nesting)");
        }
        where.levels.push_back({event == Event::array_start, 0, ""});
        break;
      case Event::key:
        if (!where.levels.empty())
          where.levels.back().key = parsed.is_string() ? parsed.get<std::string>() : "";
        // A bad key is named by its object's path (the key itself may be 1 MiB or hold a NUL).
        if (parsed.is_string())
          check_string(origin, where.pointer(where.levels.size() - 1),
                       parsed.get_ref<const std::string&>(), true);
        break;
      case Event::object_end:
      case Event::array_end:
        if (!where.levels.empty()) where.levels.pop_back();
        where.value_done();
        break;
      case Event::value:
        if (parsed.is_string())
          check_string(origin, where.pointer(), parsed.get_ref<const std::string&>(), false);
        where.value_done();
        break;
    }
    return true;
  };
  try {
    return Json::parse(text, track);
  } catch (const Json::parse_error& e) {
    throw ConfigError(origin + ": invalid JSON: " + e.what());
  } catch (const Json::out_of_range& e) {
    // 406: number overflow ("1e999"); the lexer throws before the value reaches the callback.
    std::string what = e.what();
    const auto colon = what.find("] ");
    if (colon != std::string::npos) what = what.substr(colon + 2);
    throw ConfigError(origin + ": " + where.pointer() + ": " + what +
                      " (numbers must fit in a 64-bit double or integer)");
  }
}

std::string read_input_file(const std::string& path, const std::string& what) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    throw ConfigError("cannot open " + what + " '" + path + "': " + errno_text());
  if (!S_ISREG(st.st_mode)) {
    const char* kind = S_ISDIR(st.st_mode)    ? "a directory"
                       : S_ISFIFO(st.st_mode) ? "a FIFO"
                       : S_ISCHR(st.st_mode)  ? "a character device"
                       : S_ISSOCK(st.st_mode) ? "a socket"
                                              : "not a regular file";
    throw ConfigError(what + " '" + path + "' is " + kind + " (only regular files are read)");
  }
  if (static_cast<std::uintmax_t>(st.st_size) > kMaxJsonFileBytes) {
    throw ConfigError(what + " '" + path + "' has " + std::to_string(st.st_size) +
                      " bytes, more than the limit of " + std::to_string(kMaxJsonFileBytes) +
                      " bytes per input file");
  }
  // O_NONBLOCK: should the file have been swapped for a FIFO after stat(), open() must not hang.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) throw ConfigError("cannot open " + what + " '" + path + "': " + errno_text());
  std::string text;
  char buffer[1 << 16];
  while (true) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0) {
      if (errno == EINTR) continue;
      const std::string err = errno_text();
      ::close(fd);
      throw ConfigError("cannot read " + what + " '" + path + "': " + err);
    }
    if (n == 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
    if (text.size() > kMaxJsonFileBytes) {  // files whose stat size lies (/proc)
      ::close(fd);
      throw ConfigError(what + " '" + path + "' is larger than the limit of " +
                        std::to_string(kMaxJsonFileBytes) + " bytes per input file");
    }
  }
  ::close(fd);
  return text;
}

Json read_json_input(const std::string& path, const std::string& what) {
  return parse_json_text(read_input_file(path, what), path);
}

}  // namespace ipusim
