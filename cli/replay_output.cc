#include "cli/replay_output.h"

#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <string>

#include "cli/stdout_check.h"

namespace las::cli::replay_output {
namespace {

constexpr size_t kWriteAt = size_t{1} << 16;

volatile std::sig_atomic_t g_progress_shown = 0;
volatile std::sig_atomic_t g_events_on_terminal = 0;
volatile std::sig_atomic_t g_writing = 0;
volatile std::sig_atomic_t g_held_signal = 0;
std::string g_waiting;  // whole lines not yet handed to stdout

// Async-signal-safe: leaves the terminal clean and dies by the signal, as it would have.
void StopNow(int signal_number) {
  if (g_progress_shown != 0) {
    (void)!::write(STDERR_FILENO, "\r\033[K", 4);
  } else if (g_events_on_terminal != 0 && g_writing != 0) {
    (void)!::write(STDOUT_FILENO, "\n", 1);
  }
  std::signal(signal_number, SIG_DFL);
  std::raise(signal_number);
}

extern "C" void OnReplayStopSignal(int signal_number) {
  if (g_writing != 0 && g_held_signal == 0) {
    g_held_signal = signal_number;
    return;
  }
  StopNow(signal_number);
}

}  // namespace

void CatchStopSignals(bool events_on_terminal) {
  g_events_on_terminal = events_on_terminal ? 1 : 0;
  for (int signal_number : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction before {};
    if (::sigaction(signal_number, nullptr, &before) != 0 || before.sa_handler == SIG_IGN) continue;
    struct sigaction action {};
    action.sa_handler = OnReplayStopSignal;
    // A write the signal interrupts after some bytes returns short and stdio writes the
    // rest; one it interrupts before any is restarted: the lines under way stay whole.
    action.sa_flags = SA_RESTART;
    sigemptyset(&action.sa_mask);
    ::sigaction(signal_number, &action, nullptr);
  }
}

bool Print(std::string_view line) {
  g_waiting.append(line);
  g_waiting.push_back('\n');
  return g_waiting.size() < kWriteAt ? std::ferror(stdout) == 0 : Write();
}

bool Write() {
  if (!g_waiting.empty()) {
    g_writing = 1;
    errno = 0;
    std::fwrite(g_waiting.data(), 1, g_waiting.size(), stdout);
    std::fflush(stdout);
    g_writing = 0;
    if (std::ferror(stdout) != 0) NoteStdoutError(errno);
    g_waiting.clear();
  }
  if (g_held_signal != 0) StopNow(g_held_signal);
  return std::ferror(stdout) == 0;
}

void SetProgressShown(bool shown) { g_progress_shown = shown ? 1 : 0; }

bool ProgressShown() { return g_progress_shown != 0; }

}  // namespace las::cli::replay_output
