// The plan's result entries, Pareto front, ranking and tables (plan_result.hpp).
#include "tools/plan/plan_result.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "sim/errors.hpp"
#include "tools/common/cli_util.hpp"

namespace ipusim::cli {

namespace {

bool usable(const Json& e) {
  const auto fits = e.find("fits");
  return e.value("status", "") == "ok" && fits != e.end() && fits->is_boolean() &&
         fits->get<bool>();
}

double num(const Json& e, const char* key) {
  const auto it = e.find(key);
  return it != e.end() && it->is_number() ? it->get<double>() : 0.0;
}

std::string short_config(const Json& c) {
  std::string s = std::to_string(c["replicas"].get<long long>()) + "x" +
                  std::to_string(c["ipus_per_replica"].get<long long>()) + " " +
                  c["execution"].get<std::string>();
  if (!c["layers_per_ipu"].empty()) s += " " + c["layers_per_ipu"].dump();
  s += " mb" + std::to_string(c["micro_batch"].get<long long>()) + " acc" +
       std::to_string(c["accumulation_factor"].get<long long>()) +
       " rts:" + c["rts"].get<std::string>();
  auto where = [](const Json& v) { return v.get<std::string>() == "on_chip" ? "on" : "off"; };
  s += std::string(" w/opt/act:") + where(c["weights"]) + "/" + where(c["optimizer_state"]) + "/" +
       where(c["activations"]);
  if (c["io_tiles"].get<long long>() > 0)
    s += " io" + std::to_string(c["io_tiles"].get<long long>());
  s += " rec:" + c["recomputation"].get<std::string>();
  if (c["batch_serialisation"].get<long long>() > 1)
    s += " bs" + std::to_string(c["batch_serialisation"].get<long long>());
  return s;
}

}  // namespace

PlanObjective parse_objective(const std::string& text) {
  check_choice("--objective", text, {"throughput", "memory", "balanced"});
  if (text == "memory") return PlanObjective::Memory;
  if (text == "balanced") return PlanObjective::Balanced;
  return PlanObjective::Throughput;
}

void fill_measured(Json& entry, const Json& row) {
  const std::string status = row.value("status", "pending");
  entry["status"] = status;
  entry["error"] = row.value("error", "");
  auto copy = [&](const char* key, const char* column) {
    const auto it = row.find(column);
    entry[key] = (status == "ok" && it != row.end() && it->is_number()) ? *it : Json();
  };
  copy("samples_per_s", "workload.samples_per_s");
  copy("time_per_step_ns", "step_time_ns");
  copy("sram_bytes_per_tile", "memory.max_tile_bytes");
  copy("streaming_memory_bytes", "memory.streaming_memory_per_machine_bytes");
  const auto fits = row.find("memory.fits");
  entry["fits"] = status == "ok" && fits != row.end() && fits->is_number()
                      ? Json(fits->get<double>() != 0)
                      : Json();
}

std::vector<std::size_t> mark_pareto(std::vector<Json>& entries) {
  std::vector<std::size_t> candidates;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    entries[i]["pareto"] = false;
    if (usable(entries[i])) candidates.push_back(i);
  }
  std::vector<std::size_t> front;
  for (std::size_t i : candidates) {
    const double t = num(entries[i], "samples_per_s"), m = num(entries[i], "sram_bytes_per_tile"),
                 s = num(entries[i], "streaming_memory_bytes");
    bool dominated = false;
    for (std::size_t j : candidates) {
      const double tj = num(entries[j], "samples_per_s"),
                   mj = num(entries[j], "sram_bytes_per_tile"),
                   sj = num(entries[j], "streaming_memory_bytes");
      if (tj >= t && mj <= m && sj <= s && (tj > t || mj < m || sj < s)) {
        dominated = true;
        break;
      }
    }
    if (!dominated) {
      entries[i]["pareto"] = true;
      front.push_back(i);
    }
  }
  std::stable_sort(front.begin(), front.end(), [&](std::size_t a, std::size_t b) {
    return num(entries[a], "samples_per_s") > num(entries[b], "samples_per_s");
  });
  return front;
}

std::vector<std::size_t> rank_entries(const std::vector<Json>& entries, PlanObjective objective,
                                      double sram_per_tile_bytes) {
  std::vector<std::size_t> ranked;
  double best = 0;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (!usable(entries[i])) continue;
    ranked.push_back(i);
    best = std::max(best, num(entries[i], "samples_per_s"));
  }
  auto by_throughput = [&](std::size_t a, std::size_t b) {
    return num(entries[a], "samples_per_s") > num(entries[b], "samples_per_s");
  };
  auto distance = [&](std::size_t i) {
    const double dt = 1 - num(entries[i], "samples_per_s") / best;
    const double dm = num(entries[i], "sram_bytes_per_tile") / sram_per_tile_bytes;
    return std::hypot(dt, dm);
  };
  std::stable_sort(ranked.begin(), ranked.end(), [&](std::size_t a, std::size_t b) {
    switch (objective) {
      case PlanObjective::Memory: {
        const double ma = num(entries[a], "sram_bytes_per_tile"),
                     mb = num(entries[b], "sram_bytes_per_tile");
        return ma != mb ? ma < mb : by_throughput(a, b);
      }
      case PlanObjective::Balanced: {
        const bool pa = entries[a].value("pareto", false), pb = entries[b].value("pareto", false);
        if (pa != pb) return pa;
        if (pa) return distance(a) < distance(b);
        return by_throughput(a, b);
      }
      case PlanObjective::Throughput:
        break;
    }
    return by_throughput(a, b);
  });
  return ranked;
}

std::string plan_table(const std::vector<Json>& entries, const std::vector<std::size_t>& indices) {
  std::string out =
      "      #   samples/s    step ms   SRAM B/tile  stream MB/machine  configuration\n";
  for (std::size_t i : indices) {
    const Json& e = entries[i];
    char line[160];
    std::snprintf(line, sizeof line, "  %5zu %11.1f %10.2f %13.0f %18.1f  ", i,
                  num(e, "samples_per_s"), num(e, "time_per_step_ns") / 1e6,
                  num(e, "sram_bytes_per_tile"), num(e, "streaming_memory_bytes") / 1e6);
    out += line + short_config(e["config"]) + "\n";
  }
  return out;
}

}  // namespace ipusim::cli
