// What a checkpoint belongs to: its input data set (path, size, a digest of its content's
// shape and first data) and the settings that shape the reconstruction. Written into every
// checkpoint (and the results); checked on --resume, so that another data set's checkpoint,
// or one made with other settings, is refused with a message naming what differs rather than
// silently continued. The number of generations is not a setting: resuming with more is how a
// run is extended.
#pragma once

#include <cstdint>
#include <string>

#include "nufftmp/mtip.hpp"

namespace nufftmp::mtip::detail {

struct RunIdentity {
  std::string input_path;       // absolute, symlinks resolved
  std::int64_t input_size = 0;  // bytes
  // FNV-1a (64 bit, hex) of the shapes, the pixel positions and the first image: two data sets
  // of the same shape differ here.
  std::string input_digest;
  std::string settings;  // "name=value;..." in a fixed order, values exact (%.17g)
};

// On rank 0, which holds the first image (local.share.first == 0).
RunIdentity run_identity(const ReconstructOptions& ro, std::int64_t M, const DataInfo& info,
                         const LocalImages& local);
void write_identity(H5Writer& w, const RunIdentity& id);
// Throws Error(IoFailure) naming every difference of content or settings; a different path
// with the same size and digest (the data set was moved or staged elsewhere) is a warning.
void check_identity(const std::string& checkpoint, const RunIdentity& id);

}  // namespace nufftmp::mtip::detail
