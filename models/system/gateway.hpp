#pragma once
// The IPU-Gateway of one IPU-Machine and its streaming memory. The DDR bandwidth is a shared
// network resource (all IPUs of the machine contend for it); the capacity is enforced here.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <systemc>
#include <vector>

#include "models/network/flow_engine.hpp"
#include "models/network/link_module.hpp"
#include "models/params/hw_params.hpp"
#include "sim/stats.hpp"

namespace ipusim {

/// Streaming-memory buffers of one machine: named allocations against a fixed capacity.
class StreamingMemory {
 public:
  StreamingMemory(std::string owner, std::uint64_t capacity_bytes);
  /// Allocates (or grows to) `bytes` for buffer `name`. Throws ConfigError naming the buffer,
  /// its size, the machine and the free capacity when it does not fit.
  void allocate(const std::string& name, std::uint64_t bytes);
  /// Frees a buffer (no-op if unknown).
  void release(const std::string& name);
  bool contains(const std::string& name) const { return buffers_.count(name) != 0; }
  std::uint64_t capacity_bytes() const { return capacity_; }
  std::uint64_t used_bytes() const { return used_; }
  std::uint64_t free_bytes() const { return capacity_ - used_; }
  std::uint64_t peak_bytes() const { return peak_; }
  std::size_t buffers() const { return buffers_.size(); }

 private:
  std::string owner_;
  std::uint64_t capacity_;
  std::uint64_t used_ = 0, peak_ = 0;
  std::map<std::string, std::uint64_t> buffers_;
};

/// The gateway of machine `machine`: streaming memory, and as child modules its DDR, its
/// links to and from each IPU of the machine and its host links (`links`, from the network).
class Gateway : public sc_core::sc_module, public StatsProvider {
 public:
  Gateway(sc_core::sc_module_name name, std::uint32_t machine, const MachineParams& params,
          ResourceId ddr, Network& network, const std::vector<ResourceId>& links);
  std::uint32_t machine() const { return machine_; }
  StreamingMemory& memory() { return memory_; }
  const StreamingMemory& memory() const { return memory_; }
  ResourceId ddr_resource() const { return ddr_; }
  /// The DDR, gateway-link and host-link views of this gateway (none above 512 IPUs or in the
  /// packet model, whose own link modules are its children).
  const std::vector<std::unique_ptr<LinkModule>>& links() const { return links_; }
  void collect_stats(Json& out) const override;

 private:
  std::uint32_t machine_;
  StreamingMemory memory_;
  ResourceId ddr_;
  std::vector<std::unique_ptr<LinkModule>> links_;
  LinkStatsGroup link_stats_;  ///< the links above 512 IPUs
};

}  // namespace ipusim
