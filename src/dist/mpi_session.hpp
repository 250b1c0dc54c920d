// MPI for the length of an app's main() (RAII), so that the apps make no MPI call of their own
// (every MPI call of the project lives in src/dist). Internal API: the apps include it as
// "dist/mpi_session.hpp".
//
//   int main(int argc, char** argv) {
//     dist::detail::MpiSession mpi("nufftmp-x", &argc, &argv);
//     ...  // mpi.rank(), mpi.size(); mpi.abort(1) where ranks may wait in a collective
//   }
#pragma once

namespace nufftmp::dist::detail {

class MpiSession {
 public:
  // MPI_Init unless MPI is already initialised (then this session finalises nothing). When
  // MPI_Init fails, prints "<prog>: MPI_Init failed: ..." and exits with status 1: an app
  // can do nothing without MPI.
  MpiSession(const char* prog, int* argc, char*** argv);
  ~MpiSession();  // MPI_Finalize, if this session initialised MPI
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

  int rank() const { return rank_; }  // in MPI_COMM_WORLD
  int size() const { return size_; }
  bool owner() const { return owner_; }  // this session called MPI_Init
  // MPI_Abort on MPI_COMM_WORLD: ends every rank, also those waiting in a collective.
  [[noreturn]] void abort(int status) const;

 private:
  bool owner_ = false;
  int rank_ = 0;
  int size_ = 1;
};

}  // namespace nufftmp::dist::detail
