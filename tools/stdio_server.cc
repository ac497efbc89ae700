#include "tools/stdio_server.h"

#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <csignal>
#include <cstdio>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <nlohmann/json.hpp>

#include "base/json_text_dump.h"
#include "log/log_directory.h"
#include "tools/daemon_socket.h"
#include "tools/stop_signals.h"
#include "tools/federation.h"
#include "tools/held_input.h"
#include "tools/line_session.h"
#include "tools/live_projections.h"
#include "tools/operator_listener.h"
#include "tools/server_core.h"
#include "tools/source_guard.h"
#include "tools/source_ids.h"
#include "tools/stdio_lines.h"
#include "tools/stop_signal_fd.h"

namespace las::tools {
namespace {

constexpr size_t kMaxClientLine = 4 * 1024 * 1024;

// The operator-only socket of this log, bound; null (after a note) when that failed.
std::unique_ptr<OperatorListener> BindOperatorSocket(boost::asio::io_context& io,
                                                     ServerCore& server,
                                                     const ServerOptions& options,
                                                     const StdioServerOptions& stdio) {
  auto note = [&stdio](const Status& status) {
    if (stdio.on_note) {
      stdio.on_note("no operator socket (" + status.ToString() +
                    "); the operator's `las` changes cannot reach this server while it holds the log");
    }
  };
  auto socket = DaemonSocketFor(options.log_dir, stdio.xdg_runtime_dir, /*create=*/true);
  if (!socket.ok()) {
    note(socket.status());
    return nullptr;
  }
  auto listener = OperatorListener::Bind(io, server, socket->operator_path, stdio.on_note);
  if (!listener.ok()) {
    note(listener.status());
    return nullptr;
  }
  return std::move(*listener);
}

// Whether the client can send no more, though lines it sent may remain unread: a pipe's
// hang-up, a socket's shutdown, or a regular file, whose content is all there is (probe
// HJ6: a file never hangs up).
bool StdinHungUp() {
  struct stat st {};
  if (::fstat(STDIN_FILENO, &st) == 0 && S_ISREG(st.st_mode)) return true;
  struct pollfd in = {STDIN_FILENO, POLLIN | POLLRDHUP, 0};
  return ::poll(&in, 1, 0) == 1 && (in.revents & (POLLHUP | POLLRDHUP)) != 0;
}

}  // namespace

Status RunStdioServer(const ServerOptions& options, const StdioServerOptions& stdio) {
  boost::asio::io_context io;
  auto work = boost::asio::make_work_guard(io);
  auto core = ServerCore::Open(io, options);
  if (!core.ok()) return core.status();
  if (stdio.on_note) {
    if (auto note = log::LogDirectoryNote(options.log_dir)) stdio.on_note(*note);
  }
  ServerCore& server = **core;
  std::unique_ptr<LineOutput> output = MakeStdoutOutput(io);
  HeldInput held(*output);  // before the input, which reads through it
  std::unique_ptr<LineSession> session;
  std::unique_ptr<LineInput> input;
  // While the surfaces start: whether requests the client sent will not be run — held for
  // the session, or past what the start holds and never looked at (probe HJ1), taken as
  // requests.
  auto requests_left_unrun = [&] {
    return held.HoldsRequests() || held.StoppedShortOfTheEnd() || (input && input->LeftLinesUnhanded());
  };
  std::unique_ptr<OperatorListener> operators;
  bool signalled = false;
  bool ending = false;
  bool cut_short = false;  // the client went for good with calls in flight (below)
  bool owed_when_cut = false;  // and some of them were owed an answer (not cancelled)
  bool unrun_at_signal = false;  // a signal came while the surfaces started, requests held
  // After a first signal: how long the answers still due may wait for a client that does
  // not read them (StdioServerOptions::signal_drain_limit).
  boost::asio::steady_timer drain_limit(io);

  // Once: no more operator requests; once no call is in flight and the answers are out:
  // SessionClosed, end the children, flush, stop.
  auto end_session = [&] {
    if (ending) return;
    ending = true;
    server.federation().StopRestarting();  // the calls settle; no child starts meanwhile
    auto close = [&] {
      auto reason = [&] {
        return std::string(signalled                  ? "shutdown"
                           : output->Broken() || cut_short ? "disconnect"
                                                           : "eof");
      };
      session->EndInput(reason, [&] {
        drain_limit.cancel();  // SessionClosed is durable: nothing more to wait for
        server.Shutdown([&] { output->WhenDrained([&io] { io.stop(); }); });
      });
    };
    if (operators) {
      operators->Stop(close);
    } else {
      close();
    }
  };

  // SIGTERM, SIGINT, SIGHUP (a client closing after its input, a supervisor, a closed
  // terminal): end the children now — their calls in flight fail and are recorded so — then
  // end the session as at EOF, instead of dying with the session open and the children
  // orphaned. A third signal exits in its handler (tools/stop_signals.h).
  StopSignals signals(io, stdio.third_signal_line);
  auto note = [&stdio](const std::string& text) {
    if (stdio.on_note) stdio.on_note(text);
  };
  // Drops the answers still unwritten, so that a client that stopped reading cannot keep
  // the server (and the log's lock) forever; the session still closes, durably (probe AA1).
  bool abandoned = false;
  // An operator connection that stopped reading would hold it as well (probe BS2).
  auto abandon = [&](const std::string& why) {
    if (std::exchange(abandoned, true)) return;
    note(why);
    output->Abandon();
    if (operators) operators->Abandon();
  };
  bool stopping = false;
  auto stop_serving = [&] {
    if (std::exchange(stopping, true)) return;
    if (!session) {  // still federating
      server.Shutdown([&io] { io.stop(); });
      return;
    }
    server.Shutdown([] {});
    end_session();
  };
  // From a first signal or the log's failure on, answers still due get
  // signal_drain_limit to reach the client.
  bool drain_limited = false;
  std::function<void(const std::string&)> arm_drain_limit = [&](const std::string& since) {
    drain_limit.expires_after(stdio.signal_drain_limit);
    drain_limit.async_wait([&, since](const boost::system::error_code& waited) {
      if (waited) return;  // cancelled: the session closed in time
      // Operator answers held for the disk are due, not unread: their limit starts once
      // they are written (probe DM2).
      if (output->unwritten_bytes() == 0 && operators && operators->awaits_the_log()) {
        return arm_drain_limit(since);
      }
      const std::string unread = output->unwritten_bytes() > 0 ? "standard output is not read"
                                 : operators && operators->has_connections()
                                     ? "an operator connection does not read its answers"
                                     : "the end is still being recorded";
      abandon("answers still unwritten " + std::to_string(stdio.signal_drain_limit.count()) +
              " ms after " + since + " (" + unread + "): dropping them");
    });
  };
  auto limit_drain = [&](const std::string& since) {
    if (!session || std::exchange(drain_limited, true)) return;
    arm_drain_limit(since);
  };
  std::function<void()> await_signal = [&] {
    signals.AsyncWait([&](int signal) {
      if (!std::exchange(signalled, true)) {
        await_signal();
        note(StopSignalFd::Name(signal) + ": ending the children and the session");
        // Requests left unrun: the exit says so (probe HB2).
        if (!session) unrun_at_signal = requests_left_unrun();
        limit_drain("the signal");
        stop_serving();
      } else if (output->unwritten_bytes() > 0 || (operators && operators->has_connections())) {
        abandon("second signal: dropping the answers not yet written");
      } else {
        // Nothing to drop: saying so would be false, and an answer due later is written
        // (probe IY2). A third signal still ends Las at once.
        note("second signal: no answer is waiting to be written; the children are being "
             "ended (a third signal exits at once)");
      }
    });
  };
  await_signal();
  // The same end once the log has failed; the exit is then the log's error (server.status()).
  // A client that does not read its answers cannot hold the server (and the log's lock)
  // then either.
  server.OnLogFailure([&] {
    limit_drain("the log failed");
    stop_serving();
  });

  // Stdin at its end and stdout with no reader (the client has gone for good, probe AA2):
  // no answer can reach anyone, so calls in flight are not waited for — a child that never
  // answers would keep this server, and the log's lock, forever. They end as at a signal
  // (recorded uncertain, `shutdown`), the session closes `disconnect`, and the exit is 9 —
  // 0 when every one of them was cancelled, as no answer was owed (probe AI4).
  // With a reader still there, the wait at EOF is the client's to end (SIGTERM).
  bool stdin_closed = false;
  bool reader_gone = false;
  auto end_if_no_one_listens = [&] {
    if (!stdin_closed || !(reader_gone || output->Broken())) return;
    if (!session && !stopping) {
      // Gone while the surfaces start: no one is left to serve, so the start is not waited
      // for — it held the log, and a restarted client's `las serve` with it, for up to
      // --start-timeout (probe FN1). The children starting are ended as at a signal.
      note("standard input ended and standard output has no reader while the surfaces "
           "start: ending them");
      owed_when_cut = requests_left_unrun();  // exit 9 (probe FO3)
      stop_serving();
      return;
    }
    if (stopping || !session || session->in_flight() == 0) return;  // ending anyway
    cut_short = true;
    owed_when_cut = session->answers_owed() > 0;
    note("standard input ended and standard output has no reader: ending the children and "
         "the session");
    stop_serving();
  };
  // While the start holds as many lines as it may, reading pauses, so stdin's end is not
  // read (probe HH1: the held requests then ran once the surfaces had started, for no
  // one). With stdout's reader gone, stdin is looked at for a hang-up meanwhile — only
  // then: otherwise the reader reaches stdin's end itself, every line looked at (probe HL1).
  boost::asio::steady_timer hangup_watch(io);
  std::function<void()> watch_for_hangup = [&] {
    if (session || stopping || stdin_closed) return;
    if (held.StoppedShortOfTheEnd() && StdinHungUp()) {
      stdin_closed = true;
      return end_if_no_one_listens();
    }
    hangup_watch.expires_after(std::chrono::milliseconds(100));
    hangup_watch.async_wait([&](const boost::system::error_code& waited) {
      if (!waited) watch_for_hangup();
    });
  };
  output->WhenReaderGone([&] {
    reader_gone = true;
    end_if_no_one_listens();
    watch_for_hangup();
  });
  output->WhenBroken(end_if_no_one_listens);

  // Stdin is read while the children start: a ping is answered then, the rest waits for the
  // session (tools/held_input.h). A client that does not read its answers is not read.
  held.WhenClosedWhileHeld([&] {
    stdin_closed = true;
    end_if_no_one_listens();
  });
  input = StartStdinInput(io, kMaxClientLine, held.Handlers());
  server.Start([&] {
    if (stopping) return;
    if (stdio.operator_socket && server.status().ok()) {
      operators = BindOperatorSocket(io, server, options, stdio);
      if (operators) signals.UnlinkAtThirdSignal(operators->path());
    }
    session = std::make_unique<LineSession>(server.gateway(), server.NewEndpointOptions("stdio"),
                                            *output);
    LineInputHandlers handlers;
    handlers.on_line = [&session](std::string_view line) { session->OnLine(line); };
    handlers.on_too_long = [&session](std::string_view prefix) { session->OnTooLong(prefix); };
    handlers.on_too_long_end = [&session](std::string_view tail) { session->OnTooLongEnd(tail); };
    // At stdin EOF (or once answers cannot be written).
    handlers.on_eof = end_session;
    handlers.on_closed = [&] {
      stdin_closed = true;
      end_if_no_one_listens();
    };
    held.Release(std::move(handlers), session.get());
  });
  io.run();
  signals.Cancel();
  input.reset();
  operators.reset();
  if (server.status().ok() && (output->Broken() || owed_when_cut)) {
    // The calls ran and are in the log; the client did not get every answer.
    if (owed_when_cut && !session) {
      return IoError("the client is gone (standard input ended, standard output has no "
                     "reader) while the surfaces started: its requests were not run");
    }
    if (owed_when_cut) {
      return IoError("the client is gone (standard input ended, standard output has no "
                     "reader): the calls in flight were ended, and recorded, unanswered");
    }
    if (abandoned) {
      return IoError("answers not yet written to standard output at the end were dropped: "
                     "the client did not read them");
    }
    return IoError("writing to standard output failed: answers were not delivered");
  }
  if (!server.status().ok()) return server.status();
  if (unrun_at_signal) {
    LAS_RETURN_IF_ERROR(server.FlushLogAtExit());
    return IoError("stopped by a signal while the surfaces started: the client's requests held "
                   "until then were not run");
  }
  return server.FlushLogAtExit();
}

Status RunList(const ServerOptions& options, bool json,
               const std::function<void(const std::string& note)>& on_note) {
  boost::asio::io_context io;
  auto work = boost::asio::make_work_guard(io);
  auto core = ServerCore::Open(io, options);
  if (!core.ok()) return core.status();
  ServerCore& server = **core;
  Federation& federation = server.federation();
  server.Start([&] {
    const LiveProjections& live = server.live();
    if (json) {
      nlohmann::ordered_json surfaces = nlohmann::ordered_json::array();
      for (const auto& state : federation.surfaces()) {
        surfaces.push_back({{"name", state.name},
                            {"admitted", state.admitted},
                            {"enabled", SourceEnabled(live, state.name)},
                            {"reason", state.reason},
                            {"detail", state.detail},
                            {"tools", state.tools}});
      }
      nlohmann::ordered_json tools = nlohmann::ordered_json::array();
      for (const auto& tool : federation.catalog().tools()) {
        tools.push_back({{"name", tool.qualified_name},
                         {"surface", tool.surface},
                         {"tool", tool.tool},
                         {"enabled", ToolSourceEnabled(live, tool)},
                         {"description", tool.description ? *tool.description : ""},
                         {"definition_sha256", tool.definition_sha256},
                         {"inputSchema", nlohmann::ordered_json::parse(tool.input_schema_json,
                                                                       nullptr, false)}});
      }
      // A refusal's detail may quote a path from the environment that is not UTF-8.
      std::printf("%s\n",
                  DumpJson(nlohmann::ordered_json{{"surfaces", surfaces}, {"tools", tools}}, 2)
                      .c_str());
    } else {
      std::set<std::string> left_out;
      for (const auto& tool : federation.catalog().tools()) {
        if (ToolSourceEnabled(live, tool)) {
          std::printf("%s\n", tool.qualified_name.c_str());
        } else {
          left_out.insert(SourceIdOf(tool));
        }
      }
      for (const std::string& source : left_out) {
        on_note("source " + source + " is disabled: its tools are not listed (las sources " +
                "enable " + source + ")");
      }
    }
    std::fflush(stdout);
    server.Shutdown([&io] { io.stop(); });
  });
  io.run();
  return server.status();
}

}  // namespace las::tools
