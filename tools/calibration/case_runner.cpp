#include "tools/calibration/case_runner.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "sim/errors.hpp"
#include "sim/output_file.hpp"
#include "tools/sweep/sweep_input.hpp"
#include "tools/sweep/sweep_jobs.hpp"

namespace ipusim::cli {
namespace fs = std::filesystem;

CaseRunner::CaseRunner(std::string work_dir, unsigned jobs, std::vector<std::string> extra_sets,
                       std::string cache_file)
    : work_dir_(std::move(work_dir)),
      jobs_(std::max(1u, jobs)),
      extra_sets_(std::move(extra_sets)),
      cache_file_(std::move(cache_file)) {
  if (cache_file_.empty() || !fs::is_regular_file(cache_file_)) return;
  std::ifstream in(cache_file_);
  std::string line;
  std::size_t number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty()) continue;
    Json entry;
    try {
      entry = Json::parse(line);
    } catch (const Json::parse_error&) {
      // An interrupted write leaves a partial last line: that point simply runs again.
      continue;
    }
    if (!entry.is_object() || !entry.contains("key") || !entry["key"].is_string()) {
      throw ConfigError(cache_file_ + ": line " + std::to_string(number) +
                        ": expected {\"key\": ..., \"ok\": ...}");
    }
    CaseValue v;
    v.ok = entry.value("ok", false);
    v.simulated = entry.value("simulated", 0.0);
    v.error = entry.value("error", "");
    cache_[entry["key"].get<std::string>()] = v;
    ++resumed_;
  }
}

std::string CaseRunner::key(const CaseSpec& c, const std::vector<std::string>& param_sets) const {
  // The parameter vector first (the point), then what identifies the case's run.
  std::string k;
  for (const auto& s : param_sets) k += s + ";";
  k += " | " + c.where + " | " + c.name + " | " + c.config + " | " + c.report_path + " | " +
       exact_scale(c);
  for (const auto& s : c.sets) k += " | " + s;
  for (const auto& s : extra_sets_) k += " | " + s;
  return k;
}

std::string CaseRunner::exact_scale(const CaseSpec& c) { return Json(c.scale).dump(); }

void CaseRunner::append_to_cache_file(const std::string& k, const CaseValue& v) const {
  // Failed runs stay out of the file: a resumed calibration retries them.
  if (cache_file_.empty() || !v.ok) return;
  Json entry = {{"key", k}, {"ok", v.ok}};
  if (v.ok)
    entry["simulated"] = v.simulated;
  else
    entry["error"] = v.error;
  const std::string line = entry.dump() + "\n";
  // One write() of the whole line; if it is cut short (a full disk), the file is cut back
  // to where it was, so no partial line is left for the next append to run into.
  const int fd = ::open(cache_file_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
  if (fd < 0)
    throw WriteError("cannot append to the evaluation cache " + cache_file_ + ": " +
                     std::strerror(errno));
  struct stat before {};
  const bool sized = ::fstat(fd, &before) == 0;
  ssize_t n = 0;
  while ((n = ::write(fd, line.data(), line.size())) < 0 && errno == EINTR) {
  }
  const int err = n < 0 ? errno : (static_cast<std::size_t>(n) < line.size() ? ENOSPC : 0);
  if (err != 0 && sized) {
    [[maybe_unused]] const int cut = ::ftruncate(fd, before.st_size);
  }
  ::close(fd);
  if (err != 0) {
    throw WriteError("cannot append to the evaluation cache " + cache_file_ + ": " +
                     std::strerror(err));
  }
}

std::vector<CaseValue> CaseRunner::evaluate(const std::vector<CaseSpec>& cases,
                                            const std::vector<std::string>& param_sets) {
  std::vector<CaseValue> values(cases.size());
  std::vector<RunJob> jobs;
  std::vector<std::size_t> which;  // case index of each job
  for (std::size_t i = 0; i < cases.size(); ++i) {
    auto it = cache_.find(key(cases[i], param_sets));
    if (it != cache_.end()) {
      values[i] = it->second;
      ++hits_;
      continue;
    }
    std::vector<std::string> sets = cases[i].sets;
    sets.insert(sets.end(), extra_sets_.begin(), extra_sets_.end());
    sets.insert(sets.end(), param_sets.begin(), param_sets.end());
    jobs.push_back(
        {cases[i].config, sets,
         (fs::path(work_dir_) / (std::to_string(i) + "_" + safe_name(cases[i].name))).string()});
    which.push_back(i);
  }
  if (jobs.empty()) return values;
  std::string bad_pointer;  // the first report-path problem, thrown after all children end
  run_jobs(jobs, jobs_, [&](std::size_t j, const RunOutcome& o) {
    const CaseSpec& c = cases[which[j]];
    CaseValue v;
    if (!o.ok) {
      v.error = o.error;
    } else {
      const Json* got = find_pointer(o.report, c.report_path);
      if (!got || !got->is_number()) {
        if (bad_pointer.empty()) {
          bad_pointer = c.where + ": /report_path: " + c.report_path +
                        (got ? " is " + describe_json(*got) + " in the report, expected a number"
                             : " is not in the report of " + c.config);
        }
        v.error = "report_path not in the report";
      } else {
        v.ok = true;
        v.simulated = got->get<double>() * c.scale;
      }
    }
    values[which[j]] = v;
    ++runs_;
    if (!v.ok && failed_runs_++ == 0) first_failure_ = c.name + ": " + v.error;
    if (on_run_) on_run_(!v.ok);
  });
  if (!bad_pointer.empty()) throw ConfigError(bad_pointer);
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    const std::string k = key(cases[which[j]], param_sets);
    cache_[k] = values[which[j]];
    append_to_cache_file(k, values[which[j]]);
  }
  return values;
}

}  // namespace ipusim::cli
