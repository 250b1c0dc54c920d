// How many OpenMP threads a piece of work deserves. Below a few hundred thousand elementary
// operations, starting a team and meeting at its barriers costs more than the threads save,
// and on a busy machine spinning waiters make it far worse (the test suite ran 10x slower
// with two threads on two loaded cores than with one).
#pragma once

namespace nufftmp::detail::cpu {

constexpr double kMinWorkPerTeam = 2e5;

inline int threads_for(double work, int nthreads) {
  return work < kMinWorkPerTeam ? 1 : nthreads;
}

}  // namespace nufftmp::detail::cpu
