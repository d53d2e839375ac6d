#include "tools/regress/regress_junit.hpp"

#include "tools/sweep/sweep_table.hpp"

namespace ipusim::cli {

std::string xml_escape(const std::string& text) {
  std::string out;
  for (char ch : text) {
    const unsigned char c = static_cast<unsigned char>(ch);
    switch (ch) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        out += (c < 0x20 && ch != '\t' && ch != '\n' && ch != '\r') ? '?' : ch;
    }
  }
  return out;
}

std::string junit_xml(const std::string& suite_name, const std::vector<JunitCase>& cases) {
  std::size_t failures = 0, errors = 0;
  double total = 0.0;
  for (const auto& c : cases) {
    if (!c.failure.empty()) ++(c.error ? errors : failures);
    total += c.time_s;
  }
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += "<testsuites>\n";
  out += "  <testsuite name=\"" + xml_escape(suite_name) + "\" tests=\"" +
         std::to_string(cases.size()) + "\" failures=\"" + std::to_string(failures) +
         "\" errors=\"" + std::to_string(errors) + "\" time=\"" + fixed(total, 3) + "\">\n";
  for (const auto& c : cases) {
    out += "    <testcase classname=\"" + xml_escape(c.classname) + "\" name=\"" +
           xml_escape(c.name) + "\" time=\"" + fixed(c.time_s, 3) + "\"";
    if (c.failure.empty()) {
      out += "/>\n";
      continue;
    }
    const char* tag = c.error ? "error" : "failure";
    out += ">\n      <" + std::string(tag) + " message=\"" + xml_escape(c.failure) + "\">" +
           xml_escape(c.details) + "</" + tag + ">\n    </testcase>\n";
  }
  out += "  </testsuite>\n</testsuites>\n";
  return out;
}

}  // namespace ipusim::cli
