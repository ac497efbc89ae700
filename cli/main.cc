// las: the command-line face of the Las gateway. Flag parsing and printing only; every
// verb calls the libraries (see docs/CLI.md for verbs and exit codes).
#include <CLI/CLI.hpp>
#include <boost/system/system_error.hpp>
#include <fcntl.h>
#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <new>
#include <system_error>
#include <vector>

#include "base/out_of_memory.h"
#include "cli/command_words.h"
#include "cli/commands.h"
#include "cli/stdout_check.h"
#include "cli/exit_codes.h"
#include "cli/fail.h"
#include "cli/flag_values.h"
#include "cli/usage_line.h"
#include "transport/child_process.h"

namespace {

// A standard descriptor closed at start (`las list >&-`) would be the next file opened —
// the log's info log — and the answers would go there. Each gets a stand-in: stdin reads
// nothing, and stdout and stderr refuse every write (a pipe with no reader: EPIPE), so
// output that cannot reach the caller fails as on a full disk (exit 9): the digests that
// are `las replay`'s report on stderr, say (probe AU6). Notes are lost either way.
void OccupyClosedStandardDescriptors() {
  for (int fd = 0; fd <= 2; ++fd) {
    if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
    if (fd != STDIN_FILENO) {
      int ends[2];
      if (::pipe(ends) == 0) {
        // The write end at fd (dup2 closes the read end if it took that number), no reader.
        if (ends[1] != fd) {
          ::dup2(ends[1], fd);
          ::close(ends[1]);
        }
        if (ends[0] != fd) ::close(ends[0]);
        continue;
      }
    }
    const int null = ::open("/dev/null", fd == STDIN_FILENO ? O_RDONLY : O_WRONLY);  // no pipe
    if (null >= 0 && null != fd) {
      ::dup2(null, fd);
      ::close(null);
    }
  }
}

// What the system would not give — descriptors (`ulimit -n`), threads, memory for a
// thread — where a library throws rather than returns (Boost.Asio making its loop, a
// thread starting): one error line and exit 9 instead of an abort (probe AE3).
int FailForWantOf(const std::exception& e) {
  return las::cli::Fail(las::IoError(e.what()));
}
// A thread or process that could not start says "Resource temporarily unavailable" alone
// (probe FH2): the limit that refused it is named.
int FailForWantOf(const std::system_error& e) {
  if (e.code() == std::errc::resource_unavailable_try_again) {
    return las::cli::Fail(las::IoError(std::string(e.what()) +
                                       " (a thread or process could not start: a limit on "
                                       "processes and threads — ulimit -u, a cgroup's pids.max — "
                                       "or on memory, ulimit -v?)"));
  }
  return FailForWantOf(static_cast<const std::exception&>(e));
}

}  // namespace

int main(int argc, char** argv) {
  // glibc raises its mmap threshold each time a large block is freed, after which the next
  // large blocks come from the heap, which cannot reuse the smaller freed ones: a second
  // 1 MB state value raised the peak by ~55 MiB (docs/PERFORMANCE.md, "Large values"). A
  // fixed threshold keeps large blocks mapped and returned whole.
  (void)::mallopt(M_MMAP_THRESHOLD, 128 * 1024);
  // Checks watched for running out of memory make it no verdict (base/out_of_memory.h).
  las::CountAllocationFailures();
  OccupyClosedStandardDescriptors();
  // Before anything reads a credential: the environment holds every LAS_CREDENTIAL_*, and
  // a child surface of the same user must not read another's from /proc (probe AE7).
  if (las::Status kept = las::transport::KeepProcessPrivate(); !kept.ok()) {
    std::fprintf(stderr, "las: %s\n", kept.ToString().c_str());
    return las::cli::ExitCodeFor(kept);
  }
  las::transport::IgnoreWriteSignals();  // a write to a gone reader is EPIPE: exit 9
  CLI::App app{"las — a signed, audited MCP federation gateway"};
  char** const separator = std::find(argv + 1, argv + argc, std::string_view("--"));
  const bool separated = separator != argv + argc;
  const std::vector<std::string> before_separator(argv + 1, separator);
  app.failure_message([separated, before_separator](const CLI::App* parsed, const CLI::Error& error) {
    return las::cli::UsageLine(parsed, error, separated, before_separator);
  });
  app.require_subcommand(1);
  app.set_version_flag("--version", "las 0.1.0");
  // Every line on stderr names the command by the words parsed, sub-commands included
  // (cli/command_words.h); set before any verb's callback runs.
  app.parse_complete_callback([&app] { las::cli::SetCommandWords(las::cli::ParsedCommandWords(app)); });
  int exit_code = las::cli::kExitOk;
  las::cli::RegisterReplay(app, exit_code);
  las::cli::RegisterServe(app, exit_code);
  las::cli::RegisterList(app, exit_code);
  las::cli::RegisterDaemon(app, exit_code);
  las::cli::RegisterInspect(app, exit_code);
  las::cli::RegisterRelease(app, exit_code);
  las::cli::RegisterCheck(app, exit_code);
  las::cli::RegisterOnboarding(app, exit_code);
  las::cli::RegisterSources(app, exit_code);
  las::cli::RegisterEvents(app, exit_code);
  las::cli::RegisterGrants(app, exit_code);
  las::cli::RefuseFlagsAsValues(app, before_separator);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    if (code != 0) return las::cli::kExitUsage;
    // --help, --version: what was asked for must reach stdout (`las --help >/dev/full`).
    const std::string words = las::cli::ParsedCommandWords(app);
    las::cli::SetCommandWords(words);
    return las::cli::StdoutDelivered() ? 0 : las::cli::ExitCodeFor(las::IoError(""));
  } catch (const std::system_error& e) {
    return FailForWantOf(e);
  } catch (const boost::system::system_error& e) {
    return FailForWantOf(e);
  } catch (const std::bad_alloc&) {
    // A memory limit (ulimit -v, an MCP host's RLIMIT_AS) met on this thread (probe FH1).
    return las::cli::Fail(las::IoError("out of memory (a memory limit such as ulimit -v?)"));
  }
  // A child's leftovers that escaped its process group (setsid) and outlived it were
  // adopted here (child subreaper); none outlives this command.
  (void)las::transport::ReapAdoptedOrphans(/*kill_living=*/true);
  // Output that did not reach stdout (a full disk, a closed file) is a failure: a grant id,
  // a key id or an audit transcript was lost.
  if (!las::cli::StdoutDelivered() && exit_code == las::cli::kExitOk) {
    exit_code = las::cli::ExitCodeFor(las::IoError(""));
  }
  return exit_code;
}
