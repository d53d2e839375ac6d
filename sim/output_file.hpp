#pragma once
// Output files that cannot lie: every result file is written to a temporary name in the
// same folder, flushed to disk, checked, and only then renamed over the final name. A full
// disk, an I/O error or a file-size limit therefore never leaves a truncated report.json
// (or an empty resolved_config.json) under the name a user or a sweep would read; the
// error names the file and becomes exit code 3.
#include <functional>
#include <ostream>
#include <string>

#include "sim/errors.hpp"

namespace ipusim {

/// A result file could not be written completely (ENOSPC, EIO, EFBIG, ...). It is a
/// SimulationError, so the CLI exits with 3; the message names the file and the reason.
class WriteError : public SimulationError {
 public:
  using SimulationError::SimulationError;
};

/// Writes `path` atomically: `produce` streams the content into a temporary file next to
/// `path` (".NAME.tmp.PID.N"), which is then flushed, fsync'ed, closed and renamed over
/// `path`. On any failure the temporary file is removed, `path` keeps its previous content
/// (or stays absent) and WriteError is thrown. Exceptions thrown by `produce` also remove
/// the temporary file and propagate unchanged.
void write_file_atomic(const std::string& path, const std::function<void(std::ostream&)>& produce);

/// write_file_atomic() without throwing on a write failure: returns the WriteError message
/// ("" on success), with the same guarantees about `path` and the temporary file. For the
/// CLI's writes after sc_start, where a throw would confuse AddressSanitizer (SystemC's
/// coroutine stacks are still alive). Exceptions thrown by `produce` still propagate.
std::string try_write_file_atomic(const std::string& path,
                                  const std::function<void(std::ostream&)>& produce);

/// write_file_atomic() for a string that is already in memory.
void write_text_file_atomic(const std::string& path, const std::string& text);

}  // namespace ipusim
