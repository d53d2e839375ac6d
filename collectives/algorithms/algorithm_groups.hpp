#pragma once
// Group bookkeeping shared by the algorithms: ranks, and the two-level (ILD x local index)
// structure of groups that span several IPU-Link domains.
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

namespace ipusim::coll {

/// Rank of every replica inside its group (validated: equal sizes, disjoint groups).
struct GroupIndex {
  static constexpr std::uint32_t kNoRank = std::numeric_limits<std::uint32_t>::max();
  std::uint32_t group_size = 0;
  std::uint32_t num_replicas = 0;      ///< 1 + largest replica id in any group
  std::vector<std::uint32_t> rank_of;  ///< per replica; kNoRank when in no group
};

/// Indexes the groups; throws std::invalid_argument if they are empty, of unequal sizes or
/// overlapping.
GroupIndex index_groups(const std::vector<std::vector<std::uint32_t>>& groups);

/// Two-level view of groups spanning ILDs: every group has `members_per_ild` members in each
/// of `num_ilds` ILDs. Member (g, l) is the l-th member (by position) of the group's g-th ILD
/// (ILDs in ascending order): members[group][g * members_per_ild + l].
struct IldStructure {
  std::uint32_t num_ilds = 1;         ///< L
  std::uint32_t members_per_ild = 0;  ///< k_l
  std::vector<std::vector<std::uint32_t>> members;

  /// Replica at (g, l) of a group.
  std::uint32_t at(std::size_t group, std::uint32_t g, std::uint32_t l) const {
    return members[group][static_cast<std::size_t>(g) * members_per_ild + l];
  }
};

/// The two-level structure, or nullopt when some group has unequal member counts in its
/// ILDs or groups differ in (L, k_l) (they must run in lock-step in one schedule).
std::optional<IldStructure> ild_structure(const std::vector<std::vector<std::uint32_t>>& groups,
                                          std::uint32_t ipus_per_replica,
                                          std::uint32_t ild_size_ipus);

/// Largest number of members one group has inside one ILD (the AUTO rules' "ranks").
std::uint32_t max_members_per_ild(const std::vector<std::vector<std::uint32_t>>& groups,
                                  std::uint32_t ipus_per_replica, std::uint32_t ild_size_ipus);

}  // namespace ipusim::coll
