// The checks of choose_parameters on their own: the box and the options, before any ion is
// known (the Solver's constructor runs them on every rank). Throws InvalidArgument naming the
// value.
#pragma once

#include "nufftmp/ewald.hpp"

namespace nufftmp::ewald::detail {

void validate_box_and_options(const Box& box, const Options& opts);

}  // namespace nufftmp::ewald::detail
