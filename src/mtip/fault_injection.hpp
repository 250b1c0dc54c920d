// Fault injection for tests: a failure on one rank at a chosen point of the reconstruction
// must stop every rank (the failing one with its own error, the others with RemoteFailure),
// never leave a rank waiting in a collective. The points sit in the local work of each stage,
// where real failures (out of memory, a device error, a bad file) happen:
//   match  the local part of orientation matching (host: each batch; GPU: the whole match)
//   merge  the merge's CG
//   phase  the phasing of this rank's starts
//   score  rank 0's scores against the truth
//   write  rank 0's result and checkpoint files
// Armed by the environment: NUFFTMP_MTIP_INJECT_FAILURE=<point>@<rank>[:<generation>]
// (generation: the run's generation number, default every generation; the generation is the
// one set_generation() last gave). Unset, a point costs one getenv per call.
#pragma once

namespace nufftmp::mtip::detail {

// Throws Error(Internal, "injected failure at <point> on rank <rank> ...") when armed for this
// point and rank (and generation).
void fault_point(const char* point, int rank);
// The generation the following points belong to (reconstruct's loop sets it).
void set_fault_generation(int generation);

}  // namespace nufftmp::mtip::detail
