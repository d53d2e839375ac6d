#include "collectives/schedule/ring_order.hpp"

#include <algorithm>

namespace ipusim::coll {

std::vector<std::uint32_t> ring_pattern(std::uint32_t n, RingPattern pattern) {
  std::vector<std::uint32_t> order(n);
  switch (pattern) {
    case RingPattern::Interleaved: {
      // Up one rail (even indices ascending), back down the other (odd descending).
      std::uint32_t i = 0;
      for (std::uint32_t v = 0; v < n; v += 2) order[i++] = v;
      const std::uint32_t last_odd = (n % 2 == 0) ? n - 1 : n - 2;
      for (std::uint32_t v = last_odd; i < n; v -= 2) order[i++] = v;
      break;
    }
    case RingPattern::Flat:
      for (std::uint32_t i = 0; i < n; ++i) order[i] = i;
      break;
    case RingPattern::Serpent:
    case RingPattern::SerpentMirrored: {
      const std::uint32_t mirrored = pattern == RingPattern::SerpentMirrored ? 1 : 0;
      for (std::uint32_t i = 0; i < n; ++i) {
        const std::uint32_t id = i ^ ((i >> 1) & 1u) ^ mirrored;
        order[i] = id < n ? id : i;  // only the unpaired last index of an odd ring
      }
      break;
    }
  }
  return order;
}

RingPattern ild_ring_pattern(bool torus, std::uint32_t ipus_per_replica, LinkConfig config) {
  if (config == LinkConfig::BarleyTwist) return RingPattern::Serpent;
  if (torus && ipus_per_replica > 1) return RingPattern::Flat;
  return RingPattern::Interleaved;
}

std::vector<std::uint32_t> ring_order(std::vector<std::uint32_t> members, RingPattern pattern) {
  // Replica r occupies IPUs [rK, rK+K) and replicas are numbered along the ladder, so the
  // replica id is the physical position.
  std::sort(members.begin(), members.end());
  const auto pat = ring_pattern(static_cast<std::uint32_t>(members.size()), pattern);
  std::vector<std::uint32_t> ring(members.size());
  for (std::size_t i = 0; i < pat.size(); ++i) ring[i] = members[pat[i]];
  return ring;
}

}  // namespace ipusim::coll
