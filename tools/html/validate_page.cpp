#include "tools/html/validate_page.hpp"

#include <cmath>

namespace ipusim::html {

Page validation_page(const Json& validation) {
  Page page;
  page.title = "ipusim: validation";
  page.subtitle =
      "Simulated against measured for every case; error = (simulated - measured) / |measured|.";
  page.summary.push_back({"cases", validation.value("cases", Json(0)).dump()});
  page.summary.push_back(
      {"outside tolerance or not run", validation.value("failed", Json(0)).dump()});
  Json points = Json::array();
  Table table;
  table.headers = {"case",    "role",        "measured", "simulated", "unit",
                   "error %", "tolerance %", "result",   "source"};
  for (const char* role : {"prediction", "calibration", "consistency"}) {
    const Json& section = validation.value(role, Json::object());
    if (section.contains("geomean_abs_error") && section.value("count", 0) > 0)
      page.summary.push_back({std::string(role) + " cases: mean |error|",
                              number_text(100 * section["geomean_abs_error"].get<double>(), 3) +
                                  " % over " + section.value("simulated", Json(0)).dump() + " of " +
                                  section.value("count", Json(0)).dump()});
    for (const Json& c : section.value("cases", Json::array())) {
      const bool ran = c.contains("simulated") && c["simulated"].is_number();
      const double measured = c.value("measured", NAN);
      const double simulated = ran ? c["simulated"].get<double>() : NAN;
      const double error =
          c.contains("error") && c["error"].is_number() ? c["error"].get<double>() : NAN;
      const bool pass = c.value("pass", false);
      if (ran)
        points.push_back({{"case", c.value("name", "")},
                          {"role", role},
                          {"measured", measured},
                          {"simulated", simulated},
                          {"unit", c.value("unit", "")},
                          {"error_pct", 100 * error},
                          {"tolerance_pct", c.value("tolerance_pct", 0.0)},
                          {"result", pass ? "within tolerance" : "outside tolerance"}});
      table.rows.push_back(
          {c.value("name", ""), role, number_text(measured), ran ? number_text(simulated) : "",
           c.value("unit", ""), std::isfinite(error) ? number_text(100 * error, 3) : "",
           number_text(c.value("tolerance_pct", 0.0), 3),
           !ran ? "did not run" : (pass ? "ok" : "outside tolerance"), c.value("source", "")});
    }
  }
  const Json tooltip =
      Json::array({{{"field", "case"}},
                   {{"field", "role"}},
                   {{"field", "measured"}},
                   {{"field", "simulated"}},
                   {{"field", "unit"}},
                   {{"field", "error_pct"}, {"title", "error %"}, {"format", ".2f"}},
                   {{"field", "tolerance_pct"}, {"title", "tolerance %"}}});
  Section charts{
      "Predicted against measured",
      "Every case that ran: simulated against measured on log axes (the line is simulated = "
      "measured), and each case's error with its tolerance band.",
      {},
      {}};
  const Json axis_scale = {{"type", "log"}};
  Json scatter = {
      {"data", {{"values", points}}},
      {"width", 520},
      {"height", 520},
      {"layer",
       Json::array(
           {{{"transform", Json::array({{{"fold", {"measured", "simulated"}}}})},
             {"mark", {{"type", "line"}, {"color", "#bab0ac"}, {"strokeDash", {4, 3}}}},
             {"encoding",
              {{"x", {{"field", "value"}, {"type", "quantitative"}, {"scale", axis_scale}}},
               {"y", {{"field", "value"}, {"type", "quantitative"}, {"scale", axis_scale}}}}}},
            {{"mark", {{"type", "point"}, {"filled", true}, {"size", 70}}},
             {"encoding",
              {{"x",
                {{"field", "measured"},
                 {"type", "quantitative"},
                 {"scale", axis_scale},
                 {"title", "measured"}}},
               {"y",
                {{"field", "simulated"},
                 {"type", "quantitative"},
                 {"scale", axis_scale},
                 {"title", "simulated (predicted)"}}},
               {"color",
                {{"field", "result"},
                 {"type", "nominal"},
                 {"scale",
                  {{"domain", {"within tolerance", "outside tolerance"}},
                   {"range", {"#4c78a8", "#e45756"}}}}}},
               {"shape", {{"field", "role"}, {"type", "nominal"}}},
               {"tooltip", tooltip}}}}})}};
  charts.charts.push_back({"predicted_vs_measured", scatter, false});
  Json errors = {
      {"data", {{"values", points}}},
      {"width", 700},
      {"layer",
       Json::array(
           {{{"mark", {{"type", "bar"}, {"opacity", 0.25}, {"color", "#bab0ac"}}},
             {"transform",
              Json::array({{{"calculate", "-datum.tolerance_pct"}, {"as", "minus_tolerance"}}})},
             {"encoding",
              {{"y",
                {{"field", "case"}, {"type", "nominal"}, {"sort", nullptr}, {"title", nullptr}}},
               {"x", {{"field", "minus_tolerance"}, {"type", "quantitative"}}},
               {"x2", {{"field", "tolerance_pct"}}}}}},
            {{"mark", {{"type", "bar"}, {"height", 6}}},
             {"encoding",
              {{"y", {{"field", "case"}, {"type", "nominal"}, {"sort", nullptr}}},
               {"x",
                {{"field", "error_pct"},
                 {"type", "quantitative"},
                 {"title", "error % (grey: tolerance)"}}},
               {"color",
                {{"field", "result"},
                 {"type", "nominal"},
                 {"scale",
                  {{"domain", {"within tolerance", "outside tolerance"}},
                   {"range", {"#4c78a8", "#e45756"}}}}}},
               {"tooltip", tooltip}}}}})}};
  charts.charts.push_back({"case_errors", errors, false});
  charts.table = table;
  page.sections.push_back(charts);
  return page;
}

}  // namespace ipusim::html
