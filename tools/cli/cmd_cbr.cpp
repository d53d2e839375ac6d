// `ipusim cbr`: the CollectiveBalancedReorder layout of a tile mapping over R replicas —
// per-tile padded blocks, shard size, gathered-to-reference slices, every replica's shard
// and the per-tile exchange load with and without CBR.
#include <spdlog/spdlog.h>

#include <boost/program_options.hpp>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "collectives/sharding/cbr.hpp"
#include "sim/errors.hpp"
#include "sim/json.hpp"
#include "sim/json_parse.hpp"
#include "tools/cli/cbr_input.hpp"
#include "tools/common/cli_util.hpp"

namespace ipusim::cli {
namespace {

std::uint64_t parseCount(const std::string& text, const std::string& what) {
  std::size_t used = 0;
  unsigned long long value = 0;
  try {
    value = std::stoull(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || text.empty() || text[0] == '-') {
    throw ConfigError(what + ": '" + text + "' is not a non-negative integer");
  }
  return value;
}

std::string readFile(const std::string& path) { return read_input_file(path, "tile mapping file"); }

template <typename T>
std::string listStr(const std::vector<T>& values) {
  std::string s = "[";
  for (std::size_t i = 0; i < values.size(); ++i) s += (i ? ", " : "") + std::to_string(values[i]);
  return s + "]";
}

}  // namespace

int cmd_cbr(const Args& args) {
  namespace po = boost::program_options;
  po::options_description opts(
      "ipusim cbr --replicas R (--mapping FILE | --mapping-json '[[[0,10]],[[10,16]]]') "
      "[--grain G] [--elem-bytes B] [--json]\n\nCollectiveBalancedReorder layout: the mapping "
      "lists, per tile, the half-open [begin,end) reference element intervals it holds. "
      "Grain 1 is PopART's open-source algorithm; grain > 1 is implementation-defined.\n\noptions");
  opts.add_options()("help", "show this help")(
      "quiet,q", "print only the result: warnings off (the command prints nothing else)")(
      "replicas", po::value<std::string>(), "replication factor of the shard group R (required)")(
      "mapping", po::value<std::string>(), "JSON file with the tile mapping")(
      "mapping-json", po::value<std::string>(), "the tile mapping as a JSON string")(
      "grain", po::value<std::string>()->default_value("1"), "grain size in elements")(
      "elem-bytes", po::value<std::string>()->default_value("4"), "bytes per element")(
      "json", "print JSON");
  const auto vm = parse_options(opts, {}, args);
  if (vm.count("help")) {
    std::cout << opts << "\n";
    return 0;
  }
  if (vm.count("quiet")) spdlog::set_level(spdlog::level::err);
  if (!vm.count("replicas")) throw ConfigError("--replicas is required (see --help)");
  if (vm.count("mapping") == vm.count("mapping-json")) {
    throw ConfigError("give exactly one of --mapping FILE or --mapping-json TEXT");
  }
  const std::uint64_t replicas = parseCount(vm["replicas"].as<std::string>(), "--replicas");
  const std::uint64_t grain = parseCount(vm["grain"].as<std::string>(), "--grain");
  const std::uint64_t elemBytes = parseCount(vm["elem-bytes"].as<std::string>(), "--elem-bytes");
  if (replicas == 0 || replicas > 0xffffffffULL) {
    throw ConfigError("--replicas must be between 1 and 2^32-1");
  }
  if (grain == 0) throw ConfigError("--grain must be positive");
  if (elemBytes == 0) throw ConfigError("--elem-bytes must be positive");
  const coll::TileMapping mapping =
      vm.count("mapping")
          ? parse_tile_mapping(readFile(vm["mapping"].as<std::string>()),
                               vm["mapping"].as<std::string>())
          : parse_tile_mapping(vm["mapping-json"].as<std::string>(), "--mapping-json");
  // Sizes checked before the layout is built: a huge mapping is refused, not an OOM abort.
  const std::uint64_t reference_elems = check_cbr_sizes(mapping, replicas, grain, elemBytes);
  if (reference_elems == 0) {
    const std::string source = vm.count("mapping") ? "--mapping " + vm["mapping"].as<std::string>()
                                                   : std::string("--mapping-json");
    throw ConfigError(source + ": /: the tile mapping holds no elements (" +
                      std::to_string(mapping.size()) +
                      " tiles, no non-empty [begin,end) interval); expected at least one, e.g. "
                      "[[[0,10]],[[10,16]]]");
  }
  const auto R = static_cast<unsigned>(replicas);

  Json out;
  try {
    const coll::CollectiveBalancedReorder cbr(mapping, R, grain);
    const auto without = coll::tileShardLoadWithoutCbr(mapping, R);
    const auto with = coll::tileShardLoadWithCbr(mapping, R, grain);
    out["replicas"] = R;
    out["grain_elems"] = grain;
    out["elem_bytes"] = elemBytes;
    out["reference_elems"] = cbr.getNumReferenceElems();
    out["elements_per_tile"] = cbr.getElementsPerTile();
    out["padded_elements_per_tile"] = cbr.getNumReplicaElementsPerTile();
    out["shard_elems"] = cbr.getTotalElementsPerReplica();
    out["rearranged_elems"] = cbr.getNumRearrangedTensorElems();
    out["rearranged_bytes"] = cbr.getNumRearrangedTensorElems() * elemBytes;
    Json slices = Json::array();
    for (const auto& s : cbr.getGatheredToRefSlices()) slices.push_back({s.begin, s.end});
    out["gathered_to_ref_slices"] = slices;
    Json shards = Json::array();
    for (unsigned r = 0; r < R; ++r) {
      Json shard = Json::array();
      for (const auto& ref : cbr.getReplicaShard(r))
        shard.push_back(ref ? Json(*ref) : Json(nullptr));
      shards.push_back(shard);
    }
    out["shards"] = shards;
    out["exchange"] = {
        {"max_elems_per_tile_per_replica_without_cbr", without.maxElemsPerTilePerReplica()},
        {"max_elems_per_tile_per_replica_with_cbr", with.maxElemsPerTilePerReplica()},
        {"max_bytes_per_tile_per_replica_without_cbr",
         without.maxElemsPerTilePerReplica() * elemBytes},
        {"max_bytes_per_tile_per_replica_with_cbr", with.maxElemsPerTilePerReplica() * elemBytes}};
  } catch (const coll::CbrError& e) {
    throw ConfigError(std::string("invalid CBR input: ") + e.what());
  }

  if (vm.count("json")) {
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  std::cout << "replicas: " << R << ", grain: " << grain
            << " elements, element bytes: " << elemBytes << "\n"
            << "reference elements: " << out["reference_elems"] << " on " << mapping.size()
            << " tiles\n"
            << "elements per tile:        "
            << listStr(out["elements_per_tile"].get<std::vector<std::uint64_t>>()) << "\n"
            << "padded counts per tile:   "
            << listStr(out["padded_elements_per_tile"].get<std::vector<std::uint64_t>>()) << "\n"
            << "shard size (per replica): " << out["shard_elems"] << " elements\n"
            << "rearranged tensor:        " << out["rearranged_elems"] << " elements, "
            << out["rearranged_bytes"] << " bytes\n"
            << "gatheredToRefSlices:     ";
  for (const auto& s : out["gathered_to_ref_slices"])
    std::cout << " [" << s[0] << "," << s[1] << ")";
  std::cout << "\nshards (reference indices, _ = padding):\n";
  for (std::size_t r = 0; r < out["shards"].size(); ++r) {
    std::cout << "  replica " << r << ":";
    for (const auto& e : out["shards"][r]) std::cout << " " << (e.is_null() ? "_" : e.dump());
    std::cout << "\n";
  }
  const auto& ex = out["exchange"];
  std::cout << "max elements one tile sends for one shard: without CBR "
            << ex["max_elems_per_tile_per_replica_without_cbr"] << ", with CBR "
            << ex["max_elems_per_tile_per_replica_with_cbr"] << "\n";
  return 0;
}

}  // namespace ipusim::cli
