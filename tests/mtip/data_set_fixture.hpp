// The simulated data set of the reconstruction tests (test_reconstruct, test_gpu_reconstruct):
// rank 0 writes it in the issue-5 layout under a path all ranks agree on; everyone waits.
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

#include "mpi_fixture.hpp"
#include "nufftmp/mtip.hpp"
#include "sim_fixture.hpp"

namespace mtip_test {

// M = 21, 200 images of 24^2 at fluence 2000, with true orientations and volume. Returns the
// prefix; the file is prefix + "_data.h5".
inline std::string write_data_set(const std::string& stem) {
  const std::string base = shared_temp_prefix(stem);
  if (rank_of() == 0) {
    const auto s = simulate(21, 200, 24, /*fluence=*/2000, /*seed=*/8, /*atoms=*/30);
    nufftmp::mtip::H5Writer w(base + "_data.h5");
    w.write("intensities", {s.n_images, 24, 24}, s.images.data());
    w.write("pixel_position_reciprocal", {3, 24, 24}, s.positions.data());
    std::vector<double> q;
    for (const auto& o : s.orient) q.insert(q.end(), {o.w, o.x, o.y, o.z});
    w.write("orientations", {s.n_images, 4}, q.data());
    w.write("volume", {s.M, s.M, s.M}, s.density.data());
    w.commit();
  }
  MPI_Barrier(MPI_COMM_WORLD);
  return base;
}

}  // namespace mtip_test
