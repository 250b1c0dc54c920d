// Extended XYZ (the format in ewald.hpp): the count, a comment line with
// Lattice="Lx 0 0 0 Ly 0 0 0 Lz", then "name x y z charge" per ion. Numbers are read whole
// (std::from_chars): "1.5x", "" or a missing field is an error naming the line.
#include <charconv>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <vector>

#include "nufftmp/errors.hpp"
#include "system_files.hpp"

namespace nufftmp::ewald::detail {

namespace {

[[noreturn]] void fail(const std::string& path, long line, const std::string& msg) {
  throw Error(ErrorCode::IoFailure,
              "'" + path + "'" + (line > 0 ? " line " + std::to_string(line) : "") + ": " + msg);
}

std::vector<std::string> fields(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream is(s);
  std::string w;
  while (is >> w) out.push_back(w);
  return out;
}

bool parse_double(const std::string& s, double& v) {
  const char* end = s.data() + s.size();
  const auto r = std::from_chars(s.data(), end, v);
  return r.ec == std::errc() && r.ptr == end && std::isfinite(v);
}

}  // namespace

System read_xyz(const std::string& path) {
  std::ifstream in(path);
  if (!in) fail(path, 0, "cannot open for reading");
  std::string line;
  long ln = 0;
  if (!std::getline(in, line)) fail(path, 1, "empty file (the ion count is missing)");
  ++ln;
  const auto head = fields(line);
  long long count = -1;
  if (head.size() == 1) {
    const auto& t = head[0];
    const auto r = std::from_chars(t.data(), t.data() + t.size(), count);
    if (r.ec != std::errc() || r.ptr != t.data() + t.size()) count = -1;
  }
  if (count < 1) fail(path, 1, "'" + line + "' is not a positive ion count");
  if (!std::getline(in, line)) fail(path, 2, "the comment line with Lattice=\"...\" is missing");
  ++ln;
  const auto at = line.find("Lattice=\"");
  if (at == std::string::npos) fail(path, 2, "no Lattice=\"Lx 0 0 0 Ly 0 0 0 Lz\" (the box)");
  const auto open = at + 9, close = line.find('"', open);
  if (close == std::string::npos) fail(path, 2, "Lattice=\" is not closed by a quote");
  const auto lat = fields(line.substr(open, close - open));
  double m[9];
  if (lat.size() != 9) fail(path, 2, "Lattice has " + std::to_string(lat.size()) + " numbers, 9 expected");
  for (int i = 0; i < 9; ++i)
    if (!parse_double(lat[i], m[i])) fail(path, 2, "Lattice entry '" + lat[i] + "' is not a finite number");
  for (int i = 0; i < 9; ++i)
    if (i % 4 != 0 && m[i] != 0)
      fail(path, 2, "the lattice is not orthorhombic (entry " + std::to_string(i + 1) + " = " +
                        lat[i] + "; only diagonal boxes are supported)");
  System s;
  for (int d = 0; d < 3; ++d) {
    s.box.L[d] = m[4 * d];
    if (!(s.box.L[d] > 0)) fail(path, 2, "box edge " + lat[4 * d] + " is not positive");
  }
  s.x.reserve(count);
  s.y.reserve(count);
  s.z.reserve(count);
  s.q.reserve(count);
  for (long long i = 0; i < count; ++i) {
    if (!std::getline(in, line))
      fail(path, ln, "the file ends after " + std::to_string(i) + " of " + std::to_string(count) +
                         " ions");
    ++ln;
    const auto f = fields(line);
    if (f.size() != 5)
      fail(path, ln, std::to_string(f.size()) + " fields, 5 expected (name x y z charge)");
    double v[4];
    for (int k = 0; k < 4; ++k)
      if (!parse_double(f[k + 1], v[k]))
        fail(path, ln, std::string(k < 3 ? std::string(1, "xyz"[k]) : std::string("charge")) +
                           " '" + f[k + 1] + "' is not a finite number");
    s.x.push_back(v[0]);
    s.y.push_back(v[1]);
    s.z.push_back(v[2]);
    s.q.push_back(v[3]);
  }
  while (std::getline(in, line)) {
    ++ln;
    if (!fields(line).empty())
      fail(path, ln, "more ion lines than the count " + std::to_string(count) + " on line 1");
  }
  return s;
}

void write_xyz(const std::string& path, const System& s) {
  FILE* f = std::fopen(path.c_str(), "w");
  if (!f) fail(path, 0, "cannot open for writing");
  bool ok = std::fprintf(f, "%lld\nLattice=\"%.17g 0 0 0 %.17g 0 0 0 %.17g\" "
                            "Properties=species:S:1:pos:R:3:charge:R:1\n",
                         static_cast<long long>(s.size()), s.box.L[0], s.box.L[1], s.box.L[2]) > 0;
  for (std::int64_t i = 0; ok && i < s.size(); ++i)
    ok = std::fprintf(f, "%s %.17g %.17g %.17g %.17g\n", s.q[i] >= 0 ? "Q+" : "Q-", s.x[i], s.y[i],
                      s.z[i], s.q[i]) > 0;
  if (std::fclose(f) != 0 || !ok) fail(path, 0, "write failed");
}

}  // namespace nufftmp::ewald::detail
