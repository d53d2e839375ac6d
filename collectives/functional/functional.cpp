#include "collectives/functional/functional.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "collectives/functional/fp16_util.hpp"

namespace ipusim::coll {
namespace {

bool is_reducing(CollectiveOp op) {
  return op == CollectiveOp::AllReduce || op == CollectiveOp::ReduceScatter;
}

void check_inputs(const ReplicaBuffers& inputs, const std::vector<std::uint32_t>& members,
                  std::uint64_t n) {
  for (auto r : members) {
    if (r >= inputs.size() || inputs[r].size() != n) {
      throw std::invalid_argument("functional collective: replica " + std::to_string(r) +
                                  " needs an input of " + std::to_string(n) + " values");
    }
  }
}

/// Copies `count` working elements starting at `offset`, checking the bounds (a bad
/// schedule must fail loudly, not corrupt memory).
const double* span(const std::vector<double>& buffer, std::uint64_t offset, std::uint64_t count) {
  if (offset + count > buffer.size()) {
    throw std::out_of_range("functional collective: transfer outside the working buffer");
  }
  return buffer.data() + offset;
}

}  // namespace

double combine(ReduceOp op, double a, double b) {
  switch (op) {
    case ReduceOp::Add:
    case ReduceOp::Mean:
      return a + b;
    case ReduceOp::Mul:
      return a * b;
    case ReduceOp::Min:
      return std::min(a, b);
    case ReduceOp::Max:
      return std::max(a, b);
    case ReduceOp::Local:
      return a;
  }
  return a;
}

ReplicaBuffers run_functional(const Schedule& s, const ReplicaBuffers& inputs) {
  if (s.steps.size() != s.num_steps) {
    throw std::invalid_argument("functional collective: the schedule's steps were streamed");
  }
  std::vector<std::uint32_t> members;
  for (const auto& g : s.groups) members.insert(members.end(), g.begin(), g.end());
  check_inputs(inputs, members, s.elements_per_replica);

  ReplicaBuffers work(s.num_replicas);
  for (auto r : members) {
    work[r].assign(s.working_elems, 0.0);
    const std::uint64_t shift = s.input_map.shift(r);
    for (const auto& seg : s.input_map.segments) {
      for (std::uint64_t e = 0; e < seg.num_elems; ++e) {
        work[r].at(seg.working_offset + shift + e) =
            round_to_dtype(inputs[r][seg.logical_offset + e], s.dtype);
      }
    }
  }

  std::vector<double> staged;
  for (const auto& step : s.steps) {
    // Stage every read first: all reads see the buffers as at the start of the step.
    staged.clear();
    for (const auto& t : step.transfers) {
      const auto src = s.replica_of(t.src_ipu);
      const auto count = s.elems_of(t);
      const double* from = span(work.at(src), t.src_offset, count);
      staged.insert(staged.end(), from, from + count);
    }
    std::size_t pos = 0;
    for (const auto& t : step.transfers) {
      auto& dst = work.at(s.replica_of(t.dst_ipu));
      const auto count = s.elems_of(t);
      span(dst, t.dst_offset, count);
      for (std::uint64_t e = 0; e < count; ++e) {
        double& cell = dst[t.dst_offset + e];
        const double v = staged[pos + e];
        cell = round_to_dtype(step.reduce ? combine(s.reduce, cell, v) : v, s.dtype);
      }
      pos += count;
    }
  }

  const bool mean = s.reduce == ReduceOp::Mean && is_reducing(s.op);
  ReplicaBuffers out(s.num_replicas);
  for (auto r : members) {
    out[r].assign(s.output_elems, 0.0);
    const std::uint64_t shift = s.output_map.shift(r);
    for (const auto& seg : s.output_map.segments) {
      for (std::uint64_t e = 0; e < seg.num_elems; ++e) {
        out[r].at(seg.logical_offset + e) = work[r].at(seg.working_offset + shift + e);
      }
    }
    if (mean) {
      for (auto& v : out[r]) v = round_to_dtype(v / s.group_size, s.dtype);
    }
  }
  return out;
}

ReplicaBuffers direct_reference(CollectiveOp op, ReduceOp reduce, DType dtype,
                                const std::vector<std::vector<std::uint32_t>>& groups,
                                const ReplicaBuffers& inputs) {
  std::uint32_t num_replicas = 0;
  for (const auto& g : groups) {
    for (auto r : g) num_replicas = std::max(num_replicas, r + 1);
  }
  ReplicaBuffers out(num_replicas);
  for (const auto& g : groups) {
    const std::size_t k = g.size();
    const std::size_t n = inputs.at(g.front()).size();
    check_inputs(inputs, g, n);
    ReplicaBuffers in(k);
    for (std::size_t i = 0; i < k; ++i) {
      for (double v : inputs[g[i]]) in[i].push_back(round_to_dtype(v, dtype));
    }
    // Element-wise reduction over the group in group order, in double.
    std::vector<double> reduced(in[0]);
    for (std::size_t i = 1; i < k; ++i) {
      for (std::size_t e = 0; e < n; ++e) reduced[e] = combine(reduce, reduced[e], in[i][e]);
    }
    for (auto& v : reduced) {
      v = round_to_dtype(reduce == ReduceOp::Mean ? v / static_cast<double>(k) : v, dtype);
    }
    const std::size_t chunk = (n + k - 1) / k;  // ReduceScatter output size
    for (std::size_t i = 0; i < k; ++i) {
      auto& o = out[g[i]];
      switch (op) {
        case CollectiveOp::AllReduce:
          o = reduce == ReduceOp::Local ? in[i] : reduced;
          break;
        case CollectiveOp::ReduceScatter: {
          const auto& src = reduce == ReduceOp::Local ? in[i] : reduced;
          o.assign(chunk, 0.0);
          for (std::size_t e = 0; e < chunk && i * chunk + e < n; ++e) o[e] = src[i * chunk + e];
          break;
        }
        case CollectiveOp::AllGather:
          for (std::size_t j = 0; j < k; ++j) o.insert(o.end(), in[j].begin(), in[j].end());
          break;
        case CollectiveOp::AllToAll: {
          const std::size_t m = n / k;
          for (std::size_t j = 0; j < k; ++j) {
            o.insert(o.end(), in[j].begin() + i * m, in[j].begin() + (i + 1) * m);
          }
          break;
        }
        case CollectiveOp::Broadcast:
          o = in[0];
          break;
      }
    }
  }
  return out;
}

}  // namespace ipusim::coll
