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
#include <system_error>
#include <vector>

#include "base/printable_text.h"
#include "cli/command_words.h"
#include "cli/commands.h"
#include "cli/stdout_check.h"
#include "cli/exit_codes.h"
#include "cli/fail.h"
#include "cli/flag_values.h"
#include "transport/child_process.h"

namespace {

// Whether `app` or a command under it (at any depth) takes the flag `flag` ("--log", "-v").
bool TakesFlag(const CLI::App* app, const std::string& flag) {
  for (const CLI::Option* option : app->get_options()) {
    if (option->check_name(flag)) return true;
  }
  for (const CLI::App* sub : app->get_subcommands([](const CLI::App*) { return true; })) {
    if (TakesFlag(sub, flag)) return true;
  }
  return false;
}

// The names of `app`'s commands that take `flag` (at any depth); every command for "".
std::string CommandsTaking(const CLI::App* app, const std::string& flag) {
  std::string commands;
  for (const CLI::App* sub : app->get_subcommands([](const CLI::App*) { return true; })) {
    if (flag.empty() || TakesFlag(sub, flag)) {
      commands += (commands.empty() ? "" : ", ") + sub->get_name();
    }
  }
  return commands;
}

// A usage error on one line, like every other error (docs/CLI.md): "las VERB:
// invalid_argument: what (see `las VERB --help`)" — the code of exit 2, as the verbs' own
// argument checks print it. CLI11's own is two lines without the verb, quotes the flags as
// typed, and words some cases for its own developers.
// `separated`: the command line holds a `--` (what follows it is a child's command line);
// `before_separator`: the words before it (all of them without one).
std::string UsageLine(const CLI::App* app, const CLI::Error& error, bool separated,
                      const std::vector<std::string>& before_separator) {
  const std::string words = las::cli::ParsedCommandWords(*app);
  const std::string verb = words.empty() ? "las" : "las " + words;
  const CLI::App* innermost = app;
  for (std::vector<CLI::App*> parsed = app->get_subcommands(); !parsed.empty();
       parsed = parsed.front()->get_subcommands()) {
    innermost = parsed.front();
  }
  std::string what = error.what();
  if (error.get_name() == "RequiredError" && what.find("subcommand") != std::string::npos &&
      !innermost->remaining().empty()) {
    const std::string word = innermost->remaining().front();
    const std::string flag = word.substr(0, word.find('='));
    if (word == "--") {
      what = "name a command before '--' (one of: " + CommandsTaking(innermost, "") + ")";
    } else if (word.starts_with("-") && CommandsTaking(innermost, flag).empty()) {
      // `las --verison`: no command takes it, so naming one would not help (probe DX4).
      what = "unknown option '" + word + "'";
    } else if (word.starts_with("-")) {
      // `las inspect --log X`: the flag belongs to a command not yet named — one of these.
      what = "name a command before '" + word + "' (one of: " + CommandsTaking(innermost, flag) +
             ")";
    } else {
      // `las bogus`: CLI11 says a subcommand is required; the word it did not know is the news.
      what = "unknown command '" + word + "'";
    }
  }
  // `draft --env HOME LANG -- CMD ARGS`: CLI11 takes LANG as the child's command, then
  // names the words after `--` (reversed) as not expected (its error named after the
  // command). The stray word is the news. Only then: with the command rightly after `--`,
  // the extra is an unknown flag (`--bogus -- CMD`), which CLI11's own line names (probe BI5).
  if (const CLI::Option* command = innermost->get_option_no_throw("command");
      dynamic_cast<const CLI::ExtrasError*>(&error) != nullptr && command != nullptr &&
      command->count() > 0 &&
      (!separated || std::find(before_separator.begin(), before_separator.end(),
                               command->results().front()) != before_separator.end())) {
    std::string taken;
    for (const std::string& word : command->results()) taken += (taken.empty() ? "" : " ") + word;
    what = separated ? "'" + taken + "' came before '--': the child's command goes after '--', "
                       "and a flag takes one value (--env A --env B)"
                     : "the child's command goes after '--', or las reads its flags: " + what;
  }
  // CLI11 lists the words not expected last first (`sources enable echo --reason x`: "x
  // --reason", probe EW5), and with a `--` among them (`draft --bogus -- CMD`: "-- --bogus"):
  // in the order given, without the separator.
  if (const CLI::ExtrasError* extras = dynamic_cast<const CLI::ExtrasError*>(&error);
      extras != nullptr && what.starts_with("The following argument")) {
    std::vector<std::string> unexpected;
    for (const std::string& word : innermost->remaining()) {
      if (word != "--") unexpected.push_back(word);
    }
    if (!unexpected.empty()) {
      what = unexpected.size() == 1 ? "The following argument was not expected:"
                                    : "The following arguments were not expected:";
      for (const std::string& word : unexpected) what += " " + word;
    }
  }
  // `--from 1 --from 2`: CLI11 says "--from: At Most 1 required but received 2".
  if (const size_t at_most = what.find(": At Most 1 required but received ");
      error.get_name() == "ArgumentMismatch" && at_most != std::string::npos) {
    what = what.substr(0, at_most) + " given more than once; give it once";
  }
  return verb + ": invalid_argument: " + las::EscapeForTerminal(what) + " (see `" + verb +
         " --help`)\n";
}

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

}  // namespace

int main(int argc, char** argv) {
  // glibc raises its mmap threshold each time a large block is freed, after which the next
  // large blocks come from the heap, which cannot reuse the smaller freed ones: a second
  // 1 MB state value raised the peak by ~55 MiB (docs/PERFORMANCE.md, "Large values"). A
  // fixed threshold keeps large blocks mapped and returned whole.
  (void)::mallopt(M_MMAP_THRESHOLD, 128 * 1024);
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
    return UsageLine(parsed, error, separated, before_separator);
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
