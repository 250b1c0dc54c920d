#include "slab_exchange.hpp"

#include <cstring>
#include <numeric>

#include "dist/agree.hpp"
#include "dist/exchange.hpp"

namespace nufftmp::ewald::detail {

namespace {

// One ion on the move: the halo copies carry -(index + 1), the owned copies the index.
struct Moving {
  double x, y, z, q;
  std::int64_t tag;
};

}  // namespace

SlabExchange::SlabExchange(const dist::Context& ctx, const SlabLayout& layout,
                           std::vector<Ion>&& mine_in)
    : comm_(ctx.comm()), size_(ctx.size()),
      n_local_(static_cast<std::int64_t>(mine_in.size())) {
  using dist::detail::agreed;
  const std::size_t n = mine_in.size();
  const auto n_local = n_local_;
  if (size_ == 1) {
    ions_ = std::move(mine_in);
    n_owned_ = n_local;
    origin_rank_.assign(n, 0);
    origin_index_.resize(n);
    std::iota(origin_index_.begin(), origin_index_.end(), std::int64_t(0));
    return;
  }
  // Two passes: count per destination, then fill in ion order.
  const std::vector<Ion> given = std::move(mine_in);
  const Ion* mine = given.data();
  std::vector<std::int64_t> count(static_cast<std::size_t>(size_), 0);
  std::vector<Moving> send;
  agreed(comm_, [&] {
    owner_of_.resize(n);
    std::vector<int> halo;
    for (std::size_t i = 0; i < n; ++i) {
      owner_of_[i] = layout.owner(mine[i].z);
      ++count[owner_of_[i]];
      layout.halo_ranks(mine[i].z, halo);
      for (int r : halo) ++count[r];
    }
    std::vector<std::int64_t> next(static_cast<std::size_t>(size_) + 1, 0);
    for (int r = 0; r < size_; ++r) next[r + 1] = next[r] + count[r];
    send.resize(static_cast<std::size_t>(next[size_]));
    for (std::size_t i = 0; i < n; ++i) {
      const Ion& a = mine[i];
      const auto idx = static_cast<std::int64_t>(i);
      send[next[owner_of_[i]]++] = {a.x, a.y, a.z, a.q, idx};
      layout.halo_ranks(a.z, halo);
      for (int r : halo) send[next[r]++] = {a.x, a.y, a.z, a.q, -(idx + 1)};
    }
  });
  std::vector<std::int64_t> bytes(count.size());
  for (std::size_t r = 0; r < count.size(); ++r)
    bytes[r] = count[r] * static_cast<std::int64_t>(sizeof(Moving));
  const auto got = dist::detail::exchange_bytes(comm_, send.data(), bytes);
  send = std::vector<Moving>();

  // Owned first (by source rank, in the source's order), then the halo.
  agreed(comm_, [&] { unpack(got.data.data(), got.recv_bytes); });
}

void SlabExchange::unpack(const char* data, const std::vector<std::int64_t>& recv_bytes) {
  const auto* in = reinterpret_cast<const Moving*>(data);
  std::int64_t total = 0, owned = 0;
  owned_from_.assign(static_cast<std::size_t>(size_), 0);
  std::vector<std::int64_t> first(static_cast<std::size_t>(size_) + 1, 0);
  for (int r = 0; r < size_; ++r) {
    const std::int64_t m = recv_bytes[r] / static_cast<std::int64_t>(sizeof(Moving));
    first[r + 1] = first[r] + m;
    for (std::int64_t k = first[r]; k < first[r + 1]; ++k)
      if (in[k].tag >= 0) ++owned_from_[r];
    owned += owned_from_[r];
  }
  total = first[size_];
  n_owned_ = owned;
  ions_.resize(static_cast<std::size_t>(total));
  origin_rank_.resize(static_cast<std::size_t>(total));
  origin_index_.resize(static_cast<std::size_t>(total));
  std::int64_t o = 0, h = owned;
  for (int r = 0; r < size_; ++r)
    for (std::int64_t k = first[r]; k < first[r + 1]; ++k) {
      const Moving& m = in[k];
      const std::int64_t at = m.tag >= 0 ? o++ : h++;
      ions_[at] = {m.x, m.y, m.z, m.q};
      origin_rank_[at] = r;
      origin_index_[at] = m.tag >= 0 ? m.tag : -(m.tag + 1);
    }
}

void SlabExchange::return_values(const std::vector<const double*>& values,
                                 const std::vector<double*>& out) const {
  const std::size_t nv = values.size();
  if (nv == 0) return;
  if (size_ == 1) {
    for (std::size_t v = 0; v < nv; ++v)
      if (n_owned_ > 0) std::memcpy(out[v], values[v], sizeof(double) * n_owned_);
    return;
  }
  // Owned ions are grouped by source rank already: send each group home, nv values per ion.
  std::vector<double> send;
  dist::detail::agreed(comm_, [&] {
    send.resize(static_cast<std::size_t>(n_owned_) * nv);
    for (std::int64_t i = 0; i < n_owned_; ++i)
      for (std::size_t v = 0; v < nv; ++v) send[i * nv + v] = values[v][i];
  });
  std::vector<std::int64_t> bytes(static_cast<std::size_t>(size_));
  for (int r = 0; r < size_; ++r)
    bytes[r] = owned_from_[r] * static_cast<std::int64_t>(nv * sizeof(double));
  const auto got = dist::detail::exchange_bytes(comm_, send.data(), bytes);
  // From owner r: this rank's ions with owner r, in increasing index.
  const auto* in = reinterpret_cast<const double*>(got.data.data());
  std::vector<std::int64_t> at(static_cast<std::size_t>(size_) + 1, 0);
  for (int r = 0; r < size_; ++r)
    at[r + 1] = at[r] + got.recv_bytes[r] / static_cast<std::int64_t>(nv * sizeof(double));
  for (std::int64_t j = 0; j < n_local_; ++j) {
    const std::int64_t k = at[owner_of_[j]]++;
    for (std::size_t v = 0; v < nv; ++v) out[v][j] = in[k * nv + v];
  }
}

}  // namespace nufftmp::ewald::detail
