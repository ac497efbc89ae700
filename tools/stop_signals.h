// StopSignals: SIGTERM, SIGINT and SIGHUP for a serving process (`las serve`, `las daemon`),
// with a last way out that needs nothing else to run. The handler counts each signal
// itself: the first two are handed to the loop (AsyncWait) — the first to drain, the second
// to drop what cannot be delivered — and the third ends the process there and then:
// `third_line` on stderr and exit kExitAtThirdSignal, with no destructor run and nothing
// more recorded. What it cuts short may be a WAL sync that never returns (a hung disk), on
// the loop's own thread or in the log's close, where a handler run by the loop would never
// run or the exit would wait for it (probe BU1). The log is left as a crash leaves it (it
// is crash-safe: log/FORMAT.md); children die by their parent-death signal; sessions
// still open are recorded `lost` by the next start.
//
// One at a time per process (the handler's state is static). Construction replaces the
// three signals' dispositions — but for one the process was started ignoring (SIGHUP under
// nohup), which stays ignored — and destruction restores the previous ones.
// Threading: AsyncWait and Cancel on the loop's thread; the handler runs on any thread.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace boost::asio {
class io_context;
}

namespace las::tools {

// The CLI's exit code of an I/O failure (docs/CLI.md): the end was not recorded.
inline constexpr int kExitAtThirdSignal = 9;

class StopSignals {
 public:
  // `third_line`: the whole stderr line of a third signal (e.g. "las serve: third signal:
  // ..."), at most 511 bytes kept.
  StopSignals(boost::asio::io_context& io, const std::string& third_line);
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

  // Calls `on_signal(signal)` on the loop once the next signal (the first or the second)
  // has arrived; not after Cancel() or destruction.
  void AsyncWait(std::function<void(int signal)> on_signal);
  void Cancel();

  // A socket file the third signal removes before it exits (at most 4, each under 108
  // bytes, as a Unix socket address is): left behind, it would look like a crashed daemon's
  // to the next client (probe BV3).
  void UnlinkAtThirdSignal(const std::string& path);

  // SIGTERM and SIGINT when the process started ignoring them (a non-interactive shell's
  // `cmd &` starts it ignoring SIGINT): they stay ignored, so they do not stop it. SIGHUP is
  // left out: ignoring it is what `nohup` is asked for.
  std::vector<int> IgnoredStops() const;

  // The line a third signal writes: `prefix` followed by what it means.
  static std::string ThirdSignalLine(const std::string& prefix);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace las::tools
