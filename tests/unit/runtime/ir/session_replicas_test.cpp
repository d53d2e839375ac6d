// replicatedGraphCount as PopART has it: >= 1 (0 refused), absent = the whole system, and
// with more than one replica replicatedGraphCount x ipusPerReplica divides the system's IPUs.
#include <algorithm>
#include <catch2/catch.hpp>

#include "runtime/ir/training_session.hpp"
#include "sim/config.hpp"
#include "sim/errors.hpp"

using namespace ipusim;

namespace {

/// Reads `session` on a system of `ipus` IPUs (one IPU-Link domain of up to 64).
std::uint32_t replicas(const Json& session, std::uint32_t ipus, Json* resolved = nullptr) {
  rt::register_session_params();
  ConfigDoc doc = ConfigDoc::from_json(Json{{"workload", {{"session", session}}}}, "s.json");
  const rt::SessionOptions s = rt::read_session(
      ConfigNode(doc, "").child("workload").child("session"), ipus, std::min(ipus, 64u));
  if (resolved) *resolved = doc.resolved()["workload"]["session"];
  return s.replicatedGraphCount;
}

std::string error_of(const Json& session, std::uint32_t ipus) {
  try {
    replicas(session, ipus);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(no ConfigError)";
}

}  // namespace

TEST_CASE("replicatedGraphCount: absent fills the system and is recorded in the resolved config",
          "[session]") {
  Json resolved;
  CHECK(replicas(Json::object(), 16, &resolved) == 16);
  CHECK(resolved["replicatedGraphCount"] == 16);
  CHECK(replicas(Json{{"ipusPerReplica", 4}}, 64) == 16);
}

TEST_CASE("replicatedGraphCount: partitions that divide the system are accepted", "[session]") {
  CHECK(replicas(Json{{"replicatedGraphCount", 2}}, 4) == 2);  // mnist_phased: 2 of 4 IPUs
  CHECK(replicas(Json{{"replicatedGraphCount", 8}, {"ipusPerReplica", 8}}, 128) == 8);  // 64 of 128
  CHECK(replicas(Json{{"replicatedGraphCount", 1}, {"ipusPerReplica", 3}}, 4) ==
        1);  // one replica: 3 of 4
}

TEST_CASE("replicatedGraphCount: 0 and products that do not divide the system are refused",
          "[session]") {
  CHECK_THAT(error_of(Json{{"replicatedGraphCount", 0}}, 16),
             Catch::StartsWith(
                 "s.json: /workload/session/replicatedGraphCount: 0 is not a replica count"));
  CHECK_THAT(error_of(Json{{"replicatedGraphCount", 3}}, 16),
             Catch::StartsWith("s.json: /workload/session/replicatedGraphCount: 3 replicas x 1 "
                               "IPUs (ipusPerReplica) = 3 IPUs "
                               "do not divide the system's 16 IPUs"));
  CHECK_THAT(error_of(Json{{"replicatedGraphCount", 2}, {"ipusPerReplica", 3}}, 16),
             Catch::Contains("= 6 IPUs do not divide"));
  // Absent count with an ipusPerReplica that does not divide: the fault is ipusPerReplica
  // (16 / 3 = 5 replicas of 3 = 15 IPUs).
  CHECK_THAT(error_of(Json{{"ipusPerReplica", 3}}, 16),
             Catch::StartsWith("s.json: /workload/session/ipusPerReplica: 5 replicas"));
  CHECK_THAT(error_of(Json{{"replicatedGraphCount", 5}, {"ipusPerReplica", 4}}, 16),
             Catch::Contains("do not fit"));
}
