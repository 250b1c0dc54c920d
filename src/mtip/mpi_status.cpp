// Agreement on status among ranks: a failure on one rank becomes the same error on every rank,
// so no rank is left waiting in a collective that the failed rank never enters.
#include <algorithm>
#include <exception>

#include "nufftmp/mtip.hpp"

namespace nufftmp::mtip {

namespace {
void mpi_check(int rc, const char* what) {
  if (rc != MPI_SUCCESS) {
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    throw Error(ErrorCode::MpiFailure, std::string(what) + " failed: " + std::string(msg, len) +
                                           " (" __FILE__ ")");
  }
}
}  // namespace

void agree_on_status(MPI_Comm comm, ErrorCode code, const std::string& local_error) {
  int rank = 0, size = 1;
  mpi_check(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  mpi_check(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  // The lowest failing rank (size = none) speaks for all.
  int mine = local_error.empty() ? size : rank, first = size;
  mpi_check(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm), "MPI_Allreduce(status)");
  if (first == size) return;
  int info[2] = {static_cast<int>(code), static_cast<int>(local_error.size())};
  mpi_check(MPI_Bcast(info, 2, MPI_INT, first, comm), "MPI_Bcast(status)");
  std::string msg = rank == first ? local_error : std::string(info[1], ' ');
  mpi_check(MPI_Bcast(msg.data(), info[1], MPI_CHAR, first, comm), "MPI_Bcast(message)");
  if (rank != first && size > 1) msg += " (reported by rank " + std::to_string(first) + ")";
  throw Error(static_cast<ErrorCode>(info[0]), msg);
}

void collective(MPI_Comm comm, const std::function<void()>& fn) {
  std::string err;
  ErrorCode code = ErrorCode::Internal;
  try {
    fn();
  } catch (const Error& e) {
    err = e.what();
    code = e.code();
    if (err.empty()) err = "error without message";
  } catch (const std::bad_alloc&) {
    err = "out of host memory";
    code = ErrorCode::OutOfMemory;
  } catch (const std::exception& e) {
    err = e.what();
    if (err.empty()) err = "unknown error";
  }
  agree_on_status(comm, code, err);
}

Share share_of(std::int64_t n, int rank, int size) {
  const std::int64_t base = n / size, extra = n % size;
  Share s;
  s.count = base + (rank < extra ? 1 : 0);
  s.first = rank * base + std::min<std::int64_t>(rank, extra);
  return s;
}

}  // namespace nufftmp::mtip
