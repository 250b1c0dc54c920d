// Checks and locks of a reconstruction's output and checkpoint (see run_outputs.hpp).
#include "run_outputs.hpp"

#include <climits>
#include <cstdlib>

#include "fileio/durable_replace.hpp"

namespace nufftmp::mtip::detail {

using fileio::probe_creatable;
using fileio::ReplaceTarget;
using fileio::resolve_replace_target;
using fileio::same_file;

namespace {

[[noreturn]] void refuse(const std::string& msg) { throw Error(ErrorCode::IoFailure, msg); }

// One spelling per file for comparing targets that may not exist yet: the directory's real
// path and the base name.
std::string canonical(const ReplaceTarget& t) {
  char buf[PATH_MAX];
  const std::string dir = ::realpath(t.dir.c_str(), buf) ? std::string(buf) : t.dir;
  const auto slash = t.path.find_last_of('/');
  return dir + "/" + (slash == std::string::npos ? t.path : t.path.substr(slash + 1));
}

bool same_target(const ReplaceTarget& a, const ReplaceTarget& b) {
  return canonical(a) == canonical(b) || same_file(a.path, b.path);
}

}  // namespace

RunOutputs::RunOutputs(const ReconstructOptions& ro, const std::string& checkpoint,
                       const std::string& best_output) {
  struct File {
    const char* what;
    std::string given;
    ReplaceTarget target;
    const char* exists_hint;
  };
  File files[3] = {
      {"output", ro.output, resolve_replace_target(ro.output),
       "exists: pass --resume to continue its run or --overwrite to replace it"},
      {"checkpoint", checkpoint, resolve_replace_target(checkpoint),
       "exists (a previous run's state): pass --resume to continue that run or --overwrite to "
       "start afresh and replace it"},
      {"best-generation output", best_output, resolve_replace_target(best_output),
       "exists (a previous run's best generation): pass --resume to continue that run or "
       "--overwrite to replace it"},
  };
  for (const File& f : files)
    if (same_file(f.target.path, ro.input))
      refuse(std::string(f.what) + " '" + f.given + "' is the input data set '" + ro.input +
             "' (the same file): refusing to overwrite the input");
  for (int a = 0; a < 3; ++a)
    for (int b = a + 1; b < 3; ++b)
      if (same_target(files[a].target, files[b].target))
        refuse(std::string(files[b].what) + " '" + files[b].given + "' and " + files[a].what +
               " '" + files[a].given + "' are the same file: give them different names");
  // Locks first: a file another job is writing is reported as that, not as "exists".
  output_lock_ = OutputLock(files[0].target.path);
  checkpoint_lock_ = OutputLock(files[1].target.path);
  best_lock_ = OutputLock(files[2].target.path);
  if (!ro.resume && !ro.overwrite)
    for (int i : {1, 0, 2})  // the checkpoint first: it says most about what is at stake
      if (files[i].target.exists)
        refuse(std::string(files[i].what) + " '" + files[i].given + "' " + files[i].exists_hint);
  for (const File& f : files) probe_creatable(f.target.path);
}

}  // namespace nufftmp::mtip::detail
