// MPI_Init / MPI_Finalize for nufftmp-bench (RAII). Compiled only with the distributed layer.
#pragma once

namespace nufftmp::bench {

class MpiSession {
 public:
  MpiSession(int* argc, char*** argv);
  ~MpiSession();  // MPI_Finalize, if this object initialised MPI
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
  int rank() const { return rank_; }
  int size() const { return size_; }
  [[noreturn]] void abort(int status) const;  // MPI_Abort on MPI_COMM_WORLD

 private:
  bool owner_ = false;
  int rank_ = 0;
  int size_ = 1;
};

}  // namespace nufftmp::bench
