// Identity of a reconstruction's input and settings in its checkpoint (see
// checkpoint_identity.hpp).
#include "checkpoint_identity.hpp"

#include <sys/stat.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <sstream>
#include <utility>
#include <vector>

namespace nufftmp::mtip::detail {

namespace {

// FNV-1a: a digest for telling data sets apart, not a cryptographic one.
class Fnv1a {
 public:
  void add(const void* data, std::size_t n) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (std::size_t i = 0; i < n; ++i) h_ = (h_ ^ p[i]) * 1099511628211ULL;
  }
  template <typename V>
  void add_value(V v) {
    add(&v, sizeof v);
  }
  std::string hex() const {
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h_));
    return buf;
  }

 private:
  std::uint64_t h_ = 14695981039346656037ULL;
};

std::string exact(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

// A list of names in one value (',' cannot start an HDF5 data set's name).
std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ",") + x;
  return s;
}

// Every option that changes what the generations compute, in a fixed order. Left out: the
// generation count (resume extends a run), verbosity, the engine and device (a run may move
// from CPUs to GPUs), the matching batch (memory only).
std::string settings_of(const ReconstructOptions& ro, std::int64_t M) {
  const std::vector<std::pair<const char*, std::string>> kv = {
      {"M", std::to_string(M)},
      {"precision", ro.use_double ? "double" : "float"},
      {"known_orientations", ro.known_orientations ? "1" : "0"},
      {"seed", std::to_string(ro.seed)},
      {"n_ref", std::to_string(ro.n_ref)},
      {"n_ref_min", std::to_string(ro.n_ref_min)},
      {"soft_k", std::to_string(ro.soft_k)},
      {"soft_temp_start", exact(ro.soft_temp_start)},
      {"soft_temp_end", exact(ro.soft_temp_end)},
      {"q_ramp_start", exact(ro.q_ramp_start)},
      {"q_ramp_generations", std::to_string(ro.q_ramp_generations)},
      {"match_iterations", std::to_string(ro.match_iterations)},
      {"match_phased", ro.match_phased ? "1" : "0"},
      {"match_fit_scale", ro.match.fit_scale ? "1" : "0"},
      {"match_poisson_weights", ro.match.poisson_weights ? "1" : "0"},
      {"match_nufft_tol", exact(ro.match.nufft_tol)},
      {"match_pixel_weights", std::to_string(ro.match.pixel_weights.size())},
      {"merge_lambda", exact(ro.merge.lambda)},
      {"merge_max_iter", std::to_string(ro.merge.max_iter)},
      {"merge_tol", exact(ro.merge.tol)},
      {"merge_nufft_tol", exact(ro.merge.nufft_tol)},
      {"merge_precondition", ro.merge.precondition ? "1" : "0"},
      {"phase_cycles", std::to_string(ro.phase.cycles)},
      {"phase_hio_iter", std::to_string(ro.phase.hio_iter)},
      {"phase_er_iter", std::to_string(ro.phase.er_iter)},
      {"phase_beta", exact(ro.phase.beta)},
      {"phase_shrink_sigma_start", exact(ro.phase.shrink_sigma_start)},
      {"phase_shrink_sigma_end", exact(ro.phase.shrink_sigma_end)},
      {"phase_shrink_threshold", exact(ro.phase.shrink_threshold)},
      {"phase_seed", std::to_string(ro.phase.seed)},
      {"phase_attempts", std::to_string(ro.phase.attempts)},
      {"phase_starts", std::to_string(ro.phase_starts)},
      {"phase_average", ro.phase_average ? "1" : "0"},
      {"phase_continue", ro.phase_continue ? "1" : "0"},
      // Real data (issue 17): what picks the pixels, reads the quaternions, weighs the data
      // and chooses the best generation.
      {"quaternion", ro.quaternion ? convention_name(*ro.quaternion) : "file"},
      {"mask", joined(ro.corrections.mask)},
      {"use_file_mask", ro.corrections.use_file_mask ? "1" : "0"},
      {"correction", joined(ro.corrections.correction)},
      {"use_file_correction", ro.corrections.use_file_correction ? "1" : "0"},
      {"q_min", exact(ro.corrections.q_min)},
      {"free_fraction", exact(ro.free_fraction)},
      {"half_sets", ro.half_sets ? "1" : "0"},
      {"half_set_tol", exact(ro.half_set_tol)},
      {"cg_precondition", ro.cg_precondition ? (*ro.cg_precondition ? "1" : "0") : "auto"},
      {"match_likelihood",
       ro.match.likelihood == MatchOptions::Likelihood::Poisson ? "poisson" : "least_squares"},
      {"match_poisson_floor", exact(ro.match.poisson_floor)},
  };
  std::string s;
  for (const auto& [k, v] : kv) s += std::string(s.empty() ? "" : ";") + k + "=" + v;
  return s;
}

std::map<std::string, std::string> parse_settings(const std::string& s) {
  std::map<std::string, std::string> m;
  std::istringstream in(s);
  std::string item;
  while (std::getline(in, item, ';')) {
    const auto eq = item.find('=');
    if (eq != std::string::npos) m[item.substr(0, eq)] = item.substr(eq + 1);
  }
  return m;
}

}  // namespace

RunIdentity run_identity(const ReconstructOptions& ro, std::int64_t M, const DataInfo& info,
                         const LocalImages& local) {
  RunIdentity id;
  char buf[PATH_MAX];
  id.input_path = ::realpath(ro.input.c_str(), buf) ? std::string(buf) : ro.input;
  struct stat st {};
  if (::stat(ro.input.c_str(), &st) == 0) id.input_size = static_cast<std::int64_t>(st.st_size);
  Fnv1a h;
  for (std::int64_t v : {info.n_images, info.panels, info.ny, info.nx, info.volume_M})
    h.add_value(v);
  h.add_value(static_cast<int>(info.has_orientations));
  h.add_value(static_cast<int>(info.has_volume));
  h.add(local.positions.data(), local.positions.size() * sizeof(double));
  const std::size_t npix = static_cast<std::size_t>(info.npix());
  if (local.share.first == 0 && local.intensities.size() >= npix)
    h.add(local.intensities.data(), npix * sizeof(float));
  id.input_digest = h.hex();
  id.settings = settings_of(ro, M);
  return id;
}

void write_identity(H5Writer& w, const RunIdentity& id) {
  w.write_attribute("input_path", id.input_path);
  w.write_attribute("input_size_bytes", static_cast<double>(id.input_size));
  w.write_attribute("input_digest", id.input_digest);
  w.write_attribute("settings", id.settings);
}

void check_identity(const std::string& checkpoint, const RunIdentity& id) {
  const auto fail = [&](const std::string& what) {
    throw Error(ErrorCode::IoFailure, "--resume: checkpoint '" + checkpoint + "' " + what);
  };
  for (const char* a : {"input_path", "input_size_bytes", "input_digest", "settings"})
    if (!has_attribute(checkpoint, a))
      fail(std::string("has no '") + a +
           "' attribute (written by an older nufftmp?): it cannot be matched to this input; "
           "start afresh with --overwrite");
  const std::string path = read_string_attribute(checkpoint, "input_path");
  const auto size = static_cast<std::int64_t>(read_attribute(checkpoint, "input_size_bytes"));
  const std::string digest = read_string_attribute(checkpoint, "input_digest");
  std::vector<std::string> diffs;
  if (size != id.input_size)
    diffs.push_back("input size " + std::to_string(size) + " bytes, this input " +
                    std::to_string(id.input_size));
  if (digest != id.input_digest)
    diffs.push_back("input digest " + digest + ", this input " + id.input_digest);
  if (!diffs.empty()) {
    std::string msg =
        "belongs to another data set ('" + path + "'; this input is '" + id.input_path + "'):";
    for (const auto& d : diffs) msg += " " + d + ";";
    fail(msg);
  }
  const auto then = parse_settings(read_string_attribute(checkpoint, "settings"));
  const auto now = parse_settings(id.settings);
  std::string settings;
  for (const auto& [k, v] : now) {
    const auto it = then.find(k);
    const std::string old = it == then.end() ? "(absent)" : it->second;
    if (old != v) settings += " " + k + ": checkpoint " + old + ", this run " + v + ";";
  }
  for (const auto& [k, v] : then)
    if (!now.count(k)) settings += " " + k + ": checkpoint " + v + ", this run (absent);";
  if (!settings.empty())
    fail(
        "was made with other settings (resume with the same ones, or start afresh with "
        "--overwrite):" +
        settings);
  if (path != id.input_path)
    std::fprintf(stderr,
                 "nufftmp warning: checkpoint '%s' was made from '%s'; resuming with '%s', "
                 "which has the same size and digest\n",
                 checkpoint.c_str(), path.c_str(), id.input_path.c_str());
}

}  // namespace nufftmp::mtip::detail
