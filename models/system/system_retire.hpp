#pragma once
// Ending a large system's life at process exit (separate from system.hpp to keep that
// header's users from depending on it).
#include <memory>

namespace ipusim {

class System;

/// Keeps a system of more than 512 IPUs alive until the process exits instead of destroying
/// it now (smaller ones are destroyed): SystemC unregisters each module with a linear search,
/// quadratic in the modules, 38 s of a 40 s `describe pod64k`. For commands that end after
/// their report is written.
void retire_system(std::unique_ptr<System> system);

}  // namespace ipusim
