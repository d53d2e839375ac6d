#include "sim/stats.hpp"

#include <systemc>

namespace ipusim {
namespace {

/// Stats of one object and its children; null if none of them reports anything.
Json collect(const sc_core::sc_object* object) {
  Json node = Json::object();
  if (const auto* provider = dynamic_cast<const StatsProvider*>(object))
    provider->collect_stats(node);
  const auto& children = object->get_child_objects();
  // Reserved: an object's entries have const keys, so a growing one copies its subtrees
  // (the vector cannot move them). What the provider wrote is moved over by hand: each key is
  // copied, its subtree moved.
  auto& entries = node.get_ref<Json::object_t&>();
  if (entries.capacity() < entries.size() + children.size()) {
    Json::object_t grown;
    grown.reserve(entries.size() + children.size());
    for (auto& e : entries) grown.emplace_back(std::move(e));
    entries.swap(grown);
  }
  for (const sc_core::sc_object* child : children) {
    Json sub = collect(child);
    if (!sub.is_null()) node[child->basename()] = std::move(sub);
  }
  if (node.empty()) return Json();
  return node;  // moved, not copied (a conditional expression would copy the subtree)
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
