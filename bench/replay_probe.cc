// las_replay_probe: one replay stage on its own, for profilers (perf, callgrind) and quick
// A/B timing. Not the benchmark of record (that is las_log_bench, docs/PERFORMANCE.md).
//
//   las_replay_probe build DIR N          write an N-event sample log (as las_log_bench does)
//   las_replay_probe STAGE DIR [PASSES]   time STAGE over the log in DIR, PASSES times
//
// STAGE: verify (read+verify), fold (read+verify+fold), digest (fold once, then time
// ProjectionSet::Digests()), reader-fold (fold through a LogReader); append DIR [N] and
// append-async DIR [N]: N blocking threads / N AppendAsync callers appending for 3 s.
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <thread>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <ctime>
#include <string>
#include <vector>

#include "log/event_log.h"
#include "log/log_reader.h"
#include "projections/projection_set.h"
#include "tests/support/sample_events.h"

namespace {

using Clock = std::chrono::steady_clock;
using namespace las;

[[noreturn]] void Die(const std::string& what, const Status& status) {
  std::fprintf(stderr, "las_replay_probe: %s: %s\n", what.c_str(), status.ToString().c_str());
  std::exit(1);
}

double CpuSeconds() {
  timespec ts{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

int Build(const std::string& dir, uint64_t n) {
  auto log = log::EventLog::Open(dir);
  if (!log.ok()) Die("open", log.status());
  Status appended = testing::AppendSampleCalls(**log, n);
  if (!appended.ok()) Die("append", appended);
  return 0;
}

// N threads appending one event at a time for 3 s: rate, process CPU per append, and how
// many appends each WAL sync covered (EventLog::stats()).
// Rate, process CPU and context switches per append, and appends per WAL sync, of `run`
// appending for 3 s; `run(stop)` returns the appends it made.
template <typename Run>
int ReportAppends(log::EventLog& log, const char* kind, int appenders, Run run) {
  rusage r0{};
  ::getrusage(RUSAGE_SELF, &r0);
  const auto before = log.stats();
  const auto t0 = Clock::now();
  std::atomic<bool> stop{false};
  std::thread timer([&] {
    std::this_thread::sleep_for(std::chrono::seconds(3));
    stop = true;
  });
  const double appends = static_cast<double>(run(stop));
  timer.join();
  const double wall = std::chrono::duration<double>(Clock::now() - t0).count();
  rusage r1{};
  ::getrusage(RUSAGE_SELF, &r1);
  const auto tv = [](const timeval& v) { return static_cast<double>(v.tv_sec) + static_cast<double>(v.tv_usec) / 1e6; };
  const double user = tv(r1.ru_utime) - tv(r0.ru_utime);
  const double sys = tv(r1.ru_stime) - tv(r0.ru_stime);
  const auto after = log.stats();
  const double syncs = static_cast<double>(after.synced_groups - before.synced_groups +
                                           after.background_syncs - before.background_syncs);
  std::printf("%2d %s: %.0f appends/s, %.0f syncs/s, %.2f appends per sync, cpu user %.1f us + sys %.1f us per append, vol/invol ctx switches per append %.1f/%.1f\n",
              appenders, kind, appends / wall, syncs / wall, appends / syncs,
              user / appends * 1e6, sys / appends * 1e6,
              static_cast<double>(r1.ru_nvcsw - r0.ru_nvcsw) / appends,
              static_cast<double>(r1.ru_nivcsw - r0.ru_nivcsw) / appends);
  return 0;
}

int Appenders(const std::string& dir, int threads) {
  auto log = log::EventLog::Open(dir);
  if (!log.ok()) Die("open", log.status());
  return ReportAppends(**log, "appenders", threads, [&](std::atomic<bool>& stop) {
    std::atomic<uint64_t> total{0};
    std::vector<std::thread> workers;
    for (int t = 0; t < threads; ++t) {
      workers.emplace_back([&, t] {
        uint64_t n = static_cast<uint64_t>(t) << 32;
        while (!stop.load()) {
          std::vector<log::EventDraft> one;
          one.push_back(testing::SampleToolCallRequested(n++));
          auto appended = (*log)->Append(std::move(one));
          if (!appended.ok()) Die("append", appended.status());
          ++total;
        }
      });
    }
    for (auto& w : workers) w.join();
    return total.load();
  });
}

// The same with `appenders` logical AppendAsync callers, each appending again from its
// completion (as las_log_bench's section 2b).
int AsyncAppenders(const std::string& dir, int appenders) {
  auto log = log::EventLog::Open(dir);
  if (!log.ok()) Die("open", log.status());
  return ReportAppends(**log, "async appenders", appenders, [&](std::atomic<bool>& stop) {
    std::atomic<uint64_t> total{0};
    std::atomic<int> running{appenders};
    std::function<void(uint64_t)> issue = [&](uint64_t n) {
      std::vector<log::EventDraft> one;
      one.push_back(testing::SampleToolCallRequested(n));
      (*log)->AppendAsync(std::move(one), log::Durability::kSynced,
                          [&, n](Result<log::AppendedRange> r) {
                            if (!r.ok()) Die("append", r.status());
                            ++total;
                            if (stop.load()) {
                              --running;
                              running.notify_one();
                            } else {
                              issue(n + 1);
                            }
                          });
    };
    for (int a = 0; a < appenders; ++a) issue(static_cast<uint64_t>(a) << 32);
    for (int left = running.load(); left > 0; left = running.load()) running.wait(left);
    return total.load();
  });
}

uint64_t Walk(log::EventCursor& cursor, projections::ProjectionSet* set) {
  uint64_t events = 0;
  while (true) {
    auto more = cursor.Next();
    if (!more.ok()) Die("replay", more.status());
    if (!*more) return events;
    ++events;
    if (set != nullptr) set->Apply(cursor.current());
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: las_replay_probe build DIR N | STAGE DIR [PASSES]\n");
    return 2;
  }
  const std::string stage = argv[1];
  const std::string dir = argv[2];
  if (stage == "build") return Build(dir, argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 1000000);
  if (stage == "append") return Appenders(dir, argc > 3 ? std::atoi(argv[3]) : 16);
  if (stage == "append-async") return AsyncAppenders(dir, argc > 3 ? std::atoi(argv[3]) : 16);
  const int passes = argc > 3 ? std::atoi(argv[3]) : 3;

  std::unique_ptr<log::EventLog> writer;
  std::unique_ptr<log::LogReader> reader;
  if (stage == "reader-fold") {
    auto opened = log::LogReader::Open(dir);
    if (!opened.ok()) Die("open reader", opened.status());
    reader = std::move(*opened);
  } else {
    auto opened = log::EventLog::Open(dir);
    if (!opened.ok()) Die("open", opened.status());
    writer = std::move(*opened);
  }
  for (int pass = 0; pass < passes; ++pass) {
    projections::ProjectionSet set;
    const double cpu0 = CpuSeconds();
    const auto t0 = Clock::now();
    auto cursor = writer ? writer->Read(1) : reader->Read(1);
    if (!cursor.ok()) Die("cursor", cursor.status());
    const uint64_t events = Walk(**cursor, stage == "verify" ? nullptr : &set);
    const double wall = std::chrono::duration<double>(Clock::now() - t0).count();
    const double cpu = CpuSeconds() - cpu0;
    std::printf("%-12s %" PRIu64 " events  wall %.3f s  %.0f ev/s  cpu %.3f s  %.0f ev/cpu-s\n",
                stage.c_str(), events, wall, static_cast<double>(events) / wall, cpu,
                static_cast<double>(events) / cpu);
    if (stage == "digest") {
      const double dcpu0 = CpuSeconds();
      const auto d0 = Clock::now();
      auto digests = set.Digests();
      std::printf("digests      wall %.3f s  cpu %.3f s\n",
                  std::chrono::duration<double>(Clock::now() - d0).count(),
                  CpuSeconds() - dcpu0);
      for (const auto& [name, digest] : digests) {
        std::printf("  %-10s %s\n", name.c_str(), digest.c_str());
      }
    }
  }
  return 0;
}
