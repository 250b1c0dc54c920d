// Agreement on status before collectives, so that no rank waits forever for a rank that threw.
//
//   agreed(comm, [&] { local work that may throw });
//
// runs the work, then every rank learns whether any rank failed (one MPI_Allreduce of the
// first failing rank; on failure one broadcast of its error code and message). Afterwards
// either every rank returns or every rank throws: the failing ranks their own nufftmp::Error,
// the others Error(RemoteFailure) naming the first failing rank and its error.
#pragma once

#include <mpi.h>

#include <exception>
#include <string>
#include <utility>
#include <vector>

#include "nufftmp/errors.hpp"

namespace nufftmp::dist::detail {

// Pure helpers (no MPI), unit-tested on their own.
struct Status {
  int code = 0;  // 0 = success, else static_cast<int>(ErrorCode)
  std::string message;
};
// Any exception as a code and message: nufftmp::Error keeps its own, std::bad_alloc is
// OutOfMemory, anything else Internal.
Status status_of(const std::exception_ptr& e);
// "rank 2 failed (bad nonuniform points): x[17] = nan is not finite"
std::string remote_failure_message(int rank, const Status& s);

// Collective over comm. local: this rank's failure, or null. Throws as described above.
void agree_status(MPI_Comm comm, const std::exception_ptr& local);

template <typename F>
void agreed(MPI_Comm comm, F&& work) {
  std::exception_ptr e;
  try {
    std::forward<F>(work)();
  } catch (...) {
    e = std::current_exception();
  }
  agree_status(comm, e);
}

// Parameters that must be equal on every rank (type, modes, tol, ...). Each parameter is a
// short vector of numbers (modes has one entry per dimension).
struct Param {
  std::string name;
  std::vector<double> values;
};
// Pure: given the parameters of every rank (gathered[rank][param]), the message naming the
// first parameter that differs and the values on rank 0 and on the first rank that differs
// from it; empty when all agree.
std::string parameter_mismatch(const std::string& what,
                               const std::vector<std::vector<Param>>& gathered);
// Collective: gathers the parameters of every rank and throws Error(InvalidArgument) with
// parameter_mismatch's message on every rank when they differ. Every rank must pass the same
// parameter names in the same order, with the same number of values each, else the
// mismatch is reported through those sizes.
void require_same_parameters(MPI_Comm comm, const std::string& what,
                             const std::vector<Param>& params);

}  // namespace nufftmp::dist::detail
