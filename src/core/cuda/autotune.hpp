// Autotune (Options::autotune): the host-only parts - the cache key, the cache file (location,
// format, atomic update), the candidate configurations and the choice of the fastest. No
// kernels and no CUDA calls here, so CI tests all of it without a GPU; the engine supplies the
// timing (CUDA events on the plan's stream) through pick_fastest's callback.
//
// Cache file: text, one winner per line, `key<TAB>value`; lines starting with '#' are comments.
//   key   = gpu name|t<type>|d<dim>|<f or d>|w<width>|s<sigma>|N2^<a>|M2^<b>|m=<requested method>
//           (+ |o=... when the user fixed bins / maxsub / np: they constrain the candidates)
//   value = method=<name> bins=<x>,<y>,<z> maxsub=<n> np=<n> ms=<time, informational>
// N and M enter as floor(log2) buckets: problems of similar size share a winner.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/plan_config.hpp"
#include "cuda/heuristics.hpp"

namespace nufftmp::detail {

// The knobs of a winner: what choose_method takes as overrides to rebuild it.
struct TuneEntry {
  Method method = Method::GMSort;
  int bins[3] = {1, 1, 1};
  int maxsub = 0;
  int np = 0;
  double ms = 0;  // the measured time (informational)
};

using TuneCache = std::map<std::string, TuneEntry>;

int size_bucket(std::int64_t n);  // floor(log2(n)), 0 for n <= 1

std::string autotune_key(const std::string& gpu_name, const PlanConfig& cfg, int prec_bytes,
                         std::int64_t M);

std::string format_tune_entry(const TuneEntry& e);
bool parse_tune_entry(const std::string& value, TuneEntry* e);  // false when malformed
// Malformed lines are skipped (counted in *bad_lines when given); the last line of a key wins.
TuneCache parse_tune_cache(const std::string& text, int* bad_lines = nullptr);
std::string format_tune_cache(const TuneCache& cache);

// $NUFFTMP_AUTOTUNE_CACHE, else $XDG_CACHE_HOME/nufftmp/autotune.txt, else
// $HOME/.cache/nufftmp/autotune.txt; empty when none of these is set.
std::string autotune_cache_path();
// An absent, unreadable or corrupt file gives what could be read (possibly nothing) and says
// why in *note; never throws: the cache is an optimisation.
TuneCache read_tune_cache(const std::string& path, std::string* note);
// Re-reads the file, sets `key`, and writes it back through a temporary file and rename (a
// reader never sees half a file; of two concurrent writers the last one wins). Creates the
// directories. Returns false, with the reason in *note, instead of throwing.
bool store_tune_entry(const std::string& path, const std::string& key, const TuneEntry& e,
                      std::string* note);

TuneEntry entry_of(const MethodChoice& ch);
// The configuration an entry stands for, or nothing when it no longer applies (a method the
// type lacks, a tile that no longer fits, a method the user excluded).
template <typename T>
std::optional<MethodChoice> choice_of_entry(const PlanConfig& cfg, const DeviceProps& props,
                                            const TuneEntry& e);

// The configurations worth timing: every method the type has (only the requested one when the
// user named one; only GM without sorting), with the heuristic's bins, and for the tiled
// methods bins halved and doubled, and for output-driven np halved and doubled - each only
// where the user left the knob at 0. Duplicates and tiles that do not fit are dropped; the
// heuristic's own choice comes first.
template <typename T>
std::vector<MethodChoice> tune_candidates(const PlanConfig& cfg, const DeviceProps& props);

// Calls time_ms on each candidate (a candidate that throws nufftmp::Error is skipped) and
// returns the index of the fastest (its time in *best_ms), -1 when every candidate failed.
// *log gets one line per candidate: what it is, and its time or why it was skipped.
int pick_fastest(const std::vector<MethodChoice>& cands, int dim,
                 const std::function<double(const MethodChoice&)>& time_ms, std::string* log,
                 double* best_ms = nullptr);

// Process-wide counters, for tests and debugging.
struct AutotuneStats {
  long timed = 0;       // problems timed (cache misses)
  long cache_hits = 0;  // plans configured from the cache
};
AutotuneStats autotune_stats();
void count_autotune(bool hit);

}  // namespace nufftmp::detail
