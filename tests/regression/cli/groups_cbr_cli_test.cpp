// `ipusim groups` and `ipusim cbr` end to end: values from the PopART reference examples,
// and invalid settings exit 2 with PopART's reason.
#include <catch2/catch.hpp>

#include "tests/regression/tools/cli_harness.hpp"

using namespace ipusim;
using namespace ipusim::test;

TEST_CASE("groups prints the grouping, members and shapes of a CommGroup", "[cli][groups]") {
  Scratch s;
  // popart_semantics.md E18: R = 4, Consecutive 2, base shape [3,5] -> host [2,3,5].
  const CliResult r = run_cli(s, {"groups", "--replicas", "4", "--comm-group", "consecutive:2",
                                  "--shape", "3,5", "--json"});
  REQUIRE(r.exit_code == 0);
  const Json j = Json::parse(r.out);
  CHECK(j["groups"] == Json::parse("[[0,1],[2,3]]"));
  CHECK(j["group_of_replica"] == Json::parse("[0,0,1,1]"));
  CHECK(j["index_in_group"] == Json::parse("[0,1,0,1]"));
  CHECK(j["host_shape"] == Json::parse("[2,3,5]"));
  CHECK(j["num_replicas_returning_variable"] == 2);
  // Documentation table: R = 16, Orthogonal 4 -> {0,4,8,12}, {1,5,9,13}, ...
  const Json o = Json::parse(
      run_cli(s, {"groups", "--replicas", "16", "--comm-group", "orthogonal:4", "--json"}).out);
  CHECK(o["groups"][1] == Json::parse("[1,5,9,13]"));
  CHECK(o["stride"] == 4);
  CHECK(o["num_groups"] == 4);
}

TEST_CASE("groups rejects an invalid grouping with PopART's reason and exit 2", "[cli][groups]") {
  Scratch s;
  // E1: RG(12, 4, 2) is not divisible.
  const CliResult r =
      run_cli(s, {"groups", "--replicas", "12", "--stride", "4", "--group-size", "2"});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("must be divisible by the product of the stride and the group size") !=
        std::string::npos);
  CHECK(run_cli(s, {"groups", "--replicas", "8", "--comm-group", "sideways:2"}).exit_code == 2);
}

TEST_CASE("cbr prints the E27 layout with padding as null", "[cli][cbr]") {
  Scratch s;
  // popart_semantics.md E27: t0 [0,10), t1 [10,16) over 4 replicas: P = [3,2], S = 5.
  const CliResult r =
      run_cli(s, {"cbr", "--replicas", "4", "--mapping-json", "[[[0,10]],[[10,16]]]", "--json"});
  REQUIRE(r.exit_code == 0);
  const Json j = Json::parse(r.out);
  CHECK(j["padded_elements_per_tile"] == Json::parse("[3,2]"));
  CHECK(j["shard_elems"] == 5);
  CHECK(j["gathered_to_ref_slices"] ==
        Json::parse("[[0,2],[5,8],[10,12],[15,18],[3,5],[8,10],[13,15]]"));
  CHECK(j["shards"] ==
        Json::parse("[[0,1,null,10,11],[2,3,4,12,13],[5,6,null,14,15],[7,8,9,null,null]]"));
  CHECK(run_cli(s, {"cbr", "--replicas", "4", "--mapping-json", "[[[0,10]],[[5,16]]]"}).exit_code ==
        2);  // overlap
}

TEST_CASE("groups' replica bound names the largest preset as describe counts it", "[cli][groups]") {
  Scratch s;
  const CliResult big = run_cli(s, {"describe", "pod64k", "--json"});
  REQUIRE(big.exit_code == 0);
  const std::string ipus = std::to_string(Json::parse(big.out)["ipus"].get<long long>());
  const CliResult r = run_cli(s, {"groups", "--replicas", "0"});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("the largest preset, pod64k, has " + ipus + " IPUs"));
  // The largest preset's replica count itself is accepted.
  CHECK(run_cli(s, {"groups", "--replicas", ipus, "--json"}).exit_code == 0);
}
