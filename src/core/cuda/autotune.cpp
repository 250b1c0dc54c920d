#include "cuda/autotune.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "nufftmp/errors.hpp"
#include "nufftmp/plan.hpp"

namespace nufftmp::detail {

int size_bucket(std::int64_t n) {
  int b = 0;
  while (n > 1) {
    n >>= 1;
    ++b;
  }
  return b;
}

std::string autotune_key(const std::string& gpu_name, const PlanConfig& cfg, int prec_bytes,
                         std::int64_t M) {
  std::string gpu = gpu_name.empty() ? "unknown-gpu" : gpu_name;
  for (char& ch : gpu)
    if (ch == '\t' || ch == '\n' || ch == '\r' || ch == '|') ch = '_';  // the file's separators
  const Options& o = cfg.opts;
  char sigma[32];
  std::snprintf(sigma, sizeof sigma, "%.3g", cfg.kernel.upsampfac);
  std::ostringstream k;
  k << gpu << "|t" << cfg.type << "|d" << cfg.dim << "|" << (prec_bytes == 4 ? "f" : "d") << "|w"
    << cfg.kernel.w << "|s" << sigma << "|N2^" << size_bucket(cfg.num_modes()) << "|M2^"
    << size_bucket(M) << "|m=" << method_name(o.sort ? o.method : Method::GM);
  if (o.binsize[0] > 0 || o.binsize[1] > 0 || o.binsize[2] > 0 || o.maxsubprobsize > 0 ||
      o.points_per_block > 0)
    k << "|o=" << o.binsize[0] << "," << o.binsize[1] << "," << o.binsize[2] << ","
      << o.maxsubprobsize << "," << o.points_per_block;
  return k.str();
}

namespace {

bool method_of_name(const std::string& s, Method* m) {
  for (Method c : {Method::GM, Method::GMSort, Method::SM, Method::Output})
    if (s == method_name(c)) {
      *m = c;
      return true;
    }
  return false;
}

bool parse_int(const std::string& s, int lo, int* out) {
  if (s.empty()) return false;
  char* end = nullptr;
  const long v = std::strtol(s.c_str(), &end, 10);
  if (*end != '\0' || v < lo || v > (1L << 30)) return false;
  *out = static_cast<int>(v);
  return true;
}

std::atomic<long> g_timed{0}, g_hits{0};

}  // namespace

std::string format_tune_entry(const TuneEntry& e) {
  std::ostringstream v;
  v << "method=" << method_name(e.method) << " bins=" << e.bins[0] << "," << e.bins[1] << ","
    << e.bins[2] << " maxsub=" << e.maxsub << " np=" << e.np << " ms=" << e.ms;
  return v.str();
}

bool parse_tune_entry(const std::string& value, TuneEntry* out) {
  std::istringstream in(value);
  std::string tok;
  TuneEntry e;
  bool have_method = false, have_bins = false;
  while (in >> tok) {
    const auto eq = tok.find('=');
    if (eq == std::string::npos) return false;
    const std::string k = tok.substr(0, eq), v = tok.substr(eq + 1);
    if (k == "method") {
      if (!method_of_name(v, &e.method)) return false;
      have_method = true;
    } else if (k == "bins") {
      std::string parts[3];
      std::istringstream b(v);
      for (auto& p : parts)
        if (!std::getline(b, p, ',')) return false;
      for (int d = 0; d < 3; ++d)
        if (!parse_int(parts[d], 1, &e.bins[d])) return false;
      have_bins = true;
    } else if (k == "maxsub") {
      if (!parse_int(v, 0, &e.maxsub)) return false;
    } else if (k == "np") {
      if (!parse_int(v, 0, &e.np)) return false;
    } else if (k == "ms") {
      e.ms = std::atof(v.c_str());
    }  // unknown keys: written by a newer version, ignored
  }
  if (!have_method || !have_bins) return false;
  *out = e;
  return true;
}

TuneCache parse_tune_cache(const std::string& text, int* bad_lines) {
  TuneCache cache;
  int bad = 0;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const auto tab = line.find('\t');
    TuneEntry e;
    if (tab == std::string::npos || tab == 0 || !parse_tune_entry(line.substr(tab + 1), &e)) {
      ++bad;
      continue;
    }
    cache[line.substr(0, tab)] = e;
  }
  if (bad_lines) *bad_lines = bad;
  return cache;
}

std::string format_tune_cache(const TuneCache& cache) {
  std::string s = "# nufftmp CUDA autotune cache: key<TAB>winner (delete the file to re-tune)\n";
  for (const auto& [key, e] : cache) s += key + "\t" + format_tune_entry(e) + "\n";
  return s;
}

std::string autotune_cache_path() {
  const char* p = std::getenv("NUFFTMP_AUTOTUNE_CACHE");
  if (p && *p) return p;
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg && *xdg) return std::string(xdg) + "/nufftmp/autotune.txt";
  const char* home = std::getenv("HOME");
  if (home && *home) return std::string(home) + "/.cache/nufftmp/autotune.txt";
  return {};
}

TuneCache read_tune_cache(const std::string& path, std::string* note) {
  note->clear();
  if (path.empty()) {
    *note = "no cache path (NUFFTMP_AUTOTUNE_CACHE, XDG_CACHE_HOME and HOME unset)";
    return {};
  }
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    *note = "no cache file " + path;
    return {};
  }
  if (std::filesystem::is_directory(path, ec)) {
    *note = "cache path " + path + " is a directory (ignored)";
    return {};
  }
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  if (!(in && (text << in.rdbuf()))) {
    *note = "cannot read cache file " + path + " (ignored)";
    return {};
  }
  int bad = 0;
  TuneCache c = parse_tune_cache(text.str(), &bad);
  if (bad > 0)
    *note = "cache file " + path + ": " + std::to_string(bad) + " malformed line(s) ignored";
  return c;
}

bool store_tune_entry(const std::string& path, const std::string& key, const TuneEntry& e,
                      std::string* note) {
  note->clear();
  if (path.empty()) {
    *note = "no cache path: winner not stored";
    return false;
  }
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path target(path);
  if (target.has_parent_path()) fs::create_directories(target.parent_path(), ec);
  if (ec) {
    *note = "cannot create " + target.parent_path().string() + ": " + ec.message();
    return false;
  }
  std::string ignored;
  TuneCache cache = read_tune_cache(path, &ignored);
  cache[key] = e;
  static std::atomic<int> seq{0};
  const std::string tmp =
      path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(seq++);
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << format_tune_cache(cache);
    out.close();
    if (!out) {
      fs::remove(tmp, ec);
      *note = "cannot write " + tmp;
      return false;
    }
  }
  fs::rename(tmp, target, ec);  // atomic within one file system
  if (ec) {
    fs::remove(tmp, ec);
    *note = "cannot rename the cache file into " + path;
    return false;
  }
  return true;
}

TuneEntry entry_of(const MethodChoice& ch) {
  TuneEntry e;
  e.method = ch.method;
  for (int d = 0; d < 3; ++d) e.bins[d] = ch.bins.size[d];
  e.maxsub = ch.maxsub;
  e.np = ch.np;
  return e;
}

namespace {

Options options_for(const Options& base, const TuneEntry& e, int dim) {
  Options o = base;
  o.method = e.method;
  for (int d = 0; d < dim; ++d) o.binsize[d] = e.bins[d];
  if (e.maxsub > 0) o.maxsubprobsize = e.maxsub;
  if (e.np > 0) o.points_per_block = e.np;
  return o;
}

bool same_choice(const MethodChoice& a, const MethodChoice& b) {
  return a.method == b.method && a.bins.size[0] == b.bins.size[0] &&
         a.bins.size[1] == b.bins.size[1] && a.bins.size[2] == b.bins.size[2] &&
         a.maxsub == b.maxsub && a.np == b.np;
}

std::vector<Method> methods_to_try(const PlanConfig& cfg) {
  const Options& o = cfg.opts;
  if (!o.sort) return {Method::GM};
  if (o.method != Method::Auto && !(cfg.type == 2 && o.method == Method::Output))
    return {o.method};
  if (cfg.type == 1) return {Method::GM, Method::GMSort, Method::SM, Method::Output};
  return {Method::GM, Method::GMSort, Method::SM};
}

}  // namespace

template <typename T>
std::optional<MethodChoice> choice_of_entry(const PlanConfig& cfg, const DeviceProps& props,
                                            const TuneEntry& e) {
  bool allowed = false;
  for (Method m : methods_to_try(cfg)) allowed = allowed || m == e.method;
  if (!allowed) return std::nullopt;
  MethodChoice ch = choose_method<T>(cfg, props, options_for(cfg.opts, e, cfg.dim));
  if (!ch.note.empty() || ch.method != e.method) return std::nullopt;
  return ch;
}

template <typename T>
std::vector<MethodChoice> tune_candidates(const PlanConfig& cfg, const DeviceProps& props) {
  std::vector<MethodChoice> out;
  auto add = [&](const MethodChoice& ch) {
    if (!ch.note.empty()) return;  // a fallback: the method it fell back to is timed anyway
    for (const auto& c : out)
      if (same_choice(c, ch)) return;
    out.push_back(ch);
  };
  const Options& user = cfg.opts;
  add(choose_method<T>(cfg, props));
  for (Method m : methods_to_try(cfg)) {
    Options o = user;
    o.method = m;
    const MethodChoice base = choose_method<T>(cfg, props, o);
    add(base);
    if (base.method != Method::SM && base.method != Method::Output) continue;
    // Bins halved and doubled (the cuFINUFFT study: the best bin differs by GPU and width).
    for (int f2 : {1, 4}) {  // times f2 / 2
      Options v = o;
      bool changed = false;
      for (int d = 0; d < cfg.dim; ++d)
        if (user.binsize[d] <= 0) {
          v.binsize[d] = std::max(1, base.bins.size[d] * f2 / 2);
          changed = true;
        }
      if (changed) add(choose_method<T>(cfg, props, v));
    }
    if (base.method == Method::Output && user.points_per_block <= 0)
      for (int np : {base.np / 2, base.np * 2}) {
        Options v = o;
        v.points_per_block = std::max(1, np);
        add(choose_method<T>(cfg, props, v));
      }
  }
  return out;
}

int pick_fastest(const std::vector<MethodChoice>& cands, int dim,
                 const std::function<double(const MethodChoice&)>& time_ms, std::string* log,
                 double* best_ms_out) {
  int best = -1;
  double best_ms = 0;
  for (std::size_t i = 0; i < cands.size(); ++i) {
    const std::string what = describe_choice(cands[i], dim);
    try {
      const double ms = time_ms(cands[i]);
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.4f ms", ms);
      if (log) *log += "  " + what + ": " + buf + "\n";
      if (best < 0 || ms < best_ms) {
        best = static_cast<int>(i);
        best_ms = ms;
      }
    } catch (const Error& e) {
      if (log) *log += "  " + what + ": skipped (" + e.what() + ")\n";
    }
  }
  if (best_ms_out) *best_ms_out = best_ms;
  return best;
}

AutotuneStats autotune_stats() { return {g_timed.load(), g_hits.load()}; }
void count_autotune(bool hit) { ++(hit ? g_hits : g_timed); }

template std::optional<MethodChoice> choice_of_entry<float>(const PlanConfig&, const DeviceProps&,
                                                            const TuneEntry&);
template std::optional<MethodChoice> choice_of_entry<double>(const PlanConfig&,
                                                             const DeviceProps&, const TuneEntry&);
template std::vector<MethodChoice> tune_candidates<float>(const PlanConfig&, const DeviceProps&);
template std::vector<MethodChoice> tune_candidates<double>(const PlanConfig&, const DeviceProps&);

}  // namespace nufftmp::detail
