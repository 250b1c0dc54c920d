// scatter_points / gather_to_root and the 64-bit-safe byte movers under them.
#include "scatter_gather.hpp"

#include <complex>
#include <cstring>

#include "agree.hpp"
#include "context_impl.hpp"
#include "mpi_check.hpp"
#include "mpi_pieces.hpp"

namespace nufftmp::dist {

namespace detail {

namespace {

constexpr int kTag = 7301;

bool fits_collective(const std::vector<std::int64_t>& bytes, std::int64_t max_piece) {
  std::int64_t total = 0;
  for (auto b : bytes) total += b;
  return total <= max_piece;  // then every count and displacement fits too
}

// The first n entries of v as the ints MPI's collectives take (fits_collective said they fit).
std::vector<int> as_int(const std::vector<std::int64_t>& v, std::size_t n) {
  return std::vector<int>(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(n));
}

}  // namespace

void gather_bytes(MPI_Comm comm, const void* local, const std::vector<std::int64_t>& bytes,
                  void* out, int root, std::int64_t max_piece) {
  int rank = 0;
  NUFFTMP_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  const auto displs = displacements(bytes);
  if (fits_collective(bytes, max_piece)) {
    const auto counts = as_int(bytes, bytes.size());
    const auto d = as_int(displs, bytes.size());
    NUFFTMP_MPI_CHECK(MPI_Gatherv(local, counts[rank], MPI_BYTE, out, counts.data(), d.data(),
                                  MPI_BYTE, root, comm));
    return;
  }
  std::vector<MPI_Request> reqs;
  if (rank != root) {
    isend_bytes(comm, local, bytes[rank], root, kTag, max_piece, reqs);
    wait_all(reqs);
    return;
  }
  char* o = static_cast<char*>(out);
  for (int r = 0; r < static_cast<int>(bytes.size()); ++r)
    if (r != root) irecv_bytes(comm, o + displs[r], bytes[r], r, kTag, max_piece, reqs);
  if (bytes[root] > 0) std::memcpy(o + displs[root], local, static_cast<std::size_t>(bytes[root]));
  wait_all(reqs);
}

void scatter_bytes(MPI_Comm comm, const void* all, const std::vector<std::int64_t>& bytes,
                   void* local, int root, std::int64_t max_piece) {
  int rank = 0;
  NUFFTMP_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  const auto displs = displacements(bytes);
  if (fits_collective(bytes, max_piece)) {
    const auto counts = as_int(bytes, bytes.size());
    const auto d = as_int(displs, bytes.size());
    NUFFTMP_MPI_CHECK(MPI_Scatterv(all, counts.data(), d.data(), MPI_BYTE, local, counts[rank],
                                   MPI_BYTE, root, comm));
    return;
  }
  std::vector<MPI_Request> reqs;
  if (rank != root) {
    irecv_bytes(comm, local, bytes[rank], root, kTag, max_piece, reqs);
    wait_all(reqs);
    return;
  }
  const char* a = static_cast<const char*>(all);
  for (int r = 0; r < static_cast<int>(bytes.size()); ++r)
    if (r != root) isend_bytes(comm, a + displs[r], bytes[r], r, kTag, max_piece, reqs);
  if (bytes[root] > 0) std::memcpy(local, a + displs[root], static_cast<std::size_t>(bytes[root]));
  wait_all(reqs);
}

}  // namespace detail

namespace {
void require_root(const Context& ctx, int root, const char* what) {
  if (root < 0 || root >= ctx.size())
    throw Error(ErrorCode::InvalidArgument, std::string(what) + ": root = " +
                                                std::to_string(root) + " outside [0, " +
                                                std::to_string(ctx.size()) + ")");
}
}  // namespace

template <typename T>
LocalPoints<T> scatter_points(const Context& ctx, int dim, std::int64_t M_total, const T* x,
                              const T* y, const T* z, int root) {
  MPI_Comm comm = ctx.comm();
  detail::require_same_parameters(comm, "scatter_points",
                                  {{"dim", {static_cast<double>(dim)}},
                                   {"root", {static_cast<double>(root)}},
                                   {"precision", {static_cast<double>(sizeof(T))}}});
  const T* coords[3] = {x, y, z};
  detail::agreed(comm, [&] {
    require_root(ctx, root, "scatter_points");
    if (dim < 1 || dim > 3)
      throw Error(ErrorCode::InvalidArgument,
                  "scatter_points: dim = " + std::to_string(dim) + " (must be 1, 2 or 3)");
    if (ctx.rank() != root) return;
    if (M_total < 0)
      throw Error(ErrorCode::InvalidArgument,
                  "scatter_points: M_total = " + std::to_string(M_total) + " (must be >= 0)");
    for (int d = 0; d < dim; ++d)
      if (M_total > 0 && !coords[d])
        throw Error(ErrorCode::InvalidArgument,
                    std::string("scatter_points: ") + "xyz"[d] + " is null on the root");
  });
  // Only the root's M_total counts.
  NUFFTMP_MPI_CHECK(MPI_Bcast(&M_total, 1, MPI_INT64_T, root, comm));
  const auto counts = detail::share_counts(M_total, ctx.size());
  std::vector<std::int64_t> bytes(counts.size());
  for (std::size_t r = 0; r < counts.size(); ++r) bytes[r] = counts[r] * std::int64_t(sizeof(T));

  LocalPoints<T> out;
  out.offset = detail::share_offset(M_total, ctx.size(), ctx.rank());
  std::vector<T>* dst[3] = {&out.x, &out.y, &out.z};
  for (int d = 0; d < dim; ++d) {
    dst[d]->resize(static_cast<std::size_t>(counts[ctx.rank()]));
    detail::scatter_bytes(comm, coords[d], bytes, dst[d]->data(), root);
  }
  return out;
}

template <typename V>
std::vector<V> gather_to_root(const Context& ctx, const V* local, std::int64_t n_local, int root) {
  MPI_Comm comm = ctx.comm();
  detail::agreed(comm, [&] {
    require_root(ctx, root, "gather_to_root");
    if (n_local < 0)
      throw Error(ErrorCode::InvalidArgument,
                  "gather_to_root: n_local = " + std::to_string(n_local) + " (must be >= 0)");
    if (n_local > 0 && !local)
      throw Error(ErrorCode::InvalidArgument, "gather_to_root: local is null with n_local = " +
                                                  std::to_string(n_local));
  });
  std::vector<std::int64_t> bytes(static_cast<std::size_t>(ctx.size()));
  const std::int64_t mine = n_local * static_cast<std::int64_t>(sizeof(V));
  NUFFTMP_MPI_CHECK(MPI_Allgather(&mine, 1, MPI_INT64_T, bytes.data(), 1, MPI_INT64_T, comm));
  std::vector<V> out;
  detail::agreed(comm, [&] {  // the root's allocation may fail: nobody must wait for it then
    if (ctx.rank() != root) return;
    std::int64_t total = 0;
    for (auto b : bytes) total += b;
    out.resize(static_cast<std::size_t>(total / std::int64_t(sizeof(V))));
  });
  detail::gather_bytes(comm, local, bytes, out.data(), root);
  return out;
}

template LocalPoints<float> scatter_points(const Context&, int, std::int64_t, const float*,
                                           const float*, const float*, int);
template LocalPoints<double> scatter_points(const Context&, int, std::int64_t, const double*,
                                            const double*, const double*, int);
#define NUFFTMP_GATHER(V) \
  template std::vector<V> gather_to_root(const Context&, const V*, std::int64_t, int);
NUFFTMP_GATHER(float)
NUFFTMP_GATHER(double)
NUFFTMP_GATHER(std::complex<float>)
NUFFTMP_GATHER(std::complex<double>)
NUFFTMP_GATHER(std::int64_t)
NUFFTMP_GATHER(int)
NUFFTMP_GATHER(char)
#undef NUFFTMP_GATHER

}  // namespace nufftmp::dist
