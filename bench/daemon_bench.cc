// las_daemon_bench: blackboard compare-and-set throughput through one `las daemon`
// (issue 6, "Benchmark"; results in docs/PERFORMANCE.md, "Shared daemon").
//
//   las_daemon_bench --las PATH/TO/las [--seconds S] [--rounds R] [--dir TMP]
//                    [--only one-key|distinct] [--agents N]
//
// Starts `las daemon --log TMP/.../log` (strict durability: every StateWritten is fsynced
// before its answer) with XDG_RUNTIME_DIR in the temp dir, then for 1, 4 and 16 agents —
// each agent its own connection to the daemon's socket, one call in flight at a time, as an
// MCP client does — runs las__state_cas for S seconds (default 5) in two modes:
//   one-key   every agent on the blackboard key "hot": an attempt wins or gets
//             version-conflict with current_version, and retries from there;
//   distinct  agent i on its own key "k<i>": every attempt wins.
// Per agent count and mode it reports attempts/s, wins/s (= durable writes/s), the mean
// and p99 latency of an attempt as the client sees it, the ratio of wins/s to the
// one-agent rate of the same mode, the daemon's CPU per attempt (all its threads, and its
// main thread — the event loop — alone), the agents' client threads' CPU per attempt (this
// process) and the machine's idle share over the scenario (/proc/stat): together they say
// whether a scenario was bound by the CPUs, by the loop thread or by waiting. R rounds
// (default 3): the row is the round with the median wins/s. `--only` and `--agents` run one
// mode or agent count (for profiling; the ratio needs the one-agent row of the same mode).
// The daemon's stdout gives its socket path; it is stopped with SIGTERM and must exit 0.
// Exit status 0 when every scenario ran (a missed target is a finding).
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "bench/bench_stats.h"
#include "bench/machine_facts.h"

extern char** environ;

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "las_daemon_bench: %s\n", what.c_str());
  std::exit(1);
}

// One agent's connection: newline-delimited JSON-RPC, blocking.
class Connection {
 public:
  explicit Connection(const std::string& path) {
    fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::strncpy(address.sun_path, path.c_str(), sizeof address.sun_path - 1);
    if (fd_ < 0 || ::connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
      Die("connect " + path + ": " + std::strerror(errno));
    }
  }
  ~Connection() {
    if (fd_ >= 0) ::close(fd_);
  }
  void Send(const std::string& line) {
    std::string data = line + "\n";
    size_t sent = 0;
    while (sent < data.size()) {
      ssize_t n = ::send(fd_, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) Die("send failed");
      sent += static_cast<size_t>(n);
    }
  }
  std::string Receive() {
    while (true) {
      if (auto nl = buffer_.find('\n'); nl != std::string::npos) {
        std::string line = buffer_.substr(0, nl);
        buffer_.erase(0, nl + 1);
        return line;
      }
      char chunk[8192];
      ssize_t n = ::read(fd_, chunk, sizeof chunk);
      if (n <= 0) Die("the daemon closed a connection");
      buffer_.append(chunk, static_cast<size_t>(n));
    }
  }
  void Initialize(const std::string& agent) {
    Send(R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"las-daemon-bench","version":"1"},"agentId":")" +
         agent + R"("}})");
    Receive();
    Send(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
  }

 private:
  int fd_ = -1;
  std::string buffer_;
};

// The unsigned integer after `"name":` in `text`, or -1.
long long NumberAfter(const std::string& text, const std::string& name) {
  const std::string needle = "\"" + name + "\":";
  auto at = text.find(needle);
  if (at == std::string::npos) return -1;
  return std::strtoll(text.c_str() + at + needle.size(), nullptr, 10);
}

struct AgentResult {
  uint64_t attempts = 0;
  uint64_t wins = 0;
  std::vector<int64_t> latencies_ns;
};

void RunAgent(const std::string& socket, int index, bool one_key, Clock::time_point start,
              Clock::time_point end, AgentResult& out) {
  Connection connection(socket);
  const std::string agent = "agent-" + std::to_string(index);
  connection.Initialize(agent);
  const std::string key = one_key ? "hot" : "k" + std::to_string(index);
  long long expected = 0;
  uint64_t id = 1;
  std::this_thread::sleep_until(start);
  while (Clock::now() < end) {
    ++id;
    const std::string request =
        R"({"jsonrpc":"2.0","id":)" + std::to_string(id) +
        R"(,"method":"tools/call","params":{"name":"las__state_cas","arguments":{"scope":"blackboard","key":")" +
        key + R"(","expected_version":)" + std::to_string(expected) + R"(,"value":{"by":")" +
        agent + R"(","n":)" + std::to_string(id) + "}}}}";
    const auto t0 = Clock::now();
    connection.Send(request);
    const std::string answer = connection.Receive();
    out.latencies_ns.push_back(
        std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0).count());
    ++out.attempts;
    if (answer.find("version-conflict") != std::string::npos) {
      expected = NumberAfter(answer, "current_version");
    } else if (answer.find("\"isError\":true") == std::string::npos &&
               answer.find("\"result\"") != std::string::npos) {
      ++out.wins;
      expected = NumberAfter(answer, "version");
    } else {
      Die("unexpected answer: " + answer.substr(0, 300));
    }
    if (expected < 0) Die("no version in: " + answer.substr(0, 300));
  }
}

// User + system CPU seconds so far of process `pid` (all its threads), or with
// `main_thread_only` of its main thread — the daemon's event loop — from /proc.
double ProcessCpuSeconds(pid_t pid, bool main_thread_only = false) {
  const std::string id = std::to_string(pid);
  const std::string path = "/proc/" + id + (main_thread_only ? "/task/" + id : "") + "/stat";
  FILE* f = std::fopen(path.c_str(), "r");
  if (f == nullptr) return 0;
  char buffer[2048];
  const size_t n = std::fread(buffer, 1, sizeof buffer - 1, f);
  std::fclose(f);
  buffer[n] = 0;
  const char* p = std::strrchr(buffer, ')');
  if (p == nullptr) return 0;
  unsigned long utime = 0;
  unsigned long stime = 0;
  // Fields after the command: state(3) ... utime(14) stime(15).
  if (std::sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &utime,
                  &stime) != 2) {
    return 0;
  }
  return static_cast<double>(utime + stime) / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

// CPU seconds (user + system) of this process — the agents' client threads — so far.
double OwnCpuSeconds() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
  };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

// The machine's idle and total jiffies so far (the "cpu" line of /proc/stat).
std::pair<double, double> MachineJiffies() {
  FILE* f = std::fopen("/proc/stat", "r");
  if (f == nullptr) return {0, 0};
  unsigned long long v[8] = {};
  const int n = std::fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1],
                            &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
  std::fclose(f);
  if (n < 5) return {0, 0};
  double total = 0;
  for (auto x : v) total += static_cast<double>(x);
  return {static_cast<double>(v[3] + v[4]), total};  // idle + iowait
}

struct Row {
  int agents = 0;
  double daemon_cpu_us_per_attempt = 0;
  double loop_cpu_us_per_attempt = 0;
  double client_cpu_us_per_attempt = 0;
  double machine_idle_percent = 0;
  bool one_key = false;
  double attempts_per_s = 0;
  double wins_per_s = 0;
  las::bench::LatencySummary latency;
  std::vector<double> round_wins;
};

Row RunScenario(const std::string& socket, pid_t daemon, int agents, bool one_key,
                double seconds) {
  std::vector<AgentResult> results(static_cast<size_t>(agents));
  std::vector<std::thread> threads;
  // Connections are opened before the clock starts (RunAgent sleeps until `start`).
  const auto start = Clock::now() + std::chrono::milliseconds(300 + 20 * agents);
  const auto end = start + std::chrono::duration_cast<Clock::duration>(
                               std::chrono::duration<double>(seconds));
  for (int i = 0; i < agents; ++i) {
    threads.emplace_back(RunAgent, socket, i, one_key, start, end,
                         std::ref(results[static_cast<size_t>(i)]));
  }
  std::this_thread::sleep_until(start);
  const double cpu_start = ProcessCpuSeconds(daemon);
  const double loop_start = ProcessCpuSeconds(daemon, /*main_thread_only=*/true);
  const double own_start = OwnCpuSeconds();
  const auto [idle_start, total_start] = MachineJiffies();
  for (auto& t : threads) t.join();
  const double cpu_used = ProcessCpuSeconds(daemon) - cpu_start;
  const double loop_used = ProcessCpuSeconds(daemon, /*main_thread_only=*/true) - loop_start;
  const double own_used = OwnCpuSeconds() - own_start;
  const auto [idle_end, total_end] = MachineJiffies();
  Row row;
  row.agents = agents;
  row.one_key = one_key;
  std::vector<int64_t> all;
  uint64_t attempts = 0;
  uint64_t wins = 0;
  for (auto& r : results) {
    attempts += r.attempts;
    wins += r.wins;
    all.insert(all.end(), r.latencies_ns.begin(), r.latencies_ns.end());
  }
  row.attempts_per_s = static_cast<double>(attempts) / seconds;
  row.wins_per_s = static_cast<double>(wins) / seconds;
  row.latency = las::bench::Summarize(all);
  row.daemon_cpu_us_per_attempt = attempts > 0 ? cpu_used * 1e6 / static_cast<double>(attempts) : 0;
  row.loop_cpu_us_per_attempt = attempts > 0 ? loop_used * 1e6 / static_cast<double>(attempts) : 0;
  row.client_cpu_us_per_attempt = attempts > 0 ? own_used * 1e6 / static_cast<double>(attempts) : 0;
  row.machine_idle_percent =
      total_end > total_start ? 100 * (idle_end - idle_start) / (total_end - total_start) : 0;
  return row;
}

pid_t StartDaemon(const std::string& las, const std::string& log, const std::string& run,
                  std::string& socket) {
  int out[2];
  if (::pipe2(out, O_CLOEXEC) != 0) Die("pipe");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
  std::vector<std::string> env_storage;
  for (char** e = environ; *e != nullptr; ++e) {
    if (std::strncmp(*e, "XDG_RUNTIME_DIR=", 16) != 0 && std::strncmp(*e, "LAS_", 4) != 0) {
      env_storage.emplace_back(*e);
    }
  }
  env_storage.push_back("XDG_RUNTIME_DIR=" + run);
  std::vector<char*> env;
  for (auto& e : env_storage) env.push_back(e.data());
  env.push_back(nullptr);
  std::vector<std::string> argv_storage = {las, "daemon", "--log", log};
  std::vector<char*> argv;
  for (auto& a : argv_storage) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  if (::posix_spawn(&pid, las.c_str(), &actions, nullptr, argv.data(), env.data()) != 0) {
    Die("cannot start " + las);
  }
  posix_spawn_file_actions_destroy(&actions);
  ::close(out[1]);
  std::string line;
  char c;
  while (::read(out[0], &c, 1) == 1 && c != '\n') line.push_back(c);
  ::close(out[0]);
  if (line.empty()) Die("the daemon did not start");
  socket = line;
  return pid;
}

}  // namespace

int main(int argc, char** argv) {
  std::string las;
  double seconds = 5;
  int rounds = 3;
  std::string dir = fs::temp_directory_path().string();
  std::string only_mode;
  int only_agents = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) Die(a + " needs a value");
      return argv[++i];
    };
    if (a == "--las") {
      las = value();
    } else if (a == "--seconds") {
      seconds = std::atof(value().c_str());
    } else if (a == "--rounds") {
      rounds = std::atoi(value().c_str());
    } else if (a == "--dir") {
      dir = value();
    } else if (a == "--only") {
      only_mode = value();
      if (only_mode != "one-key" && only_mode != "distinct") Die("--only one-key|distinct");
    } else if (a == "--agents") {
      only_agents = std::atoi(value().c_str());
    } else {
      Die("usage: las_daemon_bench --las PATH [--seconds S] [--rounds R] [--dir TMP] "
          "[--only one-key|distinct] [--agents N]");
    }
  }
  if (las.empty() || seconds <= 0 || rounds < 1) Die("--las is required; S > 0, R >= 1");
  char pattern[4096];
  std::snprintf(pattern, sizeof pattern, "%s/las-daemon-bench-XXXXXX", dir.c_str());
  if (::mkdtemp(pattern) == nullptr) Die("mkdtemp");
  const std::string tmp = pattern;
  const std::string run = tmp + "/run";
  ::mkdir(run.c_str(), 0700);

  const las::bench::MachineFacts facts = las::bench::ReadMachineFacts(tmp);
  std::printf("las daemon benchmark: las__state_cas through one `las daemon`, strict durability\n");
  std::printf("cpus     %ld x %s\nkernel   %s\ndisk     %s, %s (%s)%s\nplan     %d round(s) x "
              "{1,4,16} agents x {one-key, distinct}, %.1f s each; las %s\n",
              facts.online_cpus, facts.cpu_model.c_str(), facts.kernel.c_str(),
              facts.filesystem.c_str(), facts.mount.c_str(), facts.device_rotational.c_str(),
              facts.sync_is_noop ? " WARNING: sync is a no-op here" : "", rounds, seconds,
              las.c_str());

  std::vector<Row> rows;
  for (bool one_key : {true, false}) {
    if (!only_mode.empty() && one_key != (only_mode == "one-key")) continue;
    for (int agents : {1, 4, 16}) {
      if (only_agents > 0 && agents != only_agents) continue;
      std::vector<Row> runs;
      for (int r = 0; r < rounds; ++r) {
        // A fresh log per round, so every round starts from the same state.
        const std::string log = tmp + "/log-" + std::to_string(rows.size()) + "-" +
                                std::to_string(r);
        std::string socket;
        const pid_t daemon = StartDaemon(las, log, run, socket);
        runs.push_back(RunScenario(socket, daemon, agents, one_key, seconds));
        ::kill(daemon, SIGTERM);
        int status = 0;
        ::waitpid(daemon, &status, 0);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) Die("the daemon did not exit 0");
        fs::remove_all(log);
      }
      std::vector<double> round_wins;
      for (auto& r : runs) round_wins.push_back(r.wins_per_s);
      std::sort(runs.begin(), runs.end(),
                [](const Row& x, const Row& y) { return x.wins_per_s < y.wins_per_s; });
      Row median = runs[runs.size() / 2];
      median.round_wins = round_wins;
      rows.push_back(median);
    }
  }
  std::printf("\n%-9s %6s %11s %9s %8s %8s %11s %11s %11s %6s %8s   %s\n", "mode", "agents",
              "attempts/s", "wins/s", "mean_us", "p99_us", "cpu_us/att", "loop_us/att",
              "cli_us/att", "idle%", "x1agent", "wins/s per round");
  std::map<bool, double> base;
  for (const Row& row : rows) {
    if (row.agents == 1) base[row.one_key] = row.wins_per_s;
    std::string per_round;
    for (double w : row.round_wins) per_round += std::to_string(static_cast<long>(w)) + " ";
    std::printf("%-9s %6d %11.0f %9.0f %8.0f %8.0f %11.0f %11.0f %11.0f %6.0f %7.2fx   %s\n",
                row.one_key ? "one-key" : "distinct", row.agents, row.attempts_per_s,
                row.wins_per_s, row.latency.mean_us, row.latency.p99_us,
                row.daemon_cpu_us_per_attempt, row.loop_cpu_us_per_attempt,
                row.client_cpu_us_per_attempt,
                row.machine_idle_percent,
                base[row.one_key] > 0 ? row.wins_per_s / base[row.one_key] : 0.0,
                per_round.c_str());
  }
  if (base[false] > 0 && !rows.back().one_key && rows.back().agents == 16) {
    const double ratio = rows.back().wins_per_s / base[false];
    std::printf("\ntarget   16 agents on distinct keys >= 8x one agent: %.2fx -> %s\n", ratio,
                ratio >= 8 ? "MET" : "MISSED");
  }
  fs::remove_all(tmp);
  return 0;
}
