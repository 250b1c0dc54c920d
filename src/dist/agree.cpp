// Status and parameter agreement across ranks (see agree.hpp).
#include "agree.hpp"

#include <cstring>
#include <new>
#include <sstream>

#include "mpi_check.hpp"

namespace nufftmp::dist::detail {

Status status_of(const std::exception_ptr& e) {
  if (!e) return {};
  try {
    std::rethrow_exception(e);
  } catch (const Error& err) {
    return {static_cast<int>(err.code()), err.what()};
  } catch (const std::bad_alloc& err) {
    return {static_cast<int>(ErrorCode::OutOfMemory), std::string("allocation failed: ") + err.what()};
  } catch (const std::exception& err) {
    return {static_cast<int>(ErrorCode::Internal), err.what()};
  } catch (...) {
    return {static_cast<int>(ErrorCode::Internal), "unknown exception"};
  }
}

std::string remote_failure_message(int rank, const Status& s) {
  return "rank " + std::to_string(rank) + " failed (" +
         error_code_name(static_cast<ErrorCode>(s.code)) + "): " + s.message;
}

void agree_status(MPI_Comm comm, const std::exception_ptr& local) {
  int rank = 0, size = 1;
  NUFFTMP_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  NUFFTMP_MPI_CHECK(MPI_Comm_size(comm, &size));
  // The lowest failing rank, or size when every rank succeeded.
  int first = local ? rank : size;
  NUFFTMP_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, comm));
  if (first == size) return;

  Status st = status_of(local);
  if (st.code == 0 && local) st.code = static_cast<int>(ErrorCode::Internal);
  int header[2] = {st.code, static_cast<int>(st.message.size())};
  NUFFTMP_MPI_CHECK(MPI_Bcast(header, 2, MPI_INT, first, comm));
  std::string msg(static_cast<std::size_t>(header[1]), '\0');
  if (rank == first) msg = st.message;
  if (header[1] > 0) NUFFTMP_MPI_CHECK(MPI_Bcast(&msg[0], header[1], MPI_CHAR, first, comm));

  if (local) {
    // A failing rank reports its own error, as a nufftmp::Error.
    try {
      std::rethrow_exception(local);
    } catch (const Error&) {
      throw;
    } catch (...) {
      throw Error(static_cast<ErrorCode>(st.code), st.message);
    }
  }
  throw Error(ErrorCode::RemoteFailure, remote_failure_message(first, {header[0], msg}));
}

namespace {
std::string format_values(const std::vector<double>& v) {
  std::ostringstream os;
  os.precision(12);
  if (v.size() != 1) os << "(";
  for (std::size_t i = 0; i < v.size(); ++i) os << (i ? ", " : "") << v[i];
  if (v.size() != 1) os << ")";
  return os.str();
}
bool same(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return false;
  // Bitwise: NaN parameters must not pass as equal, -0 and 0 are not parameters we take.
  return std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}
}  // namespace

std::string parameter_mismatch(const std::string& what,
                               const std::vector<std::vector<Param>>& gathered) {
  if (gathered.empty()) return {};
  const auto& ref = gathered[0];
  for (std::size_t p = 0; p < ref.size(); ++p) {
    for (std::size_t r = 1; r < gathered.size(); ++r) {
      const auto& other = gathered[r];
      const bool differs = p >= other.size() || other[p].name != ref[p].name ||
                           !same(other[p].values, ref[p].values);
      if (!differs) continue;
      std::string msg = what + ": parameter " + ref[p].name + " differs between ranks: rank 0 has " +
                        format_values(ref[p].values) + ", rank " + std::to_string(r) + " has ";
      msg += p < other.size() ? (other[p].name == ref[p].name
                                     ? format_values(other[p].values)
                                     : "parameter " + other[p].name + " in its place")
                              : "none";
      return msg + " (it must be the same on every rank)";
    }
  }
  for (std::size_t r = 1; r < gathered.size(); ++r)
    if (gathered[r].size() != ref.size())
      return what + ": rank " + std::to_string(r) + " passes " +
             std::to_string(gathered[r].size()) + " parameters, rank 0 passes " +
             std::to_string(ref.size());
  return {};
}

void require_same_parameters(MPI_Comm comm, const std::string& what,
                             const std::vector<Param>& params) {
  int size = 1;
  NUFFTMP_MPI_CHECK(MPI_Comm_size(comm, &size));
  // Flattened as: count of values of each parameter, then the values. Names are compared by
  // position (every rank runs the same code); only their values travel.
  std::vector<double> flat;
  for (const auto& p : params) {
    flat.push_back(static_cast<double>(p.values.size()));
    flat.insert(flat.end(), p.values.begin(), p.values.end());
  }
  int n = static_cast<int>(flat.size());
  std::vector<int> lengths(size);
  NUFFTMP_MPI_CHECK(MPI_Allgather(&n, 1, MPI_INT, lengths.data(), 1, MPI_INT, comm));
  std::vector<int> displs(size + 1, 0);
  for (int r = 0; r < size; ++r) displs[r + 1] = displs[r] + lengths[r];
  std::vector<double> all(static_cast<std::size_t>(displs[size]));
  NUFFTMP_MPI_CHECK(MPI_Allgatherv(flat.data(), n, MPI_DOUBLE, all.data(), lengths.data(),
                                   displs.data(), MPI_DOUBLE, comm));
  std::vector<std::vector<Param>> gathered(size);
  for (int r = 0; r < size; ++r) {
    std::size_t i = displs[r];
    const std::size_t end = displs[r + 1];
    for (std::size_t p = 0; p < params.size() && i < end; ++p) {
      const auto count = static_cast<std::size_t>(all[i++]);
      Param q{params[p].name, {}};
      for (std::size_t k = 0; k < count && i < end; ++k) q.values.push_back(all[i++]);
      gathered[r].push_back(std::move(q));
    }
  }
  const std::string msg = parameter_mismatch(what, gathered);
  if (!msg.empty()) throw Error(ErrorCode::InvalidArgument, msg);
}

}  // namespace nufftmp::dist::detail
