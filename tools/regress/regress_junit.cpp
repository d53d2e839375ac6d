#include "tools/regress/regress_junit.hpp"

#include "sim/format.hpp"
#include "tools/sweep/sweep_table.hpp"

namespace ipusim::cli {

std::string junit_xml(const std::string& suite_name, const std::vector<JunitCase>& cases) {
  std::size_t failures = 0, errors = 0;
  double total = 0.0;
  for (const auto& c : cases) {
    if (!c.failure.empty()) ++(c.error ? errors : failures);
    total += c.time_s;
  }
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += "<testsuites>\n";
  out += "  <testsuite name=\"" + escape_markup(suite_name) + "\" tests=\"" +
         std::to_string(cases.size()) + "\" failures=\"" + std::to_string(failures) +
         "\" errors=\"" + std::to_string(errors) + "\" time=\"" + fixed(total, 3) + "\">\n";
  for (const auto& c : cases) {
    out += "    <testcase classname=\"" + escape_markup(c.classname) + "\" name=\"" +
           escape_markup(c.name) + "\" time=\"" + fixed(c.time_s, 3) + "\"";
    if (c.failure.empty()) {
      out += "/>\n";
      continue;
    }
    const char* tag = c.error ? "error" : "failure";
    out += ">\n      <" + std::string(tag) + " message=\"" + escape_markup(c.failure) + "\">" +
           escape_markup(c.details) + "</" + tag + ">\n    </testcase>\n";
  }
  out += "  </testsuite>\n</testsuites>\n";
  return out;
}

}  // namespace ipusim::cli
