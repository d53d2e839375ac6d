#pragma once
// A descriptor table keyed by name: the one list of a variation point's implementations
// (workload kinds, model generators, ...). Entries are added by explicit calls, never by static
// initialisers, and kept in the order added: that order is the order names are listed in error
// messages and --help.
#include <string>
#include <utility>
#include <vector>

namespace ipusim {

/// Entries of type `Entry` (which has a `std::string name`) in the order they were added.
template <class Entry>
class NamedTable {
 public:
  /// Adds `entry`; an entry with the same name replaces the earlier one in its place, so
  /// registering twice is harmless.
  void add(Entry entry) {
    for (Entry& e : entries_) {
      if (e.name == entry.name) {
        e = std::move(entry);
        return;
      }
    }
    entries_.push_back(std::move(entry));
  }
  /// The entry called `name`, or nullptr.
  const Entry* find(const std::string& name) const {
    for (const Entry& e : entries_)
      if (e.name == name) return &e;
    return nullptr;
  }
  /// Every entry's name, in table order (registry enum choices, "did you mean").
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const Entry& e : entries_) out.push_back(e.name);
    return out;
  }
  /// Every entry, in table order.
  const std::vector<Entry>& entries() const { return entries_; }

 private:
  std::vector<Entry> entries_;
};

/// `name` and `summary` of each entry, one indented line each (summary in a column), for --help.
template <class Entry>
std::string named_table_help(const NamedTable<Entry>& table) {
  std::string out;
  for (const Entry& e : table.entries())
    out += "  " + e.name + std::string(e.name.size() < 16 ? 16 - e.name.size() : 1, ' ') +
           e.summary + "\n";
  return out;
}

}  // namespace ipusim
