// The cross-term product of orientation matching, C = B S^T (images x pixels times pixels x
// references): the whole cost of matching once the slices exist (2000 images x 1e4 references
// x 128^2 pixels is 3.3e11 multiply-adds). Internal to src/mtip.
#pragma once

#include <cstdint>

namespace nufftmp::mtip::detail {

// cross[i * nr + r] = sum_p images[i * npix + p] * refs[r * npix + p], for ni images and nr
// references of npix pixels each (row-major, pixels contiguous). Products and partial sums
// over chunks of pixels are float, the chunk sums are added in double (a float sum over 16384
// pixels would lose ~1e-4 relative, enough to swap near-tied references). OpenMP parallel.
void cross_products(const float* images, std::int64_t ni, const float* refs, std::int64_t nr,
                    std::int64_t npix, double* cross);

// The instruction set the micro-kernel runs with on this CPU ("avx512", "avx2", "generic").
const char* cross_products_isa();

}  // namespace nufftmp::mtip::detail
