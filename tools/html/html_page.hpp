#pragma once
// A self-contained HTML page of charts and tables: the pages of `--html`. Charts are
// Vega-Lite specs (data inline) drawn by the inlined Vega libraries (html_assets.hpp); the
// page loads no file and no URL, so it opens offline.
#include <string>
#include <utility>
#include <vector>

#include "sim/json.hpp"

namespace ipusim::html {

/// One chart: a Vega-Lite spec with its data inline, drawn into the element `id`.
struct Chart {
  std::string id;  ///< HTML id of the chart's element (letters, digits, '_' and '-')
  Json spec;       ///< a Vega-Lite v5 spec ("data": {"values": [...]})
  /// With a `config` field in the data: a click on a mark copies that field (JSON) to the
  /// clipboard and shows it under the chart.
  bool click_copies_config = false;
};

/// A plain table (cells are text, escaped when written).
struct Table {
  std::vector<std::string> headers;
  std::vector<std::vector<std::string>> rows;
};

/// A titled part of the page: a sentence, its charts, then its table (each optional).
struct Section {
  std::string title;
  std::string note;
  std::vector<Chart> charts;
  Table table;
};

/// A whole page: a title, key/value summary lines, the sections.
struct Page {
  std::string title;
  std::string subtitle;
  std::vector<std::pair<std::string, std::string>> summary;
  std::vector<Section> sections;
};

/// The page as one HTML document with the libraries, styles and specs inlined.
std::string render_page(const Page& page);

/// Outcome of write_page(): empty `error` on success.
struct PageWriteResult {
  std::string error;  ///< what went wrong, naming the file
  int exit_code = 0;  ///< 0, 2 (the folder does not exist or is not a folder) or 3 (write failed)
};

/// Writes `html` to `path` atomically without throwing (usable after sc_start): a missing
/// folder is bad input (2), a failed write an output error (3, no partial file left).
PageWriteResult write_page(const std::string& path, const std::string& html);

/// Number formatting shared by the pages: `value` with `digits` significant digits.
std::string number_text(double value, int digits = 4);

/// Bytes in B/KiB/MiB/GiB/TiB and nanoseconds in ns/us/ms/s, 3 significant digits.
std::string bytes_text(double bytes);
std::string time_text(double ns);

}  // namespace ipusim::html
