// Network module: one SC_METHOD woken at the model's next event (or, for models that run
// ahead, at the next outside activity).
#include "models/network/network.hpp"

#include <algorithm>
#include <cmath>

#include "sim/errors.hpp"
#include "sim/sim_time.hpp"

namespace ipusim {

Network::Network(sc_core::sc_module_name name, std::vector<ResourceSpec> resources,
                 FlowEngineParams params, NetworkOptions options)
    : sc_core::sc_module(name), engine_(params), options_(options), wake_event_("wake_event") {
  engine_.reserve_resources(resources.size());
  for (ResourceSpec& r : resources) engine_.add_resource(std::move(r));
  model_ = network_model(options_.model).make(engine_, options_);
  model_->attach(*this);
  SC_METHOD(wake);
  sensitive << wake_event_;
  dont_initialize();
}

bool Network::admit(double work) {
  if (!refusal_.empty()) return false;
  planned_work_ += work;
  if (planned_work_ <= options_.max_chunk_hops) return true;
  refusal_ = model_->refusal(planned_work_, options_.max_chunk_hops, now_ns());
  sc_core::sc_stop();
  return false;
}

void Network::notify_delta() {
  // Batch: all starts of this delta cycle are allocated together in the next one.
  if (!in_wake_ && !delta_pending_) {
    delta_pending_ = true;
    wake_event_.notify(sc_core::SC_ZERO_TIME);
  }
}

void Network::start(const TransferRequest& req, Callback on_arrival) {
  if (model_->has_work_budget() && !admit(model_->work_of(req.route, req.bytes))) return;
  rebase_if_idle();
  const std::uint32_t slot = model_->start(engine_now_ns(), req.route, req.bytes, nullptr);
  if (callbacks_.size() <= slot) callbacks_.resize(slot + 1);
  callbacks_[slot] = std::move(on_arrival);
  notify_delta();
}

void Network::start_posted(const TransferRequest& req, Callback on_left, Callback on_arrival) {
  if (req.bytes == 0 || req.route.empty())
    throw SimulationError(
        "Network::start_posted: a posted transfer needs bytes > 0 and a route (nothing leaves "
        "otherwise)");
  if (model_->has_work_budget() && !admit(model_->work_of(req.route, req.bytes))) return;
  rebase_if_idle();
  const std::uint32_t slot = model_->start(engine_now_ns(), req.route, req.bytes, nullptr);
  model_->report_departure(slot);
  if (callbacks_.size() <= slot) callbacks_.resize(slot + 1);
  if (left_callbacks_.size() <= slot) left_callbacks_.resize(slot + 1);
  callbacks_[slot] = std::move(on_arrival);
  left_callbacks_[slot] = std::move(on_left);
  notify_delta();
}

TransferResult Network::send(const TransferRequest& req, Callback on_arrival) {
  TransferResult left;
  sc_core::sc_event done;
  start_posted(
      req,
      [&left, &done](const TransferResult& r) {
        left = r;
        done.notify(sc_core::SC_ZERO_TIME);
      },
      std::move(on_arrival));
  sc_core::wait(done);
  return left;
}

void Network::start_stream(const TransferRequest& req, std::uint64_t count,
                           Callback on_last_arrival) {
  if (!model_->can_stream())
    throw SimulationError(std::string("Network::start_stream: the ") + model_->name() +
                          " model has no streams");
  rebase_if_idle();
  const std::uint32_t slot =
      model_->start_stream(engine_now_ns(), req.route, req.bytes, count, nullptr);
  if (callbacks_.size() <= slot) callbacks_.resize(slot + 1);
  callbacks_[slot] = std::move(on_last_arrival);
  notify_delta();
}

TransferResult Network::transfer(const TransferRequest& req) { return transfer_all({req}).front(); }

std::vector<TransferResult> Network::transfer_all(const std::vector<TransferRequest>& reqs) {
  std::vector<TransferResult> results(reqs.size());
  if (reqs.empty()) return results;
  std::size_t pending = reqs.size();
  sc_core::sc_event done;
  for (std::size_t i = 0; i < reqs.size(); ++i) {
    start(reqs[i], [&results, &pending, &done, i](const TransferResult& r) {
      results[i] = r;
      if (--pending == 0) done.notify(sc_core::SC_ZERO_TIME);
    });
  }
  sc_core::wait(done);
  return results;
}

void Network::transfer_batch(const std::vector<const Route*>& routes,
                             const std::vector<std::uint64_t>& bytes) {
  if (routes.empty()) return;
  Batch batch;
  batch.pending = routes.size();
  if (model_->has_work_budget()) {
    double work = 0;
    for (std::size_t i = 0; i < routes.size(); ++i) work += model_->work_of(*routes[i], bytes[i]);
    if (!admit(work)) {
      sc_core::wait(batch.done);  // never notified: the run has been stopped
      return;
    }
  }
  // Batch flows arrive tagged with their Batch (a fast-path group arrives as one entry).
  rebase_if_idle();
  model_->start_batch(engine_now_ns(), routes, bytes, &batch);
  notify_delta();
  sc_core::wait(batch.done);
}

void Network::transfer_batch_folded(const std::vector<const Route*>& routes,
                                    const std::vector<std::uint64_t>& bytes,
                                    const FoldedBatch& folded, std::uint64_t flows) {
  play_folded(flows, [&](void* tag) {
    engine_.start_prefolded(engine_now_ns(), routes, bytes, folded, tag);
  });
}

void Network::transfer_batch_folded(const std::vector<const Route*>& routes,
                                    const std::vector<std::uint64_t>& bytes,
                                    const std::shared_ptr<const FoldRecord>& record,
                                    std::uint64_t flows) {
  play_folded(
      flows, [&](void* tag) { engine_.start_folded(engine_now_ns(), routes, bytes, record, tag); });
}

void Network::play_folded(std::uint64_t flows, const std::function<void(void*)>& start) {
  if (!engine_.folding())
    throw SimulationError("transfer_batch_folded: the network does not fold (set_fold())");
  if (flows == 0) return;
  ++prefolded_batches_;
  Batch batch;
  batch.pending = flows;
  // What transfer_batch() does for a batch the engine finds equitable, without the check.
  rebase_if_idle();
  start(&batch);
  notify_delta();
  sc_core::wait(batch.done);
}

double Network::engine_now_ns() const {
  return static_cast<double>(sc_core::sc_time_stamp().value() - origin_ps_) * 1e-3;
}

bool Network::idle() { return model_->idle(); }

bool Network::set_fold(std::shared_ptr<const ResourceCells> cells) {
  // Only the fluid model plays its flows on engine_ (the others keep their own state).
  if (std::string(model_->name()) != "fluid" || !engine_.params().fast_paths || !idle())
    return false;
  engine_.set_fold(std::move(cells));
  return engine_.folding();
}

void Network::rebase_if_idle() {
  // Idle, every resource's total rate is 0, so the engine's per-resource reference times
  // carry no state that a new origin could change (integrate() skips negative intervals).
  if (in_wake_ || !idle()) return;
  origin_ps_ = sc_core::sc_time_stamp().value();
}

void Network::deliver(const std::vector<Arrival>& arrivals) {
  // Take every callback out before running any: a callback may start a flow that reuses the
  // slot of a later arrival of the same batch.
  ready_.clear();
  for (const Arrival& a : arrivals) {
    if (a.tag) {
      Batch* batch = static_cast<Batch*>(a.tag);
      batch->pending -= a.count;
      if (batch->pending == 0) batch->done.notify(sc_core::SC_ZERO_TIME);
      continue;
    }
    const double origin_ns = static_cast<double>(origin_ps_) * 1e-3;  // 0 without replay
    // A departure keeps the flow's arrival callback (and its slot) for the arrival.
    std::vector<Callback>& from = a.departed ? left_callbacks_ : callbacks_;
    ready_.emplace_back(std::move(from[a.slot]), TransferResult{a.id, origin_ns + a.start_ns,
                                                                origin_ns + a.end_ns, a.bytes});
    from[a.slot] = nullptr;
  }
  for (auto& [cb, result] : ready_) {
    if (cb) cb(result);
  }
}

std::uint64_t Network::ps_to_next_activity() const {
  return sc_core::sc_time_to_pending_activity(sc_core::sc_get_curr_simcontext()).value();
}

void Network::wake() {
  ++wakeups_;
  delta_pending_ = false;
  in_wake_ = true;
  const std::uint64_t resume_ps =
      model_->run(sc_core::sc_time_stamp().value() - origin_ps_, origin_ps_, *this);
  in_wake_ = false;
  if (resume_ps == NetworkEngine::kNoResume) return schedule_next();
  wake_event_.cancel();
  delta_pending_ = false;
  wake_event_.notify(sc_core::sc_time(
      static_cast<double>(origin_ps_ + resume_ps - sc_core::sc_time_stamp().value()),
      sc_core::SC_PS));
}

void Network::schedule_next() {
  const double next = model_->next_event_ns();
  wake_event_.cancel();
  delta_pending_ = false;
  if (next == FlowEngine::kInf) return;
  // The engine's times count from origin_ps_.
  const sc_core::sc_time target =
      ns_to_sc(next) + sc_core::sc_time(static_cast<double>(origin_ps_), sc_core::SC_PS);
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  if (target <= now) {
    delta_pending_ = true;
    wake_event_.notify(sc_core::SC_ZERO_TIME);
  } else {
    wake_event_.notify(target - now);
  }
}

void Network::credit_replay(std::uint64_t flows, std::uint64_t wakeups,
                            const std::vector<std::pair<ResourceId, ResourceStats>>& resources) {
  model_->credit_replay(flows, resources);
  wakeups_ += wakeups;
}

ResourceStats Network::resource_stats(ResourceId id) const {
  return model_->resource_stats(id, engine_now_ns());
}

void write_resource_stats(Json& out, const ResourceStats& s, double capacity_Bpns, double now_ns) {
  if (s.transfers == 0) return;
  // Bytes and busy time are integrated rate x time in the fluid model: round away the
  // floating-point dust (to whole bytes and to the kernel's 1 ps), so the figures do not depend
  // on the order of the sums (a collective replayed from the executor's cache adds its
  // original's totals at once; playing it again adds them step by step).
  const double bytes = static_cast<double>(std::llround(s.bytes));
  const Json values[] = {Json(static_cast<std::uint64_t>(bytes)),
                         Json(static_cast<double>(std::llround(s.busy_ns * 1000.0)) / 1000.0),
                         Json(now_ns > 0 ? bytes / (capacity_Bpns * now_ns) : 0.0),
                         Json(s.transfers), Json(s.max_concurrent)};
  static const char* const keys[] = {"bytes", "busy_ns", "utilisation", "transfers",
                                     "max_concurrent"};
  if (out.is_object() && out.empty()) {
    // The usual case (a link's own node): append in order instead of looking each key up
    // (a 4096-IPU report writes 27 k of these).
    auto& entries = out.get_ref<Json::object_t&>();
    entries.reserve(5);
    for (std::size_t i = 0; i < 5; ++i) entries.emplace_back(keys[i], values[i]);
    return;
  }
  for (std::size_t i = 0; i < 5; ++i) out[keys[i]] = values[i];
}

void Network::collect_stats(Json& out) const {
  out["model"] = model_->name();
  out["flows"] = model_->flows_started();
  // Wake-ups are a simulator-speed figure (wakeups()), not a result: a collective replayed
  // from the executor's cache gives the same result with fewer, so they stay out of the report.
  model_->collect_stats(out);
}

}  // namespace ipusim
