#include "cli/stdout_check.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string_view>

#include "cli/command_words.h"

namespace las::cli {
namespace {
bool g_reported = false;
int g_noted_error = 0;
}  // namespace

bool StdoutDelivered() {
  errno = 0;
  const bool flushed = std::fflush(stdout) == 0;
  const int flush_error = errno != 0 ? errno : g_noted_error;
  if (flushed && !std::ferror(stdout)) return true;
  if (!g_reported) {
    g_reported = true;
    // A write refused before this flush left only the stream's error flag; errno is long
    // gone (it said "Success").
    // No words: `las --help` or `las --version` itself ("las: io: ...").
    const std::string_view words = CommandWords();
    std::fprintf(stderr, "las%s%s: io: writing to standard output failed%s%s\n",
                 words.empty() ? "" : " ", CommandWords(), flush_error != 0 ? ": " : "",
                 flush_error != 0 ? std::strerror(flush_error) : " (a write was refused)");
  }
  return false;
}

bool StdoutFailureReported() { return g_reported; }

void NoteStdoutError(int error) {
  if (g_noted_error == 0) g_noted_error = error;
}

}  // namespace las::cli
