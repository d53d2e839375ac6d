#include "collectives/algorithms/algorithm_groups.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>

namespace ipusim::coll {
namespace {

std::uint32_t ild_of(std::uint32_t replica, std::uint32_t ipus_per_replica,
                     std::uint32_t ild_size_ipus) {
  return static_cast<std::uint32_t>(static_cast<std::uint64_t>(replica) * ipus_per_replica /
                                    ild_size_ipus);
}

/// Members of one group bucketed by ILD (ascending), each bucket sorted by position.
std::map<std::uint32_t, std::vector<std::uint32_t>> by_ild(const std::vector<std::uint32_t>& group,
                                                           std::uint32_t ipus_per_replica,
                                                           std::uint32_t ild_size_ipus) {
  if (ild_size_ipus == 0) throw std::invalid_argument("ild_size_ipus must be positive");
  std::map<std::uint32_t, std::vector<std::uint32_t>> buckets;
  for (auto r : group) buckets[ild_of(r, ipus_per_replica, ild_size_ipus)].push_back(r);
  for (auto& [ild, members] : buckets) std::sort(members.begin(), members.end());
  return buckets;
}

}  // namespace

GroupIndex index_groups(const std::vector<std::vector<std::uint32_t>>& groups) {
  if (groups.empty()) throw std::invalid_argument("collective needs at least one group");
  GroupIndex index;
  index.group_size = static_cast<std::uint32_t>(groups.front().size());
  if (index.group_size == 0) throw std::invalid_argument("collective groups must not be empty");
  std::uint32_t max_id = 0;
  for (const auto& g : groups) {
    if (g.size() != index.group_size) {
      throw std::invalid_argument("collective groups must all have the same size (" +
                                  std::to_string(index.group_size) + " vs " +
                                  std::to_string(g.size()) + ")");
    }
    for (auto r : g) max_id = std::max(max_id, r);
  }
  index.num_replicas = max_id + 1;
  index.rank_of.assign(index.num_replicas, GroupIndex::kNoRank);
  for (const auto& g : groups) {
    for (std::uint32_t rank = 0; rank < g.size(); ++rank) {
      if (index.rank_of[g[rank]] != GroupIndex::kNoRank) {
        throw std::invalid_argument("replica " + std::to_string(g[rank]) +
                                    " appears in more than one collective group");
      }
      index.rank_of[g[rank]] = rank;
    }
  }
  return index;
}

std::optional<IldStructure> ild_structure(const std::vector<std::vector<std::uint32_t>>& groups,
                                          std::uint32_t ipus_per_replica,
                                          std::uint32_t ild_size_ipus) {
  IldStructure s;
  if (groups.empty()) return std::nullopt;
  bool first = true;
  for (const auto& group : groups) {
    if (group.empty()) return std::nullopt;
    const auto buckets = by_ild(group, ipus_per_replica, ild_size_ipus);
    const auto L = static_cast<std::uint32_t>(buckets.size());
    const auto kl = static_cast<std::uint32_t>(buckets.begin()->second.size());
    if (first) {
      s.num_ilds = L;
      s.members_per_ild = kl;
      first = false;
    } else if (L != s.num_ilds || kl != s.members_per_ild) {
      return std::nullopt;
    }
    std::vector<std::uint32_t> flat;
    flat.reserve(group.size());
    for (const auto& [ild, members] : buckets) {
      if (members.size() != kl) return std::nullopt;
      flat.insert(flat.end(), members.begin(), members.end());
    }
    s.members.push_back(std::move(flat));
  }
  return s;
}

std::uint32_t max_members_per_ild(const std::vector<std::vector<std::uint32_t>>& groups,
                                  std::uint32_t ipus_per_replica, std::uint32_t ild_size_ipus) {
  std::size_t most = 0;
  for (const auto& group : groups) {
    for (const auto& [ild, members] : by_ild(group, ipus_per_replica, ild_size_ipus)) {
      most = std::max(most, members.size());
    }
  }
  return static_cast<std::uint32_t>(most);
}

}  // namespace ipusim::coll
