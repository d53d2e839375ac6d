#include "runtime/exec/watchdog.hpp"

#include <map>
#include <sstream>
#include <utility>

namespace ipusim::rt {
namespace {

std::string op_text(const LPhase& ph, std::size_t i) {
  const LOp& op = ph.ops[i];
  return "op " + std::to_string(i) + " '" + (op.label.empty() ? to_string(op.kind) : op.label) +
         "'";
}

}  // namespace

std::string describe_stall(const Program& program, std::size_t phase, const std::vector<char>& done,
                           std::size_t max_lanes) {
  if (phase >= program.phases.size()) return "";
  const LPhase& ph = program.phases[phase];
  // The first op not done of each (virtual graph, lane), in program order.
  std::map<std::pair<int, int>, std::size_t> first;
  for (std::size_t i = 0; i < ph.ops.size(); ++i) {
    if (i < done.size() && done[i]) continue;
    first.emplace(std::make_pair(ph.ops[i].vg, static_cast<int>(ph.ops[i].lane)), i);
  }
  if (first.empty()) return "";
  std::ostringstream out;
  out << "phase " << phase << " (PopART phase " << ph.index << ", repetition " << ph.repetition
      << "): ";
  std::size_t listed = 0;
  for (const auto& [lane, i] : first) {
    if (listed == max_lanes) {
      out << "; and " << first.size() - listed << " more lanes";
      break;
    }
    const LOp& op = ph.ops[i];
    out << (listed++ ? "; " : "") << op_text(ph, i) << " (virtual graph " << op.vg << ", lane "
        << to_string(op.lane) << ")";
    std::string waits;
    for (int d : op.deps) {
      const auto k = static_cast<std::size_t>(d);
      if (k < done.size() && done[k]) continue;
      waits += (waits.empty() ? "" : ", ") +
               (k < ph.ops.size() ? op_text(ph, k) : "op " + std::to_string(d) + " (no such op)");
    }
    out << (waits.empty() ? " is next on its lane but did not complete"
                          : " waits for " + waits + ", not done");
  }
  return out.str();
}

}  // namespace ipusim::rt
