#pragma once
// Simulates cases at a point of parameter space: one child `ipusim run` per case (in
// parallel, through the sweep's job runner), the report value at the case's report_path
// times its scale. Results are cached by (parameter vector, case); the cache can live in a
// JSON-lines file so that an interrupted calibration resumes without re-running points.
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "tools/calibration/case_file.hpp"

namespace ipusim::cli {

/// One case's simulated value at one parameter point.
struct CaseValue {
  bool ok = false;
  double simulated = 0.0;  ///< report value × scale
  std::string error;       ///< why the run failed ("" when ok)
};

/// Runs cases with parameter overrides, remembering every result.
class CaseRunner {
 public:
  /// `work_dir` holds one folder per case; `extra_sets` apply to every run (before the
  /// parameter overrides); `cache_file` ("" = none) is read now and appended to later.
  CaseRunner(std::string work_dir, unsigned jobs, std::vector<std::string> extra_sets,
             std::string cache_file);

  /// The value of every case with `param_sets` ("/a/b=1.5" ...) applied last. Throws
  /// ConfigError when a report lacks the case's report_path or it is not a number.
  std::vector<CaseValue> evaluate(const std::vector<CaseSpec>& cases,
                                  const std::vector<std::string>& param_sets);

  /// Called after each simulation that really ran (not for cache hits).
  void on_run(std::function<void(bool failed)> callback) { on_run_ = std::move(callback); }
  /// Simulations run so far and results taken from the cache.
  std::size_t runs() const { return runs_; }
  std::size_t cache_hits() const { return hits_; }
  /// Simulations that failed so far, and the first failure ("case: error").
  std::size_t failed_runs() const { return failed_runs_; }
  const std::string& first_failure() const { return first_failure_; }
  /// Entries loaded from the cache file at construction.
  std::size_t resumed_entries() const { return resumed_; }

 private:
  std::string key(const CaseSpec& c, const std::vector<std::string>& param_sets) const;
  void append_to_cache_file(const std::string& key, const CaseValue& v) const;
  static std::string exact_scale(const CaseSpec& c);

  std::string work_dir_;
  unsigned jobs_;
  std::vector<std::string> extra_sets_;
  std::string cache_file_;
  std::map<std::string, CaseValue> cache_;
  std::function<void(bool)> on_run_;
  std::size_t runs_ = 0;
  std::size_t hits_ = 0;
  std::size_t resumed_ = 0;
  std::size_t failed_runs_ = 0;
  std::string first_failure_;
};

}  // namespace ipusim::cli
