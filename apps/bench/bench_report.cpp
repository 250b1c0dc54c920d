#include "bench_report.hpp"

#include <cmath>
#include <cstdio>
#include <sstream>
#include <string>

namespace nufftmp::bench {

namespace {

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '"' || ch == '\\') {
      out += '\\';
      out += ch;
    } else if (static_cast<unsigned char>(ch) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", ch);
      out += buf;
    } else {
      out += ch;
    }
  }
  return out + "\"";
}

// JSON has no NaN or Inf: those become null.
std::string json_number(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::string dims_text(const std::int64_t* a, int dim) {
  std::string s;
  for (int d = 0; d < dim; ++d) s += (d ? "x" : "") + std::to_string(a[d]);
  return s;
}

std::string dims_json(const std::int64_t* a, int dim) {
  std::string s = "[";
  for (int d = 0; d < dim; ++d) s += (d ? "," : "") + std::to_string(a[d]);
  return s + "]";
}

}  // namespace

void print_table(const BenchResult& r, std::ostream& os) {
  char line[160];
  os << "nufftmp-bench: type " << r.type << ", " << r.dim << "D, "
     << (r.prec == "d" ? "double" : "float") << ", N " << dims_text(r.N, r.dim) << ", M " << r.M
     << ", ntransf " << r.ntransf << ", tol " << r.tol << ", " << r.dist << " points\n"
     << "  backend " << r.backend << " (" << r.gpu << "), method " << r.method << ", w "
     << r.kernel_width << ", sigma " << r.upsampfac << ", fine grid " << dims_text(r.nf, r.dim)
     << ", ranks " << r.ranks << "\n";
  std::snprintf(line, sizeof line, "  %-22s %12s %14s\n", "stage", "time (ms)", "points/s");
  os << line;
  auto row = [&](const char* name, double ms, bool batch) {
    std::snprintf(line, sizeof line, "  %-22s %12.4f %14.4g\n", name, ms, r.per_s(ms, batch));
    os << line;
  };
  auto plain = [&](const char* name, double ms) {
    if (!std::isfinite(ms)) return;  // not measured (e.g. distributed runs)
    std::snprintf(line, sizeof line, "  %-22s %12.4f\n", name, ms);
    os << line;
  };
  auto maybe_row = [&](const char* name, double ms, bool batch) {
    if (std::isfinite(ms)) row(name, ms, batch);
  };
  plain("plan (first)", r.plan_ms);
  plain("plan (fresh)", r.plan_steady_ms);
  row("set_points (fresh)", r.setpts_ms, false);
  maybe_row("set_points (first)", r.setpts_first_ms, false);
  maybe_row("set_points (again)", r.setpts_again_ms, false);
  row("execute (fastest)", r.exec_ms, true);
  row("execute (median)", r.exec_ms_median, true);
  row("set_points + execute", r.setpts_exec_ms(), true);
  row("total", r.total_ms, true);
  row("total incl. transfers", r.total_host_ms, true);
  os << "  memory " << r.mem_bytes << " bytes (" << r.mem_bytes / 1048576.0 << " MiB), "
     << r.n_runs << " timed runs, " << r.plan_runs << " fresh plans\n";
  if (std::isfinite(r.rel_err)) {
    std::snprintf(line, sizeof line,
                  "  rel. l2 error vs direct sum: %.3e (%lld sampled outputs, tol %g)\n",
                  r.rel_err, static_cast<long long>(r.check_samples), r.tol_eff);
    os << line;
  }
}

void print_json(const BenchResult& r, std::ostream& os) {
  std::ostringstream j;
  j << "{\"prec\":" << json_string(r.prec) << ",\"type\":" << r.type << ",\"dim\":" << r.dim
    << ",\"N\":" << dims_json(r.N, r.dim) << ",\"M\":" << r.M << ",\"ntransf\":" << r.ntransf
    << ",\"isign\":" << r.isign << ",\"tol\":" << json_number(r.tol)
    << ",\"tol_eff\":" << json_number(r.tol_eff) << ",\"dist\":" << json_string(r.dist)
    << ",\"backend\":" << json_string(r.backend) << ",\"method\":" << json_string(r.method)
    << ",\"gpu\":" << json_string(r.gpu) << ",\"ranks\":" << r.ranks
    << ",\"scaling\":" << json_string(r.scaling) << ",\"w\":" << r.kernel_width
    << ",\"upsampfac\":" << json_number(r.upsampfac) << ",\"nf\":" << dims_json(r.nf, r.dim)
    << ",\"n_runs\":" << r.n_runs << ",\"plan_runs\":" << r.plan_runs
    << ",\"plan_ms\":" << json_number(r.plan_ms)
    << ",\"plan_steady_ms\":" << json_number(r.plan_steady_ms)
    << ",\"setpts_ms\":" << json_number(r.setpts_ms)
    << ",\"setpts_first_ms\":" << json_number(r.setpts_first_ms)
    << ",\"setpts_again_ms\":" << json_number(r.setpts_again_ms)
    << ",\"exec_ms\":" << json_number(r.exec_ms)
    << ",\"exec_ms_median\":" << json_number(r.exec_ms_median)
    << ",\"setpts_exec_ms\":" << json_number(r.setpts_exec_ms())
    << ",\"total_ms\":" << json_number(r.total_ms)
    << ",\"total_host_ms\":" << json_number(r.total_host_ms)
    << ",\"setpts_pts_per_s\":" << json_number(r.per_s(r.setpts_ms, false))
    << ",\"exec_pts_per_s\":" << json_number(r.per_s(r.exec_ms))
    << ",\"exec_median_pts_per_s\":" << json_number(r.per_s(r.exec_ms_median))
    << ",\"setpts_exec_pts_per_s\":" << json_number(r.per_s(r.setpts_exec_ms()))
    << ",\"total_pts_per_s\":" << json_number(r.per_s(r.total_ms))
    << ",\"total_host_pts_per_s\":" << json_number(r.per_s(r.total_host_ms))
    << ",\"mem_bytes\":" << r.mem_bytes;
  if (std::isfinite(r.rel_err))
    j << ",\"rel_err\":" << json_number(r.rel_err) << ",\"check_samples\":" << r.check_samples;
  j << "}\n";
  os << j.str() << std::flush;
}

}  // namespace nufftmp::bench
