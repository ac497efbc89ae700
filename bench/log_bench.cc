// las_log_bench: the log's performance figures for issue 2, in one run, on one disk.
//
//   1. baseline  — bare write() + fdatasync() of the bytes of 1, 16 and 256 stored events
//                  to a file, sequentially: p50/p99 latency, ops/s;
//   2. appends   — durable EventLog::Append with batch sizes 1, 16, 256 x 1, 4, 16
//                  concurrent appender threads: appends/s, events/s, p50/p99 per call, and
//                  the ratios to the bare fdatasync and to one appender;
//   3. replay    — a log of --events events (ToolCallRequested/Completed pairs), read and
//                  verified by the cursor, decoded, and folded, on one thread: events/s,
//                  with read+verify alone beside it, through the writer's EventLog::Read
//                  and through a LogReader (RocksDB secondary instance).
//
// It ends with PASS/MISS for each of the issue's targets. Results: docs/PERFORMANCE.md.
// Usage: las_log_bench [--quick] [--events N] [--dir DIR] [--seconds S] [--cpu MODE]
//                      [--replay-only]

#include <fcntl.h>
#include <rocksdb/version.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <filesystem>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "bench/bench_stats.h"
#include "bench/cpu_keeper.h"
#include "bench/fold_step.h"
#include "bench/machine_facts.h"
#include "log/envelope.h"
#include "log/event_cursor.h"
#include "log/event_log.h"
#include "log/log_reader.h"
#include "tests/support/sample_events.h"

namespace las::bench {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr int kBatchSizes[] = {1, 16, 256};
constexpr int kThreadCounts[] = {1, 4, 16};
constexpr size_t kKeyBytes = 8;   // the 8-byte big-endian sequence key
constexpr size_t kHashBytes = 32; // the chain hash stored in front of each envelope

// Targets from issue 2.
constexpr double kMaxSingleAppendVsBare = 1.5;
constexpr double kMinConcurrencyGain = 10.0;
constexpr double kMinReplayEventsPerSecond = 500000.0;

// How the durability figures are taken: "idle" as the machine is; "awake" with a SCHED_IDLE
// spinner on every CPU so that no vCPU halts (bench/cpu_keeper.h explains why).
enum class CpuMode { kIdle, kAwake };

const char* ModeName(CpuMode mode) { return mode == CpuMode::kIdle ? "idle" : "awake"; }

struct Flags {
  bool quick = false;
  uint64_t events = 1000000;
  bool events_set = false;
  std::string dir;
  double seconds = 4.0;  // measured time per append configuration
  bool seconds_set = false;
  std::vector<CpuMode> modes = {CpuMode::kIdle};
  bool replay_only = false;  // skip sections 1 and 2 (for profiling the replay)
};

[[noreturn]] void Usage(int code) {
  std::fprintf(code == 0 ? stdout : stderr,
               "usage: las_log_bench [--quick] [--events N] [--dir DIR] [--seconds S]\n"
               "                     [--cpu idle|awake|both]\n"
               "  --quick       small sizes for a smoke run (well under 20 s)\n"
               "  --events N    events in the replay log (default 1000000; quick 50000)\n"
               "  --dir DIR     where the temporary logs and files go (default $TMPDIR or\n"
               "                /tmp); everything the run creates is removed at the end\n"
               "  --seconds S   measured seconds per append configuration (default 4;\n"
               "                quick 0.4)\n"
               "  --cpu MODE    durability figures with CPUs as they are (idle), kept out of\n"
               "                their idle state by SCHED_IDLE spinners (awake), or both;\n"
               "                default idle; see bench/cpu_keeper.h\n"
               "  --replay-only only section 3 (replay); no append verdicts\n");
  std::exit(code);
}

Flags ParseFlags(int argc, char** argv) {
  Flags flags;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "las_log_bench: %s needs a value\n", arg.c_str());
        Usage(2);
      }
      return argv[++i];
    };
    if (arg == "--quick") {
      flags.quick = true;
    } else if (arg == "--events") {
      const std::string v = value();
      char* end = nullptr;
      flags.events = std::strtoull(v.c_str(), &end, 10);
      if (end == v.c_str() || *end != '\0' || flags.events < 2) {
        std::fprintf(stderr, "las_log_bench: --events wants an integer >= 2\n");
        Usage(2);
      }
      flags.events_set = true;
    } else if (arg == "--dir") {
      flags.dir = value();
    } else if (arg == "--seconds") {
      const std::string v = value();
      char* end = nullptr;
      flags.seconds = std::strtod(v.c_str(), &end);
      if (end == v.c_str() || *end != '\0' || !(flags.seconds > 0)) {
        std::fprintf(stderr, "las_log_bench: --seconds wants a positive number\n");
        Usage(2);
      }
      flags.seconds_set = true;
    } else if (arg == "--cpu") {
      const std::string v = value();
      if (v == "idle") {
        flags.modes = {CpuMode::kIdle};
      } else if (v == "awake") {
        flags.modes = {CpuMode::kAwake};
      } else if (v == "both") {
        flags.modes = {CpuMode::kIdle, CpuMode::kAwake};
      } else {
        std::fprintf(stderr, "las_log_bench: --cpu wants idle, awake or both\n");
        Usage(2);
      }
    } else if (arg == "--replay-only") {
      flags.replay_only = true;
    } else if (arg == "--help" || arg == "-h") {
      Usage(0);
    } else {
      std::fprintf(stderr, "las_log_bench: unknown argument %s\n", arg.c_str());
      Usage(2);
    }
  }
  if (flags.replay_only) flags.modes.clear();
  if (flags.quick) {
    if (!flags.events_set) flags.events = 50000;
    if (!flags.seconds_set) flags.seconds = 0.4;
  }
  if (flags.dir.empty()) {
    const char* tmp = std::getenv("TMPDIR");
    flags.dir = (tmp != nullptr && *tmp != '\0') ? tmp : "/tmp";
  }
  return flags;
}

[[noreturn]] void Die(const std::string& what, const Status& status) {
  std::fprintf(stderr, "las_log_bench: %s: %s\n", what.c_str(), status.ToString().c_str());
  std::exit(1);
}

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

int64_t Nanos(Clock::duration d) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(d).count();
}

double ThreadCpuSeconds() {
  timespec ts{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

// A fresh directory under the --dir root, removed with everything in it on destruction.
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& root) {
    std::string pattern = (fs::path(root) / "las-bench-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) {
      std::fprintf(stderr, "las_log_bench: cannot create a directory under %s: %s\n",
                   root.c_str(), std::strerror(errno));
      std::exit(1);
    }
    path_ = pattern;
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};


std::vector<log::EventDraft> SampleBatch(uint64_t first, int size) {
  std::vector<log::EventDraft> batch;
  batch.reserve(static_cast<size_t>(size));
  for (int j = 0; j < size; ++j) batch.push_back(testing::SampleCallEvent(first + static_cast<uint64_t>(j)));
  return batch;
}

// ---- 1. Baseline: bare write + fdatasync ------------------------------------------------

struct BareResult {
  int batch = 0;
  size_t bytes = 0;
  LatencySummary latency;
  double ops_per_second = 0;
};

// The bytes a batch of `batch` events occupies as stored (key + hash + envelope each),
// made of real envelope bytes.
std::string StoredBytes(int batch) {
  std::string bytes;
  for (const auto& draft : SampleBatch(0, batch)) {
    bytes.append(kKeyBytes + kHashBytes, '\x5a');
    bytes.append(reinterpret_cast<const char*>(draft.envelope.data()), draft.envelope.size());
  }
  return bytes;
}

// With `overwrite`, the file is first written with zeros for every iteration and synced,
// and the measured writes land inside it: no append grows the file, so an fdatasync has no
// size (inode) update to make — the disk's floor for a sync, which a log whose file grows
// with every append (a RocksDB WAL) cannot reach.
BareResult RunBare(const fs::path& dir, int batch, int iterations, bool overwrite = false) {
  const std::string bytes = StoredBytes(batch);
  const fs::path file = dir / ("bare-" + std::to_string(batch) + ".dat");
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) {
    std::fprintf(stderr, "las_log_bench: open %s: %s\n", file.c_str(), std::strerror(errno));
    std::exit(1);
  }
  if (overwrite) {
    const std::string zeros(bytes.size(), '\0');
    for (int i = 0; i < iterations + std::max(3, iterations / 20); ++i) {
      if (::write(fd, zeros.data(), zeros.size()) != static_cast<ssize_t>(zeros.size())) {
        Die("pre-writing " + file.string(), IoError(std::strerror(errno)));
      }
    }
    if (::fdatasync(fd) != 0 || ::lseek(fd, 0, SEEK_SET) != 0) {
      Die("pre-writing " + file.string(), IoError(std::strerror(errno)));
    }
  }
  auto once = [&] {
    size_t done = 0;
    while (done < bytes.size()) {
      const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        std::fprintf(stderr, "las_log_bench: write: %s\n", std::strerror(errno));
        std::exit(1);
      }
      done += static_cast<size_t>(n);
    }
    if (::fdatasync(fd) != 0) {
      std::fprintf(stderr, "las_log_bench: fdatasync: %s\n", std::strerror(errno));
      std::exit(1);
    }
  };
  for (int i = 0; i < std::max(3, iterations / 20); ++i) once();  // warm-up, not measured
  std::vector<int64_t> samples;
  samples.reserve(static_cast<size_t>(iterations));
  const auto start = Clock::now();
  for (int i = 0; i < iterations; ++i) {
    const auto t0 = Clock::now();
    once();
    samples.push_back(Nanos(Clock::now() - t0));
  }
  const double elapsed = Seconds(Clock::now() - start);
  ::close(fd);
  fs::remove(file);
  BareResult result;
  result.batch = batch;
  result.bytes = bytes.size();
  result.latency = Summarize(samples);
  result.ops_per_second = static_cast<double>(iterations) / elapsed;
  return result;
}

void PrintBareRow(const BareResult& b, const char* note) {
  std::printf("%6d %9zu %8" PRIu64 " %10.0f %10.1f %10.1f %10.1f %10.1f%s\n", b.batch, b.bytes,
              b.latency.count, b.ops_per_second, b.latency.p50_us, b.latency.p99_us,
              b.latency.mean_us, b.latency.max_us, note);
  std::fflush(stdout);
}

// Syncs one event's bytes to a file until the disk is in its fast regime (the median of the
// last 100 syncs under 1 ms) or `limit_s` passed. A virtual disk that has been idle can
// answer each fdatasync only on a 4 ms tick for several seconds; this keeps that start-up
// regime out of the figures. Returns the seconds spent and the final median in us.
std::pair<double, double> PreconditionDisk(const fs::path& root, double limit_s) {
  const std::string bytes = StoredBytes(1);
  const fs::path file = root / "precondition.dat";
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) Die("opening " + file.string(), IoError(std::strerror(errno)));
  std::vector<int64_t> window;
  double median_us = 0;
  const auto start = Clock::now();
  while (Seconds(Clock::now() - start) < limit_s) {
    const auto t0 = Clock::now();
    if (::write(fd, bytes.data(), bytes.size()) != static_cast<ssize_t>(bytes.size()) ||
        ::fdatasync(fd) != 0) {
      Die("bare write+fdatasync", IoError(std::strerror(errno)));
    }
    window.push_back(Nanos(Clock::now() - t0));
    if (window.size() == 100) {
      std::sort(window.begin(), window.end());
      median_us = static_cast<double>(window[50]) / 1e3;
      if (median_us < 1000) break;
      window.clear();
    }
  }
  ::close(fd);
  std::error_code ec;
  fs::remove(file, ec);
  return {Seconds(Clock::now() - start), median_us};
}

// ---- 1b. Paired: bare sync and single append, interleaved -------------------------------

// The disk's latency can change regime within seconds (a virtual disk's rate limiter, the
// host's load), so the single-append target is also measured as pairs: each iteration does
// one bare write+fdatasync of one event's bytes and then one durable Append of one event,
// so both sides of the ratio see the same disk at the same moment.
struct PairedResult {
  LatencySummary bare;
  LatencySummary append;
  double median_pair_ratio = 0;  // median over iterations of append_i / bare_i
};

PairedResult RunPaired(const fs::path& root, int iterations) {
  const std::string bytes = StoredBytes(1);
  const fs::path file = root / "paired-bare.dat";
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) Die("opening " + file.string(), IoError(std::strerror(errno)));
  const fs::path dir = root / "paired-log";
  auto opened = log::EventLog::Open(dir.string());
  if (!opened.ok()) Die("opening " + dir.string(), opened.status());
  std::unique_ptr<log::EventLog> event_log = std::move(*opened);
  const std::vector<log::EventDraft> batch = SampleBatch(0, 1);
  std::vector<int64_t> bare_ns;
  std::vector<int64_t> append_ns;
  std::vector<double> ratios;
  const int warmup = std::max(3, iterations / 20);
  for (int i = 0; i < warmup + iterations; ++i) {
    std::vector<log::EventDraft> drafts = batch;
    const auto t0 = Clock::now();
    if (::write(fd, bytes.data(), bytes.size()) != static_cast<ssize_t>(bytes.size()) ||
        ::fdatasync(fd) != 0) {
      Die("bare write+fdatasync", IoError(std::strerror(errno)));
    }
    const auto t1 = Clock::now();
    auto appended = event_log->Append(std::move(drafts));
    const auto t2 = Clock::now();
    if (!appended.ok()) Die("appending", appended.status());
    if (i < warmup) continue;
    bare_ns.push_back(Nanos(t1 - t0));
    append_ns.push_back(Nanos(t2 - t1));
    ratios.push_back(static_cast<double>(append_ns.back()) /
                     static_cast<double>(std::max<int64_t>(1, bare_ns.back())));
  }
  ::close(fd);
  event_log.reset();
  std::error_code ec;
  fs::remove(file, ec);
  fs::remove_all(dir, ec);
  PairedResult result;
  result.bare = Summarize(bare_ns);
  result.append = Summarize(append_ns);
  std::sort(ratios.begin(), ratios.end());
  result.median_pair_ratio = ratios[ratios.size() / 2];
  return result;
}

// ---- 2. Durable appends ------------------------------------------------------------------

struct AppendResult {
  int batch = 0;
  int threads = 0;
  uint64_t appends = 0;
  double seconds = 0;
  LatencySummary latency;
  double appends_per_second = 0;
  double events_per_second = 0;
};

AppendResult RunAppends(const fs::path& root, int batch, int threads, double warmup_s,
                        double measure_s) {
  const fs::path dir = root / ("append-b" + std::to_string(batch) + "-t" + std::to_string(threads));
  auto opened = log::EventLog::Open(dir.string());
  if (!opened.ok()) Die("opening " + dir.string(), opened.status());
  std::unique_ptr<log::EventLog> event_log = std::move(*opened);

  struct Worker {
    std::vector<log::EventDraft> batch;  // built before the clock starts
    std::vector<int64_t> samples;
    uint64_t appends = 0;
    Clock::time_point last_end;
    Status error;
  };
  std::vector<Worker> workers(static_cast<size_t>(threads));
  for (size_t t = 0; t < workers.size(); ++t) {
    workers[t].batch = SampleBatch(t * 1000000, batch);
    workers[t].samples.reserve(1 << 16);
  }

  std::atomic<bool> go{false};
  Clock::time_point measure_start;
  Clock::time_point end;
  std::vector<std::thread> pool;
  for (auto& worker : workers) {
    pool.emplace_back([&, w = &worker] {
      while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
      while (true) {
        if (Clock::now() >= end) break;
        std::vector<log::EventDraft> drafts = w->batch;  // the caller builds; not timed
        const auto t0 = Clock::now();
        auto appended = event_log->Append(std::move(drafts));
        const auto t1 = Clock::now();
        if (!appended.ok()) {
          w->error = appended.status();
          break;
        }
        if (t0 >= measure_start) {
          w->samples.push_back(Nanos(t1 - t0));
          ++w->appends;
          w->last_end = t1;
        }
      }
    });
  }
  const auto now = Clock::now();
  measure_start = now + std::chrono::duration_cast<Clock::duration>(
                            std::chrono::duration<double>(warmup_s));
  end = measure_start + std::chrono::duration_cast<Clock::duration>(
                            std::chrono::duration<double>(measure_s));
  go.store(true, std::memory_order_release);
  for (auto& thread : pool) thread.join();

  AppendResult result;
  result.batch = batch;
  result.threads = threads;
  std::vector<int64_t> all;
  Clock::time_point last_end = measure_start;
  for (auto& worker : workers) {
    if (!worker.error.ok()) Die("appending", worker.error);
    result.appends += worker.appends;
    all.insert(all.end(), worker.samples.begin(), worker.samples.end());
    if (worker.appends > 0) last_end = std::max(last_end, worker.last_end);
  }
  result.seconds = Seconds(last_end - measure_start);
  result.latency = Summarize(all);
  if (result.seconds > 0) {
    result.appends_per_second = static_cast<double>(result.appends) / result.seconds;
    result.events_per_second = result.appends_per_second * batch;
  }
  const auto head = event_log->head();
  event_log.reset();
  std::error_code ec;
  fs::remove_all(dir, ec);
  if (head.sequence == 0) Die("appending", IoError("nothing was appended"));
  return result;
}

// 2b. The same with AppendAsync: `appenders` logical appenders, each with one append in
// flight at a time (its completion issues its next one), and no thread of their own:
// callers on event loops, whose appends the log's writer thread batches. Batch 1.
AppendResult RunAsyncAppends(const fs::path& root, int appenders, double warmup_s,
                             double measure_s) {
  const fs::path dir = root / ("async-a" + std::to_string(appenders));
  auto opened = log::EventLog::Open(dir.string());
  if (!opened.ok()) Die("opening " + dir.string(), opened.status());
  std::unique_ptr<log::EventLog> event_log = std::move(*opened);
  const std::vector<log::EventDraft> batch = SampleBatch(0, 1);

  std::mutex mu;
  std::condition_variable idle;
  std::vector<int64_t> samples;
  samples.reserve(1 << 18);
  uint64_t appends = 0;
  int running = appenders;
  Clock::time_point last_end;
  Status error;
  const auto measure_start =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(warmup_s));
  const auto end =
      measure_start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(measure_s));

  std::function<void()> issue;
  issue = [&] {
    const auto t0 = Clock::now();
    event_log->AppendAsync(batch, log::Durability::kSynced, [&, t0](Result<log::AppendedRange> r) {
      const auto t1 = Clock::now();
      bool again = false;
      {
        std::lock_guard lock(mu);
        if (!r.ok() && error.ok()) error = r.status();
        if (r.ok() && t0 >= measure_start) {
          samples.push_back(Nanos(t1 - t0));
          ++appends;
          last_end = std::max(last_end, t1);
        }
        again = r.ok() && t1 < end;
        if (!again && --running == 0) idle.notify_one();
      }
      if (again) issue();
    });
  };
  for (int a = 0; a < appenders; ++a) issue();
  {
    std::unique_lock lock(mu);
    idle.wait(lock, [&] { return running == 0; });
  }
  if (!error.ok()) Die("appending", error);

  AppendResult result;
  result.batch = 1;
  result.threads = appenders;
  result.appends = appends;
  result.seconds = Seconds(last_end - measure_start);
  result.latency = Summarize(samples);
  if (result.seconds > 0) {
    result.appends_per_second = static_cast<double>(appends) / result.seconds;
    result.events_per_second = result.appends_per_second;
  }
  event_log.reset();
  std::error_code ec;
  fs::remove_all(dir, ec);
  return result;
}

// ---- 3. Replay -----------------------------------------------------------------------------

enum class Stage { kReadVerify, kDecode, kFull };

const char* StageName(Stage stage) {
  switch (stage) {
    case Stage::kReadVerify: return "read+verify";
    case Stage::kDecode: return "read+verify+decode";
    case Stage::kFull: return "read+verify+decode+fold";
  }
  return "?";
}

size_t Len(const flatbuffers::String* s) { return s == nullptr ? 0 : s->size(); }

// The decode step: typed access to the envelope and the fields a reducer reads.
uint64_t Decode(const log::StoredEvent& event) {
  const fb::Envelope& envelope = log::EnvelopeOf(event);
  uint64_t touched = static_cast<uint64_t>(envelope.time_micros()) + envelope.sequence() +
                     Len(envelope.agent_id()) + Len(envelope.session_id());
  switch (envelope.payload_type()) {
    case fb::EventPayload::ToolCallRequested: {
      const auto* p = envelope.payload_as_ToolCallRequested();
      if (p == nullptr) break;
      touched += Len(p->call_id()) + Len(p->surface()) + Len(p->tool()) +
                 Len(p->definition_sha256()) + Len(p->arguments()) + p->arguments_size() +
                 Len(p->request_id()) + (p->arguments_truncated() ? 1u : 0u);
      if (p->call_id() != nullptr && p->call_id()->size() > 0) touched += p->call_id()->Get(0);
      break;
    }
    case fb::EventPayload::ToolCallCompleted: {
      const auto* p = envelope.payload_as_ToolCallCompleted();
      if (p == nullptr) break;
      touched += Len(p->call_id()) + static_cast<uint64_t>(p->outcome()) + Len(p->result()) +
                 p->result_size() + static_cast<uint64_t>(p->duration_micros()) +
                 Len(p->error_code()) + (p->result_truncated() ? 1u : 0u);
      if (p->call_id() != nullptr && p->call_id()->size() > 0) touched += p->call_id()->Get(0);
      break;
    }
    default:
      touched += static_cast<uint64_t>(envelope.payload_type());
      break;
  }
  return touched;
}

struct ReplayResult {
  std::string source;
  Stage stage = Stage::kReadVerify;
  uint64_t events = 0;
  std::vector<double> wall_seconds;  // one per repetition
  std::vector<double> cpu_seconds;
  std::vector<double> digest_seconds;  // FoldStep::digests() after the fold (kFull only)
  FoldStep::Digests digests;

  double Median(std::vector<double> v) const {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  }
  double events_per_second() const { return static_cast<double>(events) / Median(wall_seconds); }
  double events_per_cpu_second() const {
    return static_cast<double>(events) / Median(cpu_seconds);
  }
};

using CursorFactory = std::function<Result<std::unique_ptr<log::EventCursor>>()>;

volatile uint64_t g_sink = 0;  // keeps the decode step from being optimized away

// One timed pass on this thread: open the cursor, walk it to the end (which verifies the
// chain against the head), and do `stage`'s work on each event.
void ReplayOnce(const CursorFactory& open, Stage stage, uint64_t expected, ReplayResult& out) {
  FoldStep fold;
  uint64_t sink = 0;
  uint64_t events = 0;
  const double cpu0 = ThreadCpuSeconds();
  const auto t0 = Clock::now();
  auto cursor = open();
  if (!cursor.ok()) Die("opening a cursor", cursor.status());
  while (true) {
    auto more = (*cursor)->Next();
    if (!more.ok()) Die("replaying", more.status());
    if (!*more) break;
    const log::StoredEvent& event = (*cursor)->current();
    ++events;
    if (stage == Stage::kReadVerify) continue;
    sink += Decode(event);
    if (stage == Stage::kFull) fold.Apply(event);
  }
  const auto t1 = Clock::now();
  const double cpu1 = ThreadCpuSeconds();
  FoldStep::Digests digests;
  if (stage == Stage::kFull) {
    digests = fold.digests();
    out.digest_seconds.push_back(Seconds(Clock::now() - t1));
  }
  g_sink = g_sink + sink;
  if (events != expected) {
    Die("replaying", Corruption("read " + std::to_string(events) + " events, expected " +
                                std::to_string(expected)));
  }
  out.events = events;
  out.wall_seconds.push_back(Seconds(t1 - t0));
  out.cpu_seconds.push_back(cpu1 - cpu0);
  if (stage == Stage::kFull) out.digests = std::move(digests);
}

ReplayResult RunReplay(const std::string& source, const CursorFactory& open, Stage stage,
                       uint64_t expected, int repetitions) {
  ReplayResult result;
  result.source = source;
  result.stage = stage;
  for (int r = 0; r < repetitions; ++r) ReplayOnce(open, stage, expected, result);
  return result;
}

struct ModeResults {
  CpuMode mode = CpuMode::kIdle;
  std::vector<BareResult> bare;
  std::vector<AppendResult> appends;
  std::vector<AppendResult> async_appends;  // 2b: batch 1, per kThreadCounts
  BareResult bare_after;  // batch 1 again, after the appends
  PairedResult paired;

  const BareResult& Bare(int batch) const {
    for (const auto& b : bare) {
      if (b.batch == batch) return b;
    }
    return bare.front();
  }
  const AppendResult& Append(int batch, int threads) const {
    for (const auto& a : appends) {
      if (a.batch == batch && a.threads == threads) return a;
    }
    return appends.front();
  }
};

// ---- Printing ----------------------------------------------------------------------------

std::string LoadAverage() {
  std::ifstream in("/proc/loadavg");
  std::string one, five, fifteen;
  if (!(in >> one >> five >> fifteen)) return "?";
  return one + " " + five + " " + fifteen;
}

const char* Verdict(bool pass) { return pass ? "PASS" : "MISS"; }

void Rule() {
  std::printf("-----------------------------------------------------------------------------"
              "-------------------\n");
}

}  // namespace

int Main(int argc, char** argv) {
  const Flags flags = ParseFlags(argc, argv);
  if (!fs::is_directory(flags.dir)) {
    std::fprintf(stderr, "las_log_bench: --dir %s is not a directory\n", flags.dir.c_str());
    return 2;
  }
  const auto run_start = Clock::now();
  ScratchDir scratch(flags.dir);
  const MachineFacts machine = ReadMachineFacts(scratch.path().string());
  const std::string load_at_start = LoadAverage();
  const int bare_iterations[] = {flags.quick ? 200 : 2000, flags.quick ? 200 : 2000,
                                 flags.quick ? 100 : 1000};
  const double warmup_s = flags.quick ? 0.1 : 0.5;
  const int repetitions = flags.quick ? 1 : 3;

  std::printf("las_log_bench%s\n", flags.quick ? " --quick (smoke run: small N, noisy)" : "");
  Rule();
  std::printf("cpus online    %ld\n", machine.online_cpus);
  std::printf("cpu model      %s\n", machine.cpu_model.c_str());
  std::printf("kernel         %s\n", machine.kernel.c_str());
  std::printf("bench dir      %s\n", scratch.path().c_str());
  std::printf("filesystem     %s; %s\n", machine.filesystem.c_str(), machine.mount.c_str());
  std::printf("device         %s\n", machine.device_rotational.c_str());
  std::printf("rocksdb        %d.%d.%d\n", ROCKSDB_MAJOR, ROCKSDB_MINOR, ROCKSDB_PATCH);
  std::printf("load average   %s (other work on the machine skews every figure)\n",
              load_at_start.c_str());
  std::printf("fold step      %s\n", std::string(FoldStep::Description()).c_str());
  const size_t event_bytes = StoredBytes(2).size() / 2;
  std::printf("event          ToolCallRequested/Completed, ~%zu bytes stored (8 key + 32 hash"
              " + envelope)\n",
              event_bytes);
  if (machine.sync_is_noop) {
    std::printf("WARNING        %s is a memory filesystem: fdatasync is a no-op there and the\n"
                "               durability figures mean nothing. Use --dir on a real disk.\n",
                scratch.path().c_str());
  }
  Rule();
  std::fflush(stdout);

  // 1 and 2, once per CPU mode; the ratios compare figures of the same mode only.
  std::vector<ModeResults> modes;
  for (CpuMode mode : flags.modes) {
    ModeResults results;
    results.mode = mode;
    std::unique_ptr<CpuKeeper> keeper;
    if (mode == CpuMode::kAwake) keeper = std::make_unique<CpuKeeper>();
    std::printf("\n== CPU mode: %s ==\n", ModeName(mode));
    if (keeper && !keeper->exact()) {
      std::printf("   (note: a spinner could not be made SCHED_IDLE or pinned)\n");
    }

    const auto [pre_s, pre_us] = PreconditionDisk(scratch.path(), flags.quick ? 5.0 : 20.0);
    std::printf("\n   disk preconditioned for %.1f s (write+fdatasync until the median of 100"
                " is < 1 ms): median %.0f us\n",
                pre_s, pre_us);
    std::printf("\n1. Baseline: bare write() + fdatasync() of the same bytes, appended to one"
                " file, one thread\n\n");
    std::printf("%6s %9s %8s %10s %10s %10s %10s %10s\n", "batch", "bytes", "n", "ops/s",
                "p50 us", "p99 us", "mean us", "max us");
    for (size_t i = 0; i < std::size(kBatchSizes); ++i) {
      results.bare.push_back(RunBare(scratch.path(), kBatchSizes[i], bare_iterations[i]));
      PrintBareRow(results.bare.back(), "");
    }
    PrintBareRow(RunBare(scratch.path(), 1, bare_iterations[0], /*overwrite=*/true),
                 "   (overwriting pre-written blocks: no size update per sync; not the"
                 " targets' baseline)");

    results.paired = RunPaired(scratch.path(), bare_iterations[0]);
    {
      const auto& pr = results.paired;
      std::printf("\n1b. Paired, interleaved in one loop: bare write+fdatasync of one event's"
                  " bytes, then Append of one event\n\n");
      std::printf("%-22s %8s %10s %10s %10s\n", "", "n", "p50 us", "p99 us", "mean us");
      std::printf("%-22s %8" PRIu64 " %10.1f %10.1f %10.1f\n", "bare write+fdatasync",
                  pr.bare.count, pr.bare.p50_us, pr.bare.p99_us, pr.bare.mean_us);
      std::printf("%-22s %8" PRIu64 " %10.1f %10.1f %10.1f\n", "EventLog::Append (1)",
                  pr.append.count, pr.append.p50_us, pr.append.p99_us, pr.append.mean_us);
      std::printf("   append/bare: p50 %.2fx, mean %.2fx, median of per-pair ratios %.2fx\n",
                  pr.append.p50_us / pr.bare.p50_us, pr.append.mean_us / pr.bare.mean_us,
                  pr.median_pair_ratio);
      std::fflush(stdout);
    }

    std::printf("\n2. Durable EventLog::Append (WAL synced, group commit), %.1f s measured per"
                " row after %.1f s warm-up\n",
                flags.seconds, warmup_s);
    std::printf("   x bare = appends/s / bare ops/s of the same batch size; p50 x bare = p50 /"
                " bare p50;\n   x 1 thr = appends/s / appends/s of the same batch size with 1"
                " appender\n\n");
    std::printf("%6s %7s %9s %10s %11s %9s %9s %9s %8s %10s %8s\n", "batch", "threads",
                "appends", "appends/s", "events/s", "p50 us", "p99 us", "mean us", "x bare",
                "p50 x bare", "x 1 thr");
    for (int batch : kBatchSizes) {
      for (int threads : kThreadCounts) {
        results.appends.push_back(
            RunAppends(scratch.path(), batch, threads, warmup_s, flags.seconds));
        const auto& a = results.appends.back();
        const auto& b = results.Bare(batch);
        const double single_rate = results.Append(batch, 1).appends_per_second;
        std::printf("%6d %7d %9" PRIu64 " %10.0f %11.0f %9.1f %9.1f %9.1f %8.2f %10.2f %8.2f\n",
                    a.batch, a.threads, a.appends, a.appends_per_second, a.events_per_second,
                    a.latency.p50_us, a.latency.p99_us, a.latency.mean_us,
                    a.appends_per_second / b.ops_per_second, a.latency.p50_us / b.latency.p50_us,
                    single_rate > 0 ? a.appends_per_second / single_rate : 0.0);
        std::fflush(stdout);
      }
    }
    std::printf("\n2b. Durable AppendAsync (WAL synced), batch 1: N logical appenders, one append"
                " in flight each, no threads of their own (callers on event loops)\n\n");
    std::printf("%10s %9s %10s %9s %9s %9s %8s\n", "appenders", "appends", "appends/s", "p50 us",
                "p99 us", "mean us", "x 1");
    for (int appenders : kThreadCounts) {
      results.async_appends.push_back(
          RunAsyncAppends(scratch.path(), appenders, warmup_s, flags.seconds));
      const auto& a = results.async_appends.back();
      const double single_rate = results.async_appends.front().appends_per_second;
      std::printf("%10d %9" PRIu64 " %10.0f %9.1f %9.1f %9.1f %8.2f\n", appenders, a.appends,
                  a.appends_per_second, a.latency.p50_us, a.latency.p99_us, a.latency.mean_us,
                  single_rate > 0 ? a.appends_per_second / single_rate : 0.0);
      std::fflush(stdout);
    }
    // The disk's speed can drift during a run (on a VM, with the host's load): measure the
    // single-event baseline again after the appends, so a drift shows.
    results.bare_after = RunBare(scratch.path(), 1, bare_iterations[0]);
    const auto& before = results.Bare(1).latency;
    const auto& after = results.bare_after.latency;
    std::printf("\n   bare batch-1 baseline again after the appends: p50 %.1f us, p99 %.1f us"
                " (before: p50 %.1f us)%s\n",
                after.p50_us, after.p99_us, before.p50_us,
                after.p50_us > 1.5 * before.p50_us || before.p50_us > 1.5 * after.p50_us
                    ? "  -- THE DISK DRIFTED: the ratios above are unreliable, rerun"
                    : "");
    modes.push_back(std::move(results));
  }

  // 3. Replay.
  std::printf("\n3. Replay of a %" PRIu64 "-event log, one thread (median of %d pass%s)\n",
              flags.events, repetitions, repetitions == 1 ? "" : "es");
  const fs::path replay_dir = scratch.path() / "replay";
  std::unique_ptr<log::EventLog> writer;
  {
    auto opened = log::EventLog::Open(replay_dir.string());
    if (!opened.ok()) Die("opening the replay log", opened.status());
    writer = std::move(*opened);
    const auto t0 = Clock::now();
    constexpr int kBuildBatch = 256;
    for (uint64_t first = 0; first < flags.events; first += kBuildBatch) {
      const auto size =
          static_cast<int>(std::min<uint64_t>(kBuildBatch, flags.events - first));
      auto appended = writer->Append(SampleBatch(first, size));
      if (!appended.ok()) Die("building the replay log", appended.status());
    }
    const double build_s = Seconds(Clock::now() - t0);
    // Reopen, as a restart would: replay starts from what is on disk.
    writer.reset();
    opened = log::EventLog::Open(replay_dir.string());
    if (!opened.ok()) Die("reopening the replay log", opened.status());
    writer = std::move(*opened);
    std::printf("   built with Append batches of 256 in %.1f s (%.0f events/s; not part of the"
                " figures), then reopened.\n",
                build_s, static_cast<double>(flags.events) / build_s);
    std::printf("   The log was just written, so its files are in the page cache: this is the"
                " CPU cost of replay.\n\n");
  }
  std::printf("%-24s %-26s %10s %9s %12s %14s\n", "source", "stage", "events", "wall s",
              "events/s", "events/cpu-s");
  std::vector<ReplayResult> replays;
  auto print_replay = [&](const ReplayResult& r) {
    std::printf("%-24s %-26s %10" PRIu64 " %9.3f %12.0f %14.0f\n", r.source.c_str(),
                StageName(r.stage), r.events,
                r.Median(r.wall_seconds), r.events_per_second(), r.events_per_cpu_second());
    std::fflush(stdout);
  };
  const CursorFactory writer_cursor = [&] { return writer->Read(1); };
  for (Stage stage : {Stage::kReadVerify, Stage::kDecode, Stage::kFull}) {
    replays.push_back(
        RunReplay("EventLog::Read (writer)", writer_cursor, stage, flags.events, repetitions));
    print_replay(replays.back());
  }
  const double open_reader_t0 = Seconds(Clock::now() - run_start);
  auto reader = log::LogReader::Open(replay_dir.string());
  if (!reader.ok()) Die("opening a LogReader", reader.status());
  const double reader_open_s = Seconds(Clock::now() - run_start) - open_reader_t0;
  const CursorFactory reader_cursor = [&] { return (*reader)->Read(1); };
  for (Stage stage : {Stage::kReadVerify, Stage::kFull}) {
    replays.push_back(
        RunReplay("LogReader (secondary)", reader_cursor, stage, flags.events, repetitions));
    print_replay(replays.back());
  }
  std::printf("   LogReader::Open (secondary instance, writer live) took %.3f s, not included"
              " above.\n",
              reader_open_s);
  const ReplayResult& writer_full = replays[2];
  const ReplayResult& reader_full = replays.back();
  std::printf("   Computing the fold's digests after the last event (not included above) took"
              " %.3f s (median).\n",
              writer_full.Median(writer_full.digest_seconds));
  std::printf("\n   fold digests (writer pass):\n");
  for (const auto& [name, digest] : writer_full.digests) {
    std::printf("     %-28s %s\n", name.c_str(), digest.c_str());
  }
  const bool digests_agree = writer_full.digests == reader_full.digests;
  std::printf("   writer and secondary passes give %s digests\n",
              digests_agree ? "the same" : "DIFFERENT");
  reader->reset();
  writer.reset();

  // Verdicts.
  const double replay_rate = writer_full.events_per_second();
  const double replay_cpu_rate = writer_full.events_per_cpu_second();
  const double reader_rate = reader_full.events_per_second();
  std::printf("\nTargets (issue 2)\n");
  Rule();
  for (const auto& m : modes) {
    const auto& single = m.Append(1, 1);
    const auto& sixteen = m.Append(1, 16);
    const auto& bare1 = m.Bare(1);
    const double ratio_p50 = single.latency.p50_us / bare1.latency.p50_us;
    const double ratio_mean = single.latency.mean_us / bare1.latency.mean_us;
    const double gain = sixteen.appends_per_second / single.appends_per_second;
    const auto& pr = m.paired;
    const double paired_p50 = pr.append.p50_us / pr.bare.p50_us;
    std::printf("%s  [%s] durable single append <= %.1fx bare write+fdatasync (paired run): p50"
                " %.1f us vs %.1f us = %.2fx (median pair ratio %.2fx)\n",
                Verdict(paired_p50 <= kMaxSingleAppendVsBare), ModeName(m.mode),
                kMaxSingleAppendVsBare, pr.append.p50_us, pr.bare.p50_us, paired_p50,
                pr.median_pair_ratio);
    std::printf("      (separate runs, sections 1 and 2: p50 %.1f us vs %.1f us = %.2fx, mean"
                " %.2fx)\n",
                single.latency.p50_us, bare1.latency.p50_us, ratio_p50, ratio_mean);
    std::printf("%s  [%s] 16 concurrent appenders >= %.0fx one appender (batch 1), blocking Append"
                " from 16 threads: %.0f vs %.0f appends/s = %.2fx\n",
                Verdict(gain >= kMinConcurrencyGain), ModeName(m.mode), kMinConcurrencyGain,
                sixteen.appends_per_second, single.appends_per_second, gain);
    if (m.async_appends.size() == std::size(kThreadCounts)) {
      const auto& one = m.async_appends.front();
      const auto& many = m.async_appends.back();
      const double async_gain = many.appends_per_second / one.appends_per_second;
      std::printf("%s  [%s] 16 concurrent appenders >= %.0fx one appender (batch 1), AppendAsync"
                  " (callers on event loops): %.0f vs %.0f appends/s = %.2fx\n",
                  Verdict(async_gain >= kMinConcurrencyGain), ModeName(m.mode),
                  kMinConcurrencyGain, many.appends_per_second, one.appends_per_second,
                  async_gain);
    }
    if (bare1.latency.p50_us > 1000 || m.bare_after.latency.p50_us > 1000) {
      std::printf("      UNRELIABLE [%s]: a bare fdatasync took > 1 ms at p50 (%.0f us before,"
                  " %.0f us after the appends):\n      the disk was in a throttled regime, so"
                  " these two verdicts measure the throttle, not the log.\n",
                  ModeName(m.mode), bare1.latency.p50_us, m.bare_after.latency.p50_us);
    }
  }
  const bool replay_pass = FoldStep::kReal && replay_rate >= kMinReplayEventsPerSecond;
  std::printf("%s  replay >= %.0f events/s on one core: %.0f events/s wall (%.0f per CPU-second)"
              " through EventLog::Read; %.0f wall through the secondary%s\n",
              Verdict(replay_pass), kMinReplayEventsPerSecond, replay_rate, replay_cpu_rate,
              reader_rate, FoldStep::kReal ? "" : " -- fold is a STAND-IN, so no verdict");
  std::printf("load average at start: %s; at end: %s\n", load_at_start.c_str(),
              LoadAverage().c_str());
  Rule();
  std::printf("total run time %.0f s\n", Seconds(Clock::now() - run_start));
  return digests_agree ? 0 : 1;
}

}  // namespace las::bench

int main(int argc, char** argv) { return las::bench::Main(argc, argv); }
