// Names and parsing of the schedule enums (CLI spellings).
#include <catch2/catch.hpp>
#include <stdexcept>

#include "collectives/schedule/schedule.hpp"

using namespace ipusim::coll;

TEST_CASE("schedule enums round-trip through their CLI names", "[schedule]") {
  for (auto op : {CollectiveOp::AllReduce, CollectiveOp::ReduceScatter, CollectiveOp::AllGather,
                  CollectiveOp::AllToAll, CollectiveOp::Broadcast}) {
    CHECK(parse_collective_op(to_string(op)) == op);
  }
  for (auto r : {ReduceOp::Add, ReduceOp::Mean, ReduceOp::Mul, ReduceOp::Min, ReduceOp::Max,
                 ReduceOp::Local}) {
    CHECK(parse_reduce_op(to_string(r)) == r);
  }
  for (auto t : {DType::Float32, DType::Float16}) CHECK(parse_dtype(to_string(t)) == t);
  for (auto a : {Algorithm::Auto, Algorithm::Clockwise, Algorithm::Anticlockwise,
                 Algorithm::BidirectionalPair, Algorithm::MeetInTheMiddle,
                 Algorithm::QuadDirectional, Algorithm::Direct, Algorithm::Hierarchical}) {
    CHECK(parse_algorithm(to_string(a)) == a);
  }
  for (auto c : {LinkConfig::Default, LinkConfig::SlidingWindow, LinkConfig::BarleyTwist}) {
    CHECK(parse_link_config(to_string(c)) == c);
  }
}

TEST_CASE("schedule names are the documented CLI spellings", "[schedule]") {
  CHECK(to_string(CollectiveOp::AllReduce) == "allreduce");
  CHECK(to_string(CollectiveOp::ReduceScatter) == "reduce_scatter");
  CHECK(to_string(CollectiveOp::AllGather) == "all_gather");
  CHECK(to_string(CollectiveOp::AllToAll) == "all_to_all");
  CHECK(to_string(CollectiveOp::Broadcast) == "broadcast");
  CHECK(to_string(ReduceOp::Mean) == "mean");
  CHECK(to_string(DType::Float16) == "float16");
  CHECK(to_string(Algorithm::BidirectionalPair) == "bidirectional_pair");
  CHECK(to_string(Algorithm::MeetInTheMiddle) == "meet_in_the_middle");
  CHECK(to_string(Algorithm::QuadDirectional) == "quad_directional");
}

TEST_CASE("unknown names throw invalid_argument listing the allowed values", "[schedule]") {
  CHECK_THROWS_AS(parse_collective_op("allgather"), std::invalid_argument);
  CHECK_THROWS_WITH(parse_reduce_op("sum"), Catch::Contains("add|mean|mul|min|max|local"));
  CHECK_THROWS_WITH(parse_dtype("int8"), Catch::Contains("float32|float16"));
  CHECK_THROWS_WITH(parse_algorithm("ring"),
                    Catch::Contains("auto|clockwise|anticlockwise|bidirectional_pair|"
                                    "meet_in_the_middle|quad_directional|direct|hierarchical"));
  CHECK_THROWS_WITH(parse_collective_op("x"),
                    Catch::Contains("allreduce|reduce_scatter|all_gather|all_to_all|broadcast"));
}

TEST_CASE("Transfer stays 24 bytes and derived fields come from the schedule", "[schedule]") {
  STATIC_REQUIRE(sizeof(Transfer) == 24);
  Schedule s;
  s.ipus_per_replica = 4;
  s.dtype = DType::Float16;
  Transfer t;
  t.src_ipu = 13;
  t.bytes = 10;
  CHECK(s.replica_of(t.src_ipu) == 3);
  CHECK(s.ipu_in_replica(t.src_ipu) == 1);
  CHECK(s.elems_of(t) == 5);
}
