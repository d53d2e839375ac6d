#pragma once
// What each collective algorithm and IPU-Link configuration means and needs, in one table:
// `ipusim collective --help` prints it and `ipusim collective --list-algorithms` prints it as
// the Markdown table of docs/collectives.md.
#include <string>
#include <vector>

namespace ipusim::coll {

/// One row of the catalog: a name as the CLI and configs spell it, what it does, what it needs.
struct CatalogEntry {
  std::string name;
  std::string gcl_name;  ///< GCL's spelling (option "method" / link configuration), "" if none
  std::string what;
  std::string needs;
};

/// Every algorithm the `algorithm` key accepts (auto and best included), in CLI order.
const std::vector<CatalogEntry>& algorithm_catalog();

/// Every IPU-Link configuration the `link_config` key accepts.
const std::vector<CatalogEntry>& link_config_catalog();

/// Both catalogs as indented text for `--help` (width about 100 columns).
std::string catalog_help_text();

/// Both catalogs as the Markdown tables of docs/collectives.md.
std::string catalog_markdown();

}  // namespace ipusim::coll
