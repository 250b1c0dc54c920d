// The two files a reconstruction writes every generation (results and checkpoint), checked and
// held before the first generation, so that a bad path fails in seconds rather than after the
// first generation's hours, and no run destroys data it was not asked to replace:
//  - neither may be the input data set (the same file through any path or link), nor each other;
//  - each must be a regular file or absent (symlinks are followed to their target), and a
//    temporary file must be creatable beside it;
//  - a fresh run refuses existing ones unless overwrite is set (resume continues them);
//  - each is locked (OutputLock) for the run: a second job on the same files fails at once,
//    naming the first.
// Rank 0 only: the caller runs it inside dist::detail::agreed() so that every rank sees its
// error.
#pragma once

#include <string>

#include "nufftmp/mtip.hpp"
#include "output_lock.hpp"

namespace nufftmp::mtip::detail {

class RunOutputs {
 public:
  RunOutputs() = default;  // holds nothing (the ranks that write nothing)
  RunOutputs(const ReconstructOptions& ro, const std::string& checkpoint);

 private:
  OutputLock output_lock_, checkpoint_lock_;
};

}  // namespace nufftmp::mtip::detail
