#pragma once
// The table of workload kinds (`/workload/kind`): one entry per kind, added by an explicit call
// (register_workload_kinds(), no static initialisers). Dispatch (make_workload), the registry's
// enum choices and description (so the config error's "did you mean") and the `run --help`
// list are all generated from it, so a new kind is one entry plus its folder.
#include <memory>
#include <string>

#include "sim/config.hpp"
#include "sim/named_table.hpp"

namespace ipusim {

class System;
class Workload;

/// One workload kind: its `/workload/kind` name, what it simulates and how it is built.
struct WorkloadKind {
  std::string name;     ///< the `/workload/kind` value
  std::string summary;  ///< what it simulates, a phrase ("one collective")
  /// Builds the workload from `/workload` (ConfigError on bad input).
  std::unique_ptr<Workload> (*make)(System& system, ConfigNode workload) = nullptr;
  /// Declares its `/workload/...` parameters; nullptr when another kind's already do
  /// (inference reads the training kind's).
  void (*register_params)() = nullptr;
};

/// The process-wide table of kinds (filled by register_workload_kinds()).
NamedTable<WorkloadKind>& workload_kind_table();

/// Adds the shipped kinds to the table (one explicit call each); safe to call more than once.
void register_workload_kinds();

/// The `/workload/kind` values with what each simulates, one indented line each, for `--help`.
std::string workload_kinds_help();

}  // namespace ipusim
