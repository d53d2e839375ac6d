// Algorithm "best" and check_auto of the collective kind (collective_best.hpp).
#include "runtime/workloads/collective/collective_best.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "collectives/algorithms/auto_select.hpp"
#include "collectives/algorithms/best_candidates.hpp"
#include "collectives/algorithms/step_count.hpp"
#include "runtime/workloads/collective/forked_trial.hpp"
#include "sim/errors.hpp"
#include "sim/kernel_run.hpp"
#include "sim/resource_guard.hpp"

namespace ipusim {
namespace {

/// Bytes a trial holds per transfer of one superstep, a lower bound: the streamed step's
/// transfer (24 B), its cached route and its flow in the network engine. Measured: a direct
/// AllReduce over 1,024 IPUs (2 steps of 1.05 M transfers) peaks at 878 MB, ~800 B each.
constexpr double kTrialBytesPerStepTransfer = 300;

/// Why a candidate's trial would not fit in memory ("" when it may): its supersteps
/// average more transfers than /sim/max_memory_bytes holds (e.g. direct over 16,384 replicas:
/// 268 M transfers in one step).
std::string too_large_for_memory(const coll::CollectiveRequest& request) {
  const double limit = resource_limits().max_memory_bytes;
  const coll::StepCount c = coll::count_steps(request);
  if (limit <= 0 || c.steps == 0) return "";
  const double per_step = static_cast<double>(c.transfers) / static_cast<double>(c.steps);
  const double bytes = per_step * kTrialBytesPerStepTransfer;
  if (bytes <= limit) return "";
  char text[240];
  std::snprintf(text, sizeof text,
                "its supersteps average %.4g transfers, at least %s in memory, more than "
                "/sim/max_memory_bytes = %s",
                per_step, format_bytes(bytes).c_str(), format_bytes(limit).c_str());
  return text;
}

}  // namespace

/// The report's `auto_vs_best` (with best or check_auto): auto's and the fastest candidate's
/// times, and whether auto is more than `warn_pct` slower.
Json auto_vs_best(const Json& b, double warn_pct) {
  const Json slowdown = b["auto_slowdown_pct"];
  return Json{{"auto", b["auto_choice"]},
              {"auto_time_ns", b["auto_time_ns"]},
              {"best", b["chosen"]},
              {"best_time_ns", b["chosen_time_ns"]},
              {"auto_slowdown_pct", slowdown},
              {"warn_above_pct", warn_pct},
              {"warning", slowdown.is_number() && slowdown.get<double>() > warn_pct}};
}

/// Summary lines of algorithm "best": the choice, auto's, and every candidate's time.
std::string best_summary(const Json& b) {
  std::ostringstream out;
  char line[200];
  std::snprintf(line, sizeof line, "  best             %s in %.3f ns; auto (GCL's rule) picks %s",
                b["chosen"].get<std::string>().c_str(), b["chosen_time_ns"].get<double>(),
                b["auto_choice"].get<std::string>().c_str());
  out << line;
  if (b["auto_agrees"].get<bool>()) {
    out << " too\n";
  } else if (b["auto_time_ns"].is_number()) {
    std::snprintf(line, sizeof line, ", %.3f ns (+%.2f %%)\n", b["auto_time_ns"].get<double>(),
                  b["auto_slowdown_pct"].get<double>());
    out << line;
  } else {
    out << "\n";
  }
  for (const Json& c : b["candidates"]) {
    std::snprintf(line, sizeof line, "    %-20s %16.3f ns\n",
                  c["algorithm"].get<std::string>().c_str(), c["time_ns"].get<double>());
    out << line;
  }
  for (const Json& c : b["not_applicable"])
    out << "    " << c["algorithm"].get<std::string>() << ": not applicable\n";
  return out.str();
}

/// algorithm "best": simulates every algorithm that can run this request, each in a forked
/// trial (its own copy of the elaborated system, so the reported run carries no trial
/// traffic), and sets the request to the fastest (unless `keep_auto`: check_auto, the same
/// trials with auto still played); ties go to the earlier candidate in best_candidates()
/// order. Warns when auto is more than auto_warn_pct slower than the fastest. Records every
/// candidate's time and what auto picks. The trials share the run's /sim/max_wall_s deadline: a
/// trial still running at it stops (between events) and the run ends with a SimulationError (exit
/// 3) naming the candidate and the simulated time it had reached.
void choose_best(ConfigNode& node, System& system, CollectiveSpec& spec, bool keep_auto,
                 PlayTrial play) {
  coll::CollectiveRequest req = spec.request;
  req.algorithm = coll::Algorithm::Auto;
  const coll::Algorithm auto_choice = coll::select_algorithm(req);
  Json candidates = Json::array(), not_applicable = Json::array(), failed = Json::array();
  coll::Algorithm chosen = coll::Algorithm::Auto;
  double chosen_ns = 0, auto_ns = -1;
  for (const coll::Algorithm a : coll::best_candidates()) {
    req.algorithm = a;
    std::string reason = coll::why_not_candidate(req);
    if (reason.empty()) reason = too_large_for_memory(req);
    if (!reason.empty()) {
      not_applicable.push_back({{"algorithm", coll::to_string(a)}, {"reason", reason}});
      continue;
    }
    CollectiveSpec trial = spec;
    trial.request.algorithm = a;
    trial.best = false;
    trial.check_auto = false;
    trial.repeat = 1;
    trial.data = "none";
    trial.input = Json();
    const std::string which = "algorithm best: the trial of candidate '" + coll::to_string(a) + "'";
    const double limit_s = wall_limit_s();
    std::ostringstream limit_text;
    limit_text << limit_s;
    if (limit_s > 0 && wall_seconds_left() <= 0) {
      throw SimulationError(which + " did not start: the /sim/max_wall_s limit of " +
                            limit_text.str() +
                            " s was reached before it (building the system or simulating the "
                            "earlier candidates; raise /sim/max_wall_s, or name an algorithm)");
    }
    const Json got = run_forked_trial(
        [&system, &trial, limit_s, play]() -> Json { return play(system, trial, limit_s); },
        // Backstop: a trial that cannot stop itself (e.g. still elaborating) is killed 1 s after
        // the deadline.
        limit_s > 0 ? std::max(0.0, wall_seconds_left()) + 1.0 : 0.0);
    if (got.contains("wall_limit")) {
      throw SimulationError(which + " was stopped: " + got["wall_limit"].get<std::string>() +
                            "; naming an algorithm instead of best skips the trials");
    }
    if (got.value("timed_out", false)) {
      throw SimulationError(
          which + " was stopped: it was still running 1 s after the /sim/max_wall_s limit of " +
          limit_text.str() + " s (raise /sim/max_wall_s, or name an algorithm)");
    }
    if (!got.contains("time_ns")) {
      failed.push_back(
          {{"algorithm", coll::to_string(a)}, {"error", got.value("error", std::string("?"))}});
      continue;
    }
    const double ns = got["time_ns"].get<double>();
    candidates.push_back({{"algorithm", coll::to_string(a)}, {"time_ns", ns}});
    if (a == auto_choice) auto_ns = ns;
    if (chosen == coll::Algorithm::Auto || ns < chosen_ns) {
      chosen = a;
      chosen_ns = ns;
    }
  }
  if (chosen == coll::Algorithm::Auto) {
    node.fail("algorithm", "best: no candidate algorithm could be simulated" +
                               (failed.empty() ? std::string() : " (" + failed.dump() + ")"));
  }
  if (!keep_auto) spec.request.algorithm = chosen;
  Json r = Json::object();
  r["chosen"] = coll::to_string(chosen);
  r["chosen_time_ns"] = chosen_ns;
  r["auto_choice"] = coll::to_string(auto_choice);
  r["auto_time_ns"] = auto_ns >= 0 ? Json(auto_ns) : Json(nullptr);
  r["auto_agrees"] = auto_choice == chosen;
  // How much slower GCL's rule is than the model's fastest (0 when they agree).
  r["auto_slowdown_pct"] = auto_ns >= 0 && chosen_ns > 0
                               ? Json(100.0 * (auto_ns - chosen_ns) / chosen_ns)
                               : Json(nullptr);
  r["candidates"] = candidates;
  r["not_applicable"] = not_applicable;
  if (!failed.empty()) r["failed"] = failed;
  spec.best_report = r;
  const Json check = auto_vs_best(r, spec.auto_warn_pct);
  if (check["warning"].get<bool>()) {
    spdlog::warn(
        "algorithm auto (GCL's rule) picks {} and takes {:.3f} ns, {:.1f} % slower than {} ({:.3f} "
        "ns), the "
        "fastest algorithm the model finds (warns above /workload/auto_warn_pct = {} %)",
        check["auto"].get<std::string>(), check["auto_time_ns"].get<double>(),
        check["auto_slowdown_pct"].get<double>(), check["best"].get<std::string>(),
        check["best_time_ns"].get<double>(), spec.auto_warn_pct);
  }
}

}  // namespace ipusim
