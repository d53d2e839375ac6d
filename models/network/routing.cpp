// Resource table construction and shortest-path routing on ladder/torus domains and
// GW-Link rings/switches.
#include "models/network/routing.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <initializer_list>
#include <string>
#include <string_view>

#include "sim/errors.hpp"

namespace ipusim {
namespace {

std::string machine_name(std::uint32_t m) { return "m" + std::to_string(m); }

/// One piece of a resource name: text or a decimal number.
struct NamePiece {
  NamePiece(const char* t) : text(t) {}                       // NOLINT: implicit by design
  NamePiece(const std::string& t) : text(t) {}                // NOLINT
  NamePiece(std::uint32_t n) : number(n), is_number(true) {}  // NOLINT
  std::string_view text;
  std::uint32_t number = 0;
  bool is_number = false;
};

/// The pieces written one after another into one string (the names of the per-IPU links,
/// 27 k of them at 4,096 IPUs: a chain of operator+ made a temporary string per piece).
std::string join_name(std::initializer_list<NamePiece> pieces) {
  // Written into a buffer on the stack, then copied once (one allocation per name).
  char buf[128];
  std::size_t n = 0;
  constexpr std::size_t kMaxDigits = 10;  // of a 32-bit number
  for (const NamePiece& p : pieces) {
    if (n + (p.is_number ? kMaxDigits : p.text.size()) > sizeof(buf)) {
      // Longer than any name this file makes: the rest piece by piece.
      std::string out(buf, n);
      for (const NamePiece& q : pieces)
        if (&q >= &p) out += q.is_number ? std::to_string(q.number) : std::string(q.text);
      return out;
    }
    if (p.is_number) {
      n = static_cast<std::size_t>(std::to_chars(buf + n, buf + sizeof(buf), p.number).ptr - buf);
    } else {
      p.text.copy(buf + n, p.text.size());
      n += p.text.size();
    }
  }
  return std::string(buf, n);
}

}  // namespace

Topology::Topology(const HwParams& p)
    : num_ipus_(p.num_ipus()),
      num_ilds_(p.system.num_ilds),
      ild_size_(p.ild_size_ipus()),
      ipm_(p.machine.ipus_per_machine),
      rungs_(std::max<std::uint32_t>(1, p.ild_size_ipus() / 2)),
      machines_per_ild_(p.system.machines_per_ild),
      wraps_(p.system.ipu_link_topology == IpuLinkTopology::Torus && rungs_ >= 3 &&
             p.ipu_link.torus_wrap_links > 0),
      gw_(p.system.gw_topology),
      pcie_card_(p.machine.host_attachment == HostAttachment::PcieCard),
      pcie_per_switch_(std::max<std::uint32_t>(1, p.machine.pcie_card_ipus_per_switch)) {
  const auto n = num_ipus_;
  partner_.assign(n, kNone);
  cross_.assign(n, kNone);
  up_.assign(n, kNone);
  down_.assign(n, kNone);
  gw_to_ipu_.assign(n, kNone);
  ipu_to_gw_.assign(n, kNone);
  tier_flow_ = p.tier_flow;
  // Room for the usual table (up to 4 IPU-Link directions and 2 gateway links per IPU, DDR,
  // host and GW-Links per machine) so that it is not moved while it grows.
  const std::size_t expected = 6 * static_cast<std::size_t>(n) + 8 * num_machines();
  specs_.reserve(expected);
  kinds_.reserve(expected);
  owner_.reserve(expected);
  build_ipu_links(p);
  build_machines(p);
  build_gw_links(p);
}

const FlowControl& Topology::tier_flow(ResourceKind kind) const {
  return tier_flow_[static_cast<std::size_t>(kind)];
}

ResourceId Topology::add(std::string name, ResourceKind kind, std::string group, double cap_Bpns,
                         double latency_ns, std::uint32_t links, std::uint32_t owner) {
  ResourceSpec spec{std::move(name),  kind, cap_Bpns, latency_ns, links,
                    std::move(group), {},   {},       {}};
  const FlowControl& f = tier_flow(kind);
  spec.chunk_bytes = f.chunk_bytes;
  spec.credits_bytes = f.credits_bytes;
  spec.arbitration = f.arbitration;
  specs_.push_back(std::move(spec));
  kinds_.push_back(kind);
  owner_.push_back(owner);
  return static_cast<ResourceId>(specs_.size() - 1);
}

ResourceId Topology::machine_resource(std::uint32_t machine, ResourceKind kind,
                                      std::size_t n) const {
  if (by_machine_.empty()) {
    by_machine_.resize(num_machines());
    for (ResourceId id = 0; id < owner_.size(); ++id)
      if (owner_[id] != kNone) by_machine_[owner_[id]].push_back(id);
  }
  if (machine >= by_machine_.size()) return kNone;
  for (ResourceId id : by_machine_[machine]) {
    if (kinds_[id] == kind && n-- == 0) return id;
  }
  return kNone;
}

std::vector<std::uint32_t> Topology::symmetry_cells() const {
  machine_resource(0, ResourceKind::IpuLink);  // builds by_machine_
  std::vector<std::uint32_t> cells(owner_.size(), 0);
  std::uint32_t next = 0;
  // Owned resources: the same (position in domain, index in machine) in every domain. Each
  // machine lists its resources in id order, and every domain adds them in the same pattern.
  std::vector<std::vector<std::uint32_t>> owned(machines_per_ild_);
  for (std::uint32_t m = 0; m < by_machine_.size(); ++m) {
    auto& ids = owned[m % machines_per_ild_];
    const auto& mine = by_machine_[m];
    for (std::size_t i = 0; i < mine.size(); ++i) {
      if (i == ids.size()) ids.push_back(next++);
      cells[mine[i]] = ids[i];
    }
  }
  // Leaf resources: one cell per kind of bundle over all leaves.
  for (const auto* leaf : {&leaf_switch_, &leaf_up_, &leaf_down_}) {
    if (leaf->empty()) continue;
    for (ResourceId id : *leaf) cells[id] = next;
    ++next;
  }
  std::vector<char> placed(owner_.size(), 0);
  for (const auto* leaf : {&leaf_switch_, &leaf_up_, &leaf_down_})
    for (ResourceId id : *leaf) placed[id] = 1;
  for (ResourceId id = 0; id < owner_.size(); ++id)
    if (owner_[id] == kNone && !placed[id]) cells[id] = next++;
  return cells;
}

void Topology::release_specs() {
  specs_.clear();
  specs_.shrink_to_fit();
}

void Topology::build_ipu_links(const HwParams& p) {
  if (ild_size_ < 2) return;
  const IpuLinkParams& l = p.ipu_link;
  if (l.partner_links + l.cross_links == 0) {
    throw ConfigError(
        "/ipu_link: partner_links + cross_links is 0, so the IPUs of a rung cannot reach each "
        "other");
  }
  if (rungs_ > 1 && (l.up_links == 0 || l.down_links == 0)) {
    throw ConfigError("/ipu_link: up_links and down_links must be > 0 for an IPU-Link domain of " +
                      std::to_string(ild_size_) + " IPUs");
  }
  const double link = l.link_Bpns();
  for (std::uint32_t ipu = 0; ipu < num_ipus_; ++ipu) {
    const std::uint32_t partner = ipu ^ 1u;
    // Without dedicated cross links, crossing traffic shares the partner bundle (and vice versa).
    if (l.partner_links > 0) {
      partner_[ipu] = add(join_name({"ipu", ipu, "->ipu", partner, ".partner"}),
                          ResourceKind::IpuLink, "ipu_link.partner", l.partner_links * link,
                          l.latency_ns, l.partner_links, machine_of(ipu));
    }
    if (l.cross_links > 0) {
      cross_[ipu] =
          add(join_name({"ipu", ipu, "->ipu", partner, ".cross"}), ResourceKind::IpuLink,
              "ipu_link.cross", l.cross_links * link, l.latency_ns, l.cross_links, machine_of(ipu));
    }
    if (partner_[ipu] == kNone) partner_[ipu] = cross_[ipu];
    if (cross_[ipu] == kNone) cross_[ipu] = partner_[ipu];
    const std::uint32_t k = local_of(ipu) / 2;
    if (k + 1 < rungs_ || wraps_) {
      const bool wrap = k + 1 >= rungs_;
      const std::uint32_t links = wrap ? l.torus_wrap_links : l.up_links;
      up_[ipu] = add(join_name({"ipu", ipu, "->ipu", step_rail(ipu, true), wrap ? ".wrap" : ".up"}),
                     ResourceKind::IpuLink, wrap ? "ipu_link.wrap" : "ipu_link.rail", links * link,
                     l.latency_ns, links, machine_of(ipu));
    }
    if (k > 0 || wraps_) {
      const bool wrap = k == 0;
      const std::uint32_t links = wrap ? l.torus_wrap_links : l.down_links;
      down_[ipu] =
          add(join_name({"ipu", ipu, "->ipu", step_rail(ipu, false), wrap ? ".wrap" : ".down"}),
              ResourceKind::IpuLink, wrap ? "ipu_link.wrap" : "ipu_link.rail", links * link,
              l.latency_ns, links, machine_of(ipu));
    }
  }
}

void Topology::build_machines(const HwParams& p) {
  const MachineParams& m = p.machine;
  const std::uint32_t machines = num_machines();
  ddr_.assign(machines, kNone);
  host_in_.assign(machines, kNone);
  host_out_.assign(machines, kNone);
  for (std::uint32_t mi = 0; mi < machines; ++mi) {
    const std::string mn = machine_name(mi);
    ddr_[mi] = add(mn + ".ddr", ResourceKind::Ddr, "ddr", m.ddr_bandwidth_GBps * m.ddr_efficiency,
                   m.ddr_latency_ns, 1, mi);
    // A C2 card has no host link of its own: its IPUs' PCIe links are built below.
    if (!pcie_card_) {
      host_in_[mi] = add("host->" + mn, ResourceKind::HostLink, "host_link",
                         m.host_link_GBps * m.host_link_efficiency, m.host_link_latency_ns, 1, mi);
      host_out_[mi] = add(mn + "->host", ResourceKind::HostLink, "host_link",
                          m.host_link_GBps * m.host_link_efficiency, m.host_link_latency_ns, 1, mi);
    }
    for (std::uint32_t i = 0; i < ipm_; ++i) {
      const std::uint32_t ipu = mi * ipm_ + i;
      const double cap = m.ipu_gateway_link_GBps * m.ipu_gateway_link_efficiency;
      gw_to_ipu_[ipu] = add(join_name({mn, ".gw->ipu", ipu}), ResourceKind::GatewayLink,
                            "gateway_link", cap, m.ipu_gateway_link_latency_ns, 1, mi);
      ipu_to_gw_[ipu] = add(join_name({"ipu", ipu, "->", mn, ".gw"}), ResourceKind::GatewayLink,
                            "gateway_link", cap, m.ipu_gateway_link_latency_ns, 1, mi);
    }
  }
  if (pcie_card_) build_pcie_cards(p);
}

void Topology::build_pcie_cards(const HwParams& p) {
  // Each IPU's PCIe link to the host, and each host PCIe switch's uplink shared by the
  // ipus_per_switch IPUs behind it. Each direction's efficiency follows its TLPs: host -> IPU
  // data comes back as the host's read completions (read_completion_bytes each), IPU -> host
  // data goes as writes of the gateway link's TLP payload; both lose the same bytes per TLP.
  const MachineParams& m = p.machine;
  const double eff_down = m.pcie_efficiency_at(m.pcie_card_read_completion_bytes);
  const double eff_up = m.ipu_gateway_link_efficiency;  // the efficiency at that payload
  const std::uint32_t per_switch = m.pcie_card_ipus_per_switch;
  const std::uint32_t switches = (num_ipus_ + per_switch - 1) / per_switch;
  switch_down_.assign(switches, kNone);
  switch_up_.assign(switches, kNone);
  for (std::uint32_t s = 0; s < switches; ++s) {
    // Latency 0: the one-way host <-> IPU latency sits on the IPU's link, switch included.
    switch_down_[s] = add(join_name({"host->pcie_switch", s}), ResourceKind::HostLink,
                          "pcie_switch", m.pcie_card_switch_uplink_GBps * eff_down, 0, 1, kNone);
    switch_up_[s] = add(join_name({"pcie_switch", s, "->host"}), ResourceKind::HostLink,
                        "pcie_switch", m.pcie_card_switch_uplink_GBps * eff_up, 0, 1, kNone);
  }
  pcie_in_.assign(num_ipus_, kNone);
  pcie_out_.assign(num_ipus_, kNone);
  for (std::uint32_t ipu = 0; ipu < num_ipus_; ++ipu) {
    pcie_in_[ipu] =
        add(join_name({"host->ipu", ipu, ".pcie"}), ResourceKind::HostLink, "pcie_card",
            m.pcie_card_link_GBps * eff_down, m.pcie_card_link_latency_ns, 1, machine_of(ipu));
    pcie_out_[ipu] =
        add(join_name({"ipu", ipu, "->host.pcie"}), ResourceKind::HostLink, "pcie_card",
            m.pcie_card_link_GBps * eff_up, m.pcie_card_link_latency_ns, 1, machine_of(ipu));
  }
}

void Topology::build_gw_links(const HwParams& p) {
  if (num_ilds_ < 2 || gw_ == GwTopology::None) return;
  const MachineParams& m = p.machine;
  const std::uint32_t g = m.gw_links_per_machine;
  if (g == 0)
    throw ConfigError(
        "/machine/gw_link/links_per_machine is 0 but the system has several IPU-Link domains");
  const double link = m.gw_link_bandwidth_GBps * m.gw_link_efficiency;
  const std::uint32_t machines = num_machines();
  if (gw_ == GwTopology::LeafSpine) {
    build_leaf_spine(p);
    return;
  }
  if (gw_ == GwTopology::Switch) {
    uplink_.assign(machines, kNone);
    downlink_.assign(machines, kNone);
    switch_ = add("gw_switch", ResourceKind::GwSwitch, "gw_switch", m.switch_bandwidth_GBps,
                  m.switch_latency_ns, 1, kNone);
    for (std::uint32_t mi = 0; mi < machines; ++mi) {
      uplink_[mi] = add(machine_name(mi) + "->gw_switch", ResourceKind::GwLink, "gw_link", g * link,
                        m.gw_link_latency_ns, g, mi);
      // The GW-Link latency is paid once per traversal: on the uplink.
      downlink_[mi] = add("gw_switch->" + machine_name(mi), ResourceKind::GwLink, "gw_link",
                          g * link, 0.0, g, mi);
    }
    return;
  }
  // Ring: the east port of machine position q in domain x is cabled to the west port of the
  // same position in domain x+1. With two domains both cables join the same pair, so each
  // direction is one bundle of all g links.
  east_.assign(machines, kNone);
  west_.assign(machines, kNone);
  const std::uint32_t east_links = num_ilds_ == 2 ? g : (g + 1) / 2;
  const std::uint32_t west_links = num_ilds_ == 2 ? 0 : g / 2;
  for (std::uint32_t x = 0; x < num_ilds_; ++x) {
    for (std::uint32_t q = 0; q < machines_per_ild_; ++q) {
      const std::uint32_t mi = x * machines_per_ild_ + q;
      const std::uint32_t me = ((x + 1) % num_ilds_) * machines_per_ild_ + q;
      const std::uint32_t mw = ((x + num_ilds_ - 1) % num_ilds_) * machines_per_ild_ + q;
      east_[mi] = add(machine_name(mi) + "->" + machine_name(me) + ".gw_link", ResourceKind::GwLink,
                      "gw_link", east_links * link, m.gw_link_latency_ns, east_links, mi);
      west_[mi] = west_links == 0 ? kNone
                                  : add(machine_name(mi) + "->" + machine_name(mw) + ".gw_link",
                                        ResourceKind::GwLink, "gw_link", west_links * link,
                                        m.gw_link_latency_ns, west_links, mi);
    }
  }
}

void Topology::build_leaf_spine(const HwParams& p) {
  const MachineParams& m = p.machine;
  const std::uint32_t g = m.gw_links_per_machine;
  const double link = m.gw_link_bandwidth_GBps * m.gw_link_efficiency;
  leaf_ilds_ = p.system.gw_leaf_ilds;
  const std::uint32_t leaves = num_ilds_ / leaf_ilds_;
  const std::uint32_t machines_per_leaf = leaf_ilds_ * machines_per_ild_;
  // A leaf's uplink bundle to the spine: its machines' GW-Link capacity / oversubscription.
  const double leaf_up_Bpns = machines_per_leaf * g * link / m.leaf_oversubscription;
  const auto leaf_up_links = static_cast<std::uint32_t>(
      std::ceil(static_cast<double>(machines_per_leaf) * g / m.leaf_oversubscription));
  leaf_switch_.assign(leaves, kNone);
  leaf_up_.assign(leaves, kNone);
  leaf_down_.assign(leaves, kNone);
  for (std::uint32_t x = 0; x < leaves; ++x) {
    const std::string ln = "leaf" + std::to_string(x);
    leaf_switch_[x] = add(ln + ".gw_switch", ResourceKind::GwSwitch, "gw_switch",
                          m.switch_bandwidth_GBps, m.switch_latency_ns, 1, kNone);
    // The spine is non-blocking (ASSUMPTION, /machine/gw_link/leaf_oversubscription): its
    // traversal latency is paid on the uplink, its capacity is the leaves' uplinks.
    leaf_up_[x] = add(ln + "->spine", ResourceKind::GwLink, "gw_spine_link", leaf_up_Bpns,
                      m.switch_latency_ns, leaf_up_links, kNone);
    leaf_down_[x] = add("spine->" + ln, ResourceKind::GwLink, "gw_spine_link", leaf_up_Bpns, 0.0,
                        leaf_up_links, kNone);
  }
  const std::uint32_t machines = num_machines();
  uplink_.assign(machines, kNone);
  downlink_.assign(machines, kNone);
  for (std::uint32_t mi = 0; mi < machines; ++mi) {
    const std::string ln = "leaf" + std::to_string(mi / machines_per_leaf);
    uplink_[mi] = add(machine_name(mi) + "->" + ln, ResourceKind::GwLink, "gw_link", g * link,
                      m.gw_link_latency_ns, g, mi);
    downlink_[mi] =
        add(ln + "->" + machine_name(mi), ResourceKind::GwLink, "gw_link", g * link, 0.0, g, mi);
  }
}

std::uint32_t Topology::step_rail(std::uint32_t ipu, bool up) const {
  const std::uint32_t base = ild_of(ipu) * ild_size_;
  const std::uint32_t local = local_of(ipu);
  const std::uint32_t k = local / 2, rail = local % 2;
  const std::uint32_t k2 = up ? (k + 1) % rungs_ : (k + rungs_ - 1) % rungs_;
  return base + k2 * 2 + rail;
}

void Topology::append_ild_route(Route& out, std::uint32_t src, std::uint32_t dst) const {
  if (src == dst) return;
  const std::uint32_t ls = local_of(src), ld = local_of(dst);
  const std::uint32_t ks = ls / 2, kd = ld / 2;
  if (ks == kd) {
    out.push_back(partner_[src]);
    return;
  }
  std::uint32_t cur = src;
  if (ls % 2 != ld % 2) {
    out.push_back(cross_[src]);
    cur = src ^ 1u;
  }
  bool up;
  std::uint32_t steps;
  if (wraps_) {
    const std::uint32_t up_dist = (kd + rungs_ - ks) % rungs_;
    up = up_dist <= rungs_ - up_dist;
    steps = up ? up_dist : rungs_ - up_dist;
  } else {
    up = kd > ks;
    steps = up ? kd - ks : ks - kd;
  }
  for (std::uint32_t s = 0; s < steps; ++s) {
    out.push_back(up ? up_[cur] : down_[cur]);
    cur = step_rail(cur, up);
  }
}

std::uint32_t Topology::gw_hops(std::uint32_t ild_a, std::uint32_t ild_b) const {
  if (ild_a == ild_b) return 0;
  if (gw_ == GwTopology::Switch || gw_ == GwTopology::LeafSpine) return 1;
  const std::uint32_t d = (ild_b + num_ilds_ - ild_a) % num_ilds_;
  if (west_.empty() || west_[0] == kNone) return d;  // eastward only
  return std::min(d, num_ilds_ - d);
}

void Topology::append_gw_route(Route& out, std::uint32_t src, std::uint32_t dst) const {
  out.push_back(ipu_to_gw_[src]);
  const std::uint32_t ms = machine_of(src), md = machine_of(dst);
  if (gw_ == GwTopology::Switch) {
    out.push_back(uplink_[ms]);
    out.push_back(switch_);
    out.push_back(downlink_[md]);
    out.push_back(gw_to_ipu_[dst]);
    return;
  }
  if (gw_ == GwTopology::LeafSpine) {
    const std::uint32_t ls = leaf_of_ild(ild_of(src)), ld = leaf_of_ild(ild_of(dst));
    out.push_back(uplink_[ms]);
    out.push_back(leaf_switch_[ls]);
    if (ls != ld) {
      out.push_back(leaf_up_[ls]);
      out.push_back(leaf_down_[ld]);
      out.push_back(leaf_switch_[ld]);
    }
    out.push_back(downlink_[md]);
    out.push_back(gw_to_ipu_[dst]);
    return;
  }
  std::uint32_t x = ild_of(src);
  const std::uint32_t target = ild_of(dst);
  const std::uint32_t q = (ms % machines_per_ild_);
  const std::uint32_t d = (target + num_ilds_ - x) % num_ilds_;
  const bool east = west_[0] == kNone || d <= num_ilds_ - d;
  const std::uint32_t steps = east ? d : num_ilds_ - d;
  for (std::uint32_t s = 0; s < steps; ++s) {
    const std::uint32_t mi = x * machines_per_ild_ + q;
    out.push_back(east ? east_[mi] : west_[mi]);
    x = east ? (x + 1) % num_ilds_ : (x + num_ilds_ - 1) % num_ilds_;
  }
  // Land on the IPU with the same local position, then continue on IPU-Links.
  const std::uint32_t landing = target * ild_size_ + local_of(src);
  out.push_back(gw_to_ipu_[landing]);
  append_ild_route(out, landing, dst);
}

Route Topology::route(std::uint32_t src, std::uint32_t dst) const {
  if (src >= num_ipus_ || dst >= num_ipus_) {
    throw ConfigError("route: IPU " + std::to_string(std::max(src, dst)) +
                      " does not exist (the system has " + std::to_string(num_ipus_) + " IPUs)");
  }
  Route out;
  if (ild_of(src) == ild_of(dst)) {
    append_ild_route(out, src, dst);
  } else {
    append_gw_route(out, src, dst);
  }
  return out;
}

std::uint32_t Topology::ipu_link_hops(std::uint32_t src, std::uint32_t dst) const {
  Route r;
  append_ild_route(r, src, dst);
  return static_cast<std::uint32_t>(r.size());
}

Route Topology::remote_load_route(std::uint32_t ipu) const {
  // A C2 card has no streaming memory: remote buffers live in host memory.
  if (pcie_card_) return host_write_route(ipu);
  return {ddr_[machine_of(ipu)], gw_to_ipu_[ipu]};
}
Route Topology::remote_store_route(std::uint32_t ipu) const {
  if (pcie_card_) return host_read_route(ipu);
  return {ipu_to_gw_[ipu], ddr_[machine_of(ipu)]};
}
Route Topology::host_write_route(std::uint32_t ipu) const {
  if (pcie_card_) return {switch_down_[ipu / pcie_per_switch_], pcie_in_[ipu]};
  const std::uint32_t m = machine_of(ipu);
  return {host_in_[m], ddr_[m], gw_to_ipu_[ipu]};
}
Route Topology::host_read_route(std::uint32_t ipu) const {
  if (pcie_card_) return {pcie_out_[ipu], switch_up_[ipu / pcie_per_switch_]};
  const std::uint32_t m = machine_of(ipu);
  return {ipu_to_gw_[ipu], ddr_[m], host_out_[m]};
}

LinkTier Topology::tier(const Route& route) const {
  LinkTier t = LinkTier::Local;
  auto rank = [](LinkTier x) {
    switch (x) {
      case LinkTier::Local:
        return 0;
      case LinkTier::IpuLink:
        return 1;
      case LinkTier::StreamingMemory:
        return 2;
      case LinkTier::GwLink:
        return 3;
      case LinkTier::HostIo:
        return 4;
    }
    return 0;
  };
  for (ResourceId r : route) {
    const LinkTier k = link_tier(kinds_[r]).breakdown;
    if (rank(k) > rank(t)) t = k;
  }
  return t;
}

}  // namespace ipusim
