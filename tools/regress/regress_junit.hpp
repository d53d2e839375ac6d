#pragma once
// JUnit XML for CI systems: one <testsuite>, one <testcase> per regression case, with a
// <failure> for a changed value and an <error> for a case that could not run.
#include <string>
#include <vector>

namespace ipusim::cli {

/// One test case's result.
struct JunitCase {
  std::string name;
  std::string classname;
  double time_s = 0.0;
  std::string failure;  ///< non-empty: the case failed (message; details go in the body)
  std::string details;  ///< body text of <failure>/<error>
  bool error = false;   ///< true: it could not run at all (<error> instead of <failure>)
};

/// The whole JUnit XML document for one test suite.
std::string junit_xml(const std::string& suite_name, const std::vector<JunitCase>& cases);

}  // namespace ipusim::cli
