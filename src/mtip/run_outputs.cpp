// Checks and locks of a reconstruction's output and checkpoint (see run_outputs.hpp).
#include "run_outputs.hpp"

#include <climits>
#include <cstdlib>

#include "durable_replace.hpp"

namespace nufftmp::mtip::detail {

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

RunOutputs::RunOutputs(const ReconstructOptions& ro, const std::string& checkpoint) {
  const ReplaceTarget out = resolve_replace_target(ro.output);
  const ReplaceTarget ckpt = resolve_replace_target(checkpoint);
  const auto not_input = [&](const char* what, const ReplaceTarget& t, const std::string& given) {
    if (same_file(t.path, ro.input))
      refuse(std::string(what) + " '" + given + "' is the input data set '" + ro.input +
             "' (the same file): refusing to overwrite the input");
  };
  not_input("output", out, ro.output);
  not_input("checkpoint", ckpt, checkpoint);
  if (same_target(out, ckpt))
    refuse("checkpoint '" + checkpoint + "' and output '" + ro.output +
           "' are the same file: give them different names");
  // Locks first: a file another job is writing is reported as that, not as "exists".
  output_lock_ = OutputLock(out.path);
  checkpoint_lock_ = OutputLock(ckpt.path);
  if (!ro.resume && !ro.overwrite) {
    if (ckpt.exists)
      refuse("checkpoint '" + checkpoint + "' exists (a previous run's state): pass --resume " +
             "to continue that run or --overwrite to start afresh and replace it");
    if (out.exists)
      refuse("output '" + ro.output + "' exists: pass --resume to continue its run or " +
             "--overwrite to replace it");
  }
  probe_creatable(out.path);
  probe_creatable(ckpt.path);
}

}  // namespace nufftmp::mtip::detail
