#pragma once
// Plain-text tables for the tools' stdout summaries (sweep, regress, validate).
#include <string>
#include <vector>

namespace ipusim::cli {

/// Formats rows under headers with columns padded to their widest cell (two spaces apart);
/// cells that look like numbers are right-aligned.
std::string format_table(const std::vector<std::string>& headers,
                         const std::vector<std::vector<std::string>>& rows);

/// A number in fixed notation with `digits` decimals ("12.50"); "nan"/"inf" as such.
std::string fixed(double value, int digits);

}  // namespace ipusim::cli
