// validate_request names the input at fault (so the workload can report the config key, exit
// 2) without generating a schedule, and "best" considers exactly the algorithms that can run.
#include <catch2/catch.hpp>
#include <string>

#include "collectives/algorithms/best_candidates.hpp"
#include "request_helpers.hpp"

using namespace ipusim::coll;
using namespace ipusim::coll::test;

namespace {

/// The field a request is refused for (or "none").
std::string refused_field(const CollectiveRequest& req) {
  try {
    validate_request(req);
  } catch (const RequestError& e) {
    switch (e.field()) {
      case RequestField::Groups:
        return "groups";
      case RequestField::IpusPerReplica:
        return "ipus_per_replica";
      case RequestField::LinkConfig:
        return "link_config";
      case RequestField::Algorithm:
        return "algorithm";
      case RequestField::Elements:
        return "elements";
    }
  }
  return "none";
}

}  // namespace

TEST_CASE("validate_request names the field of each refusal", "[validation]") {
  auto req = request(CollectiveOp::AllReduce, 16, 64, Algorithm::QuadDirectional);
  req.topology.ild_size_ipus = 16;
  CHECK(refused_field(req) == "algorithm");  // quad without the barley-twist configuration
  req.algorithm = Algorithm::Auto;
  CHECK(refused_field(req) == "none");
  req.topology.ipus_per_replica = 3;  // 16 IPUs per ILD is no multiple of 3
  CHECK(refused_field(req) == "ipus_per_replica");
  req.topology.ipus_per_replica = 1;
  req.topology.link_config = LinkConfig::BarleyTwist;  // needs a torus
  CHECK(refused_field(req) == "link_config");
  req.topology.link_config = LinkConfig::Default;
  req.groups = {{0, 1}, {2}};
  CHECK(refused_field(req) == "groups");
  auto a2a = request(CollectiveOp::AllToAll, 4, 6, Algorithm::Direct);  // 6 % 4 != 0
  CHECK(refused_field(a2a) == "elements");
  a2a.elements_per_replica = 8;
  CHECK(refused_field(a2a) == "none");
  a2a.algorithm = Algorithm::Clockwise;
  CHECK(refused_field(a2a) == "algorithm");
  // A hierarchical tier forced to quad-directional is refused before any step is built.
  auto h = request(CollectiveOp::AllReduce, 8, 64, Algorithm::Hierarchical);
  h.topology.ild_size_ipus = 4;
  CHECK(refused_field(h) == "none");
  h.hierarchical_ild_algorithm = Algorithm::QuadDirectional;
  CHECK(refused_field(h) == "algorithm");
}

TEST_CASE("best tries every algorithm that can run, and says why the others cannot",
          "[validation][best]") {
  REQUIRE(best_candidates().size() == 7);
  auto req = request(CollectiveOp::AllReduce, 16, 1024, Algorithm::Auto);
  req.topology.ild_size_ipus = 16;  // one IPU-Link domain of 16, default links
  std::vector<Algorithm> ok;
  for (Algorithm a : best_candidates()) {
    req.algorithm = a;
    const std::string why = why_not_candidate(req);
    if (why.empty()) ok.push_back(a);
    if (a == Algorithm::QuadDirectional) CHECK_THAT(why, Catch::Contains("barley_twist"));
    if (a == Algorithm::Hierarchical) CHECK_THAT(why, Catch::Contains("one IPU-Link domain"));
  }
  CHECK(ok == std::vector<Algorithm>{Algorithm::Clockwise, Algorithm::Anticlockwise,
                                     Algorithm::BidirectionalPair, Algorithm::MeetInTheMiddle,
                                     Algorithm::Direct});
  // Two ILDs of 8: hierarchical becomes a candidate; with barley twist on a torus, quad too.
  req.topology.ild_size_ipus = 8;
  req.algorithm = Algorithm::Hierarchical;
  CHECK(why_not_candidate(req).empty());
  req.topology.ild_size_ipus = 16;
  req.topology.torus = true;
  req.topology.link_config = LinkConfig::BarleyTwist;
  req.algorithm = Algorithm::QuadDirectional;
  CHECK(why_not_candidate(req).empty());
  // AllToAll runs only direct.
  auto a2a = request(CollectiveOp::AllToAll, 4, 8, Algorithm::Auto);
  int runnable = 0;
  for (Algorithm a : best_candidates()) {
    a2a.algorithm = a;
    runnable += why_not_candidate(a2a).empty();
  }
  CHECK(runnable == 1);
}
