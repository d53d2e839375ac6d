#include "sim/stats.hpp"

#include <systemc>

namespace ipusim {
namespace {

/// Stats of one object and its children; null if none of them reports anything.
Json collect(const sc_core::sc_object* object) {
  Json node = Json::object();
  if (const auto* provider = dynamic_cast<const StatsProvider*>(object))
    provider->collect_stats(node);
  for (const sc_core::sc_object* child : object->get_child_objects()) {
    Json sub = collect(child);
    if (!sub.is_null()) node[child->basename()] = std::move(sub);
  }
  return node.empty() ? Json() : node;
}

}  // namespace

Json collect_stats_tree() {
  Json tree = Json::object();
  for (const sc_core::sc_object* top : sc_core::sc_get_top_level_objects()) {
    Json sub = collect(top);
    if (!sub.is_null()) tree[top->basename()] = std::move(sub);
  }
  return tree;
}

}  // namespace ipusim
