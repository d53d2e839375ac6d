#pragma once
// The charting library inlined into every --html page: Vega 5, Vega-Lite 5 and vega-embed 6,
// minified builds from third_party/vega/ compiled into the binary (embed_assets.cmake), so a
// page needs no network and the CLI no files beside it.

namespace ipusim::html {

/// vega.min.js (third_party/vega/README.md names the version).
const char* vega_js();
/// vega-lite.min.js.
const char* vega_lite_js();
/// vega-embed.min.js.
const char* vega_embed_js();

}  // namespace ipusim::html
