// las_restart_bench: restart time and resident memory of the server's projections on a
// large log, with and without a snapshot (docs/PERFORMANCE.md, "Snapshots and restart").
//
//   las_restart_bench [--dir DIR] [--events N] [--tail T] [--passes P]
//   las_restart_bench build DIR N      (only writes the N-event log into DIR and keeps it)
//
// Builds an N-event log (ToolCallRequested/ToolCallCompleted pairs, as las_log_bench), then
// runs each restart in a fresh child process (this program with `child ...`), so every
// figure starts from an empty heap: open the log + LiveProjections::CatchUp() — what
// `las serve` does before it federates. Reported per restart: wall time of the open and of
// the fold, VmRSS and VmHWM of the child after it, and the digests (all runs must agree).
// The snapshot is taken T events before the head (default 9,999: the worst tail with
// `--snapshot-every 10000`), so "with snapshot" restores it and folds T events.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "bench/machine_facts.h"
#include "log/event_log.h"
#include "projections/projection_set.h"
#include "projections/snapshots.h"
#include "tests/support/sample_events.h"
#include "tools/live_projections.h"

namespace {

using namespace las;
using Clock = std::chrono::steady_clock;

[[noreturn]] void Die(const std::string& what, const Status& status) {
  std::fprintf(stderr, "las_restart_bench: %s: %s\n", what.c_str(), status.ToString().c_str());
  std::exit(1);
}

double Ms(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

// "VmRSS" or "VmHWM" from /proc/self/status, in KiB.
long StatusKib(const char* field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(field, 0) == 0) return std::strtol(line.c_str() + std::strlen(field) + 1, nullptr, 10);
  }
  return -1;
}

void Build(const std::string& dir, uint64_t n) {
  auto log = log::EventLog::Open(dir);
  if (!log.ok()) Die("open", log.status());
  Status appended = testing::AppendSampleCalls(**log, n, log::Durability::kDeferred);
  if (!appended.ok()) Die("append", appended);
}

// The snapshot key of the log in `dir` (kept beside it, outside the log directory).
std::string KeyFileFor(const std::string& dir) { return dir + ".snapshot-key"; }

// child restart DIR: what `las serve` does before federating; one line of figures.
int ChildRestart(const std::string& dir) {
  const auto t0 = Clock::now();
  auto log = log::EventLog::Open(dir);
  if (!log.ok()) Die("open", log.status());
  const auto t1 = Clock::now();
  tools::LiveOptions options;
  options.snapshot_every = 0;  // measure loading only
  options.snapshot_key_file = KeyFileFor(dir);
  tools::LiveProjections live(**log, options);
  if (Status s = live.CatchUp(); !s.ok()) Die("catch up", s);
  const auto t2 = Clock::now();
  const long rss = StatusKib("VmRSS:");
  const long hwm = StatusKib("VmHWM:");
  std::string digests;
  for (const auto& [name, digest] : live.set().Digests()) digests += name + "=" + digest.substr(0, 12) + ",";
  std::printf("%.1f %.1f %ld %ld %" PRIu64 " %" PRIu64 " %s\n", Ms(t0, t1), Ms(t1, t2), rss, hwm,
              live.startup().snapshot_sequence, live.startup().folded, digests.c_str());
  return 0;
}

// child snapshot DIR TAIL: folds up to head - TAIL and writes a snapshot there.
int ChildSnapshot(const std::string& dir, uint64_t tail) {
  auto log = log::EventLog::Open(dir);
  if (!log.ok()) Die("open", log.status());
  const uint64_t at = (*log)->head().sequence - tail;
  projections::ProjectionSet set;
  auto cursor = (*log)->Read(1);
  if (!cursor.ok()) Die("read", cursor.status());
  while (set.sequence() < at) {
    auto next = (*cursor)->Next();
    if (!next.ok() || !*next) Die("fold", next.ok() ? Corruption("short log") : next.status());
    set.Apply((*cursor)->current());
  }
  // The synchronous write (Save + digests + encode + put on one thread), for comparison
  // with what the server does now when a snapshot is due (tools/live_projections.h): only
  // SaveSnapshotStates on its loop, WriteSavedSnapshot (restore a copy, digests, encode,
  // put) on the writer thread. Both write the same key; the second replaces the first.
  auto key = tools::ReadOrCreateSnapshotKey(KeyFileFor(dir));
  if (!key.ok()) Die("snapshot key", key.status());
  const auto t0 = Clock::now();
  auto written = projections::WriteSnapshot(**log, set, *key);
  const auto t1 = Clock::now();
  if (!written.ok()) Die("write snapshot", written.status());
  auto states = projections::SaveSnapshotStates(set);
  const auto t2 = Clock::now();
  if (!states.ok()) Die("save states", states.status());
  auto background = projections::WriteSavedSnapshot(**log, std::move(*states), *key);
  const auto t3 = Clock::now();
  if (!background.ok()) Die("write saved snapshot", background.status());
  std::printf("%" PRIu64 " %zu %.1f %.1f %.1f\n", at, *background, Ms(t0, t1), Ms(t1, t2),
              Ms(t2, t3));
  return 0;
}

std::string Run(const std::string& command) {
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) Die("popen", IoError(command));
  std::string out;
  char buffer[4096];
  while (size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) out.append(buffer, n);
  if (::pclose(pipe) != 0) Die("child", IoError(command + " failed"));
  return out;
}

struct Restart {
  double open_ms = 0, fold_ms = 0;
  long rss_kib = 0, hwm_kib = 0;
  uint64_t snapshot = 0, folded = 0;
  std::string digests;
  double total() const { return open_ms + fold_ms; }
};

Restart ParseRestart(const std::string& line) {
  Restart r;
  std::istringstream in(line);
  in >> r.open_ms >> r.fold_ms >> r.rss_kib >> r.hwm_kib >> r.snapshot >> r.folded >> r.digests;
  return r;
}

std::vector<Restart> Restarts(const std::string& self, const std::string& dir, int passes) {
  std::vector<Restart> out;
  for (int i = 0; i < passes; ++i) out.push_back(ParseRestart(Run(self + " child restart " + dir)));
  std::sort(out.begin(), out.end(), [](const Restart& a, const Restart& b) { return a.total() < b.total(); });
  return out;
}

void PrintRow(const char* label, const std::vector<Restart>& runs) {
  const Restart& m = runs[runs.size() / 2];
  std::printf("%-22s %9.1f %9.1f %9.1f %9.1f %9.1f %10.1f %10.1f %9" PRIu64 " %9" PRIu64 "\n",
              label, runs.front().total(), m.total(), runs.back().total(), m.open_ms, m.fold_ms,
              static_cast<double>(m.rss_kib) / 1024.0, static_cast<double>(m.hwm_kib) / 1024.0, m.snapshot, m.folded);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.size() >= 3 && args[0] == "child" && args[1] == "restart") return ChildRestart(args[2]);
  // build DIR N: only build the log (kept), e.g. to measure `las serve`'s memory on it.
  if (args.size() >= 3 && args[0] == "build") {
    Build(args[1], std::strtoull(args[2].c_str(), nullptr, 10));
    return 0;
  }
  if (args.size() >= 4 && args[0] == "child" && args[1] == "snapshot") {
    return ChildSnapshot(args[2], std::strtoull(args[3].c_str(), nullptr, 10));
  }
  std::string base = std::getenv("TMPDIR") != nullptr ? std::getenv("TMPDIR") : "/tmp";
  uint64_t events = 1000000, tail = 9999;
  int passes = 3;
  for (size_t i = 0; i + 1 < args.size(); i += 2) {
    if (args[i] == "--dir") base = args[i + 1];
    else if (args[i] == "--events") events = std::strtoull(args[i + 1].c_str(), nullptr, 10);
    else if (args[i] == "--tail") tail = std::strtoull(args[i + 1].c_str(), nullptr, 10);
    else if (args[i] == "--passes") passes = std::atoi(args[i + 1].c_str());
    else { std::fprintf(stderr, "unknown flag %s\n", args[i].c_str()); return 2; }
  }
  char tmpl[4096];
  std::snprintf(tmpl, sizeof tmpl, "%s/las-restart-XXXXXX", base.c_str());
  if (::mkdtemp(tmpl) == nullptr) Die("mkdtemp", IoError(tmpl));
  const std::string dir = std::string(tmpl) + "/log";
  const std::string self = "/proc/" + std::to_string(::getpid()) + "/exe";
  const auto facts = bench::ReadMachineFacts(tmpl);
  std::printf("las_restart_bench\ncpus online    %ld\ncpu model      %s\nkernel         %s\n"
              "bench dir      %s (%s)\n",
              facts.online_cpus, facts.cpu_model.c_str(), facts.kernel.c_str(), tmpl,
              facts.filesystem.c_str());
  double load[3] = {0, 0, 0};
  if (::getloadavg(load, 3) == 3) std::printf("load average   %.2f %.2f %.2f\n", load[0], load[1], load[2]);

  const auto b0 = Clock::now();
  Build(dir, events);
  std::printf("log            %" PRIu64 " events (ToolCallRequested/Completed pairs) built in %.1f s\n",
              events, Ms(b0, Clock::now()) / 1000);
  std::printf("restarts       %d child processes per row; min / median / max of open+fold; other "
              "columns of the median run\n\n", passes);
  std::printf("%-22s %9s %9s %9s %9s %9s %10s %10s %9s %9s\n", "restart", "min ms", "p50 ms",
              "max ms", "open ms", "fold ms", "RSS MiB", "HWM MiB", "snapshot", "folded");

  const auto without = Restarts(self, dir, passes);
  PrintRow("no snapshot", without);
  const std::string snap = Run(self + " child snapshot " + dir + " " + std::to_string(tail));
  uint64_t at = 0;
  size_t bytes = 0;
  double write_ms = 0, loop_ms = 0, writer_ms = 0;
  std::sscanf(snap.c_str(), "%" SCNu64 " %zu %lf %lf %lf", &at, &bytes, &write_ms, &loop_ms,
              &writer_ms);
  const auto with = Restarts(self, dir, passes);
  PrintRow("snapshot + tail", with);

  const Restart& a = without[without.size() / 2];
  const Restart& b = with[with.size() / 2];
  std::printf("\nsnapshot       at sequence %" PRIu64 " (%" PRIu64 " events before the head), %.1f MiB, "
              "written synchronously in %.1f ms (Save + digests + encode + put);\n"
              "               as the server takes it: %.1f ms on its loop (SaveSnapshotStates), "
              "%.1f ms on the writer thread (WriteSavedSnapshot)\n",
              at, tail, static_cast<double>(bytes) / 1048576.0, write_ms, loop_ms, writer_ms);
  std::printf("ratios         restart with/without: %.3fx (%.1f vs %.1f ms); RSS with/without: "
              "%.2fx; HWM with/without: %.2fx\n",
              b.total() / a.total(), b.total(), a.total(), static_cast<double>(b.rss_kib) / static_cast<double>(a.rss_kib),
              static_cast<double>(b.hwm_kib) / static_cast<double>(a.hwm_kib));
  bool same = true;
  for (const auto& r : without) same = same && r.digests == a.digests;
  for (const auto& r : with) same = same && r.digests == a.digests;
  std::printf("digests        %s\n                %s\n",
              same ? "identical in every restart, with and without snapshot" : "DIFFER", a.digests.c_str());
  std::printf("\nTargets (issue 5)\n%s  restart with a snapshot < 200 ms: %.1f ms (p50)\n",
              b.total() < 200 ? "PASS" : "MISS", b.total());
  std::printf("%s  resident memory < 64 MiB on this log (projections only, no children): "
              "%.1f MiB with snapshot, %.1f MiB without (VmRSS after start-up)\n",
              std::max(a.rss_kib, b.rss_kib) < 64 * 1024 ? "PASS" : "MISS",
              static_cast<double>(b.rss_kib) / 1024.0, static_cast<double>(a.rss_kib) / 1024.0);
  std::filesystem::remove_all(tmpl);
  return same ? 0 : 1;
}
