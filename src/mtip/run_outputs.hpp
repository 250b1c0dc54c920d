// The files a reconstruction writes (results and checkpoint every generation, the best
// generation's file when one is best), checked and held before the first generation, so that a bad path fails in seconds rather than after the
// first generation's hours, and no run destroys data it was not asked to replace:
//  - none may be the input data set (the same file through any path or link), nor another;
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
  RunOutputs(const ReconstructOptions& ro, const std::string& checkpoint,
             const std::string& best_output);

 private:
  OutputLock output_lock_, checkpoint_lock_, best_lock_;
};

}  // namespace nufftmp::mtip::detail
