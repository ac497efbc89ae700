// gateway_bench_sync: the "one disk sync" of the gateway benchmark (bench/gateway_bench.mjs).
//
//   gateway_bench_sync DIR N [--precondition SECONDS]
//
// Appends 400 bytes (about one ToolCallRequested event with its head record) to one new file
// in DIR with write() + fdatasync(), N times on one thread, and prints one JSON line:
//   {"n":N,"bytes":400,"p50_us":..,"p99_us":..,"mean_us":..,"max_us":..,
//    "precondition_s":..,"precondition_median_us":..}
// Percentiles are exact nearest-rank over all N samples. Before measuring, it syncs until the
// median of 100 consecutive syncs is under 1 ms or SECONDS (default 10) have passed: this VM's
// disk has a slow regime where every sync waits for the 4 ms timer tick (docs/PERFORMANCE.md,
// "The disk on this VM"); the driver prints the median so a run in that regime is visible.
// The file is removed at the end. Exit 1 on an I/O error or bad arguments.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

int64_t Nanos(Clock::duration d) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(d).count();
}

[[noreturn]] void Die(const char* what) {
  std::fprintf(stderr, "gateway_bench_sync: %s: %s\n", what, std::strerror(errno));
  std::exit(1);
}

int64_t SyncOnce(int fd, const std::string& bytes) {
  const auto t0 = Clock::now();
  if (::write(fd, bytes.data(), bytes.size()) != static_cast<ssize_t>(bytes.size())) {
    Die("write");
  }
  if (::fdatasync(fd) != 0) Die("fdatasync");
  return Nanos(Clock::now() - t0);
}

double Rank(const std::vector<int64_t>& sorted, double q) {
  const size_t rank = static_cast<size_t>(q * static_cast<double>(sorted.size()) + 0.999999);
  return static_cast<double>(sorted[std::clamp<size_t>(rank, 1, sorted.size()) - 1]) / 1e3;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: gateway_bench_sync DIR N [--precondition SECONDS]\n");
    return 1;
  }
  const std::string dir = argv[1];
  const long n = std::strtol(argv[2], nullptr, 10);
  double precondition_s = 10;
  if (argc == 5 && std::string(argv[3]) == "--precondition") precondition_s = std::atof(argv[4]);
  if (n <= 0) {
    std::fprintf(stderr, "gateway_bench_sync: N must be positive\n");
    return 1;
  }
  const std::string path = dir + "/gateway_bench_sync.dat";
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0600);
  if (fd < 0) Die("open");
  const std::string bytes(400, 'x');

  // Precondition: leave the disk's 4 ms regime if it is in it (bounded).
  const auto start = Clock::now();
  double pre_median_us = 0;
  std::vector<int64_t> window;
  while (std::chrono::duration<double>(Clock::now() - start).count() < precondition_s) {
    window.push_back(SyncOnce(fd, bytes));
    if (window.size() == 100) {
      std::sort(window.begin(), window.end());
      pre_median_us = static_cast<double>(window[50]) / 1e3;
      if (pre_median_us < 1000) break;
      window.clear();
    }
  }
  const double pre_s = std::chrono::duration<double>(Clock::now() - start).count();

  std::vector<int64_t> samples;
  samples.reserve(static_cast<size_t>(n));
  for (long i = 0; i < n; ++i) samples.push_back(SyncOnce(fd, bytes));
  ::close(fd);
  ::unlink(path.c_str());

  double sum = 0;
  for (int64_t s : samples) sum += static_cast<double>(s);
  std::sort(samples.begin(), samples.end());
  std::printf(
      "{\"n\":%ld,\"bytes\":%zu,\"p50_us\":%.1f,\"p99_us\":%.1f,\"mean_us\":%.1f,"
      "\"max_us\":%.1f,\"precondition_s\":%.2f,\"precondition_median_us\":%.1f}\n",
      n, bytes.size(), Rank(samples, 0.50), Rank(samples, 0.99),
      sum / static_cast<double>(samples.size()) / 1e3,
      static_cast<double>(samples.back()) / 1e3, pre_s, pre_median_us);
  return 0;
}
