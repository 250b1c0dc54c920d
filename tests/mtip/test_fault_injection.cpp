// A failure at any stage on one rank stops every rank of the reconstruction (2 ranks, CPU
// engine): matching, merging, phasing on either rank; the scores and the files on rank 0, the
// only one doing them. Afterwards a clean run still works (no state left behind).
#include <gtest/gtest.h>

#include "data_set_fixture.hpp"
#include "fault_fixture.hpp"
#include "nufftmp/mtip.hpp"

using namespace nufftmp::mtip;

namespace {
ReconstructOptions small_run(const std::string& base) {
  ReconstructOptions ro;
  ro.input = base + "_data.h5";
  ro.output = base + "_fault.h5";
  ro.generations = 2;  // the second matches
  ro.n_ref = 200;
  ro.match_iterations = 1;
  ro.phase.cycles = 1;
  ro.phase_starts = 2;
  ro.merge.max_iter = 20;
  ro.nufft.backend = nufftmp::Backend::Cpu;
  ro.verbose = false;
  ro.overwrite = true;  // every run of the test writes the same files
  return ro;
}
}  // namespace

TEST(MtipFaultInjection, AFailureOnOneRankStopsEveryRank) {
  const std::string base = mtip_test::write_data_set("nufftmp_mtip_fault");
  const ReconstructOptions ro = small_run(base);
  for (const char* point : {"match", "merge", "phase"})
    for (int rank : {0, 1}) mtip_test::expect_failure_stops_every_rank(ro, point, rank);
  for (const char* point : {"score", "write"}) mtip_test::expect_failure_stops_every_rank(ro, point, 0);
  const auto rep = reconstruct(MPI_COMM_WORLD, ro);
  EXPECT_EQ(rep.size(), 2u);
  MPI_Barrier(MPI_COMM_WORLD);
  if (mtip_test::rank_of() == 0)
    for (const char* f : {"_data.h5", "_fault.h5", "_fault.h5.ckpt.h5"}) std::remove((base + f).c_str());
}
