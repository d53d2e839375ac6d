#include "runtime/workloads/workload.hpp"

#include <systemc>

#include "runtime/workloads/runtime_params.hpp"
#include "runtime/workloads/workload_kinds.hpp"
#include "sim/params.hpp"

namespace ipusim {

void register_runtime_params() {
  register_workload_kinds();
  const NamedTable<WorkloadKind>& table = workload_kind_table();
  // "What to simulate: a, b, ..., or z" from the kinds' summaries.
  std::string what;
  const std::vector<WorkloadKind>& kinds = table.entries();
  for (std::size_t i = 0; i < kinds.size(); ++i)
    what += (i == 0 ? "" : i + 1 == kinds.size() ? ", or " : ", ") + kinds[i].summary;
  ParamRegistry::instance().add({
      {"/workload/kind",
       ParamType::Enum,
       "",
       Json(),
       {},
       {},
       table.names(),
       "What to simulate: " + what},
  });
  for (const WorkloadKind& k : kinds)
    if (k.register_params) k.register_params();
}

bool run_guarded(const std::function<void()>& body, std::string& failure) {
  try {
    body();
    return true;
  } catch (const std::exception& e) {
    failure = e.what();
    sc_core::sc_stop();
    return false;
  }
}

std::unique_ptr<Workload> make_workload(System& system, ConfigNode node) {
  // get_enum refuses a name not in the table (with "did you mean"), so the kind exists.
  const std::string kind = node.get_enum("kind");
  return workload_kind_table().find(kind)->make(system, node);
}

}  // namespace ipusim
