#include "tools/daemon.h"

#include <malloc.h>
#include <signal.h>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <map>
#include <set>
#include <string>
#include <memory>
#include <utility>
#include <vector>

#include "log/log_directory.h"
#include "tools/daemon_connection.h"
#include "tools/daemon_socket.h"
#include "tools/turn_queue.h"
#include "tools/federation.h"
#include "tools/operator_listener.h"
#include "tools/answer_budget.h"
#include "tools/gateway.h"
#include "tools/partial_line_budget.h"
#include "tools/refusal_tally.h"
#include "tools/server_core.h"
#include "tools/stop_signal_fd.h"
#include "tools/unix_listener.h"

namespace las::tools {
namespace {

class Daemon {
 public:
  Daemon(boost::asio::io_context& io, ServerCore& core, const DaemonOptions& options,
         DaemonSocket socket)
      : io_(io), core_(core), options_(options), socket_path_(socket.path),
        operator_path_(socket.operator_path),
        signals_(io, options.third_signal_line) {}
  ~Daemon() {
    if (answers_shared_) core_.gateway().held_answers().ShareBudget(nullptr);
  }
  Daemon(const Daemon&) = delete;
  Daemon& operator=(const Daemon&) = delete;

  void Run() {
    // Probe FQ1: a daemon started by a script's `las daemon &` ignored SIGINT without a word,
    // and a script waiting for it to drain waited for ever.
    for (const int signal : signals_.IgnoredStops()) {
      Note(StopSignalFd::Name(signal) + " was ignored when the daemon started (as a "
           "non-interactive shell's `cmd &` starts commands ignoring SIGINT): it stays ignored "
           "and does not stop the daemon");
    }
    WaitForSignal();
    // A failed log refuses every call from then on: end, so that a supervisor sees the
    // exit (9) and a restart reopens the log (probe N6). The children are ended at once, as
    // `las serve` does: calls in flight can no longer be recorded, and one that hangs would
    // keep the failed daemon holding the log (probe Q1).
    core_.OnLogFailure([this] {
      // Said now, as the drain may wait on clients; why is said once, by the exit's error line.
      Note("the log failed: every call is refused from now on and the daemon ends (draining "
           "answers still due; a signal ends that)");
      if (!stopping_) Stop();
      EndChildren([] {});
    });
    core_.Start([this] { OnFederated(); });
    io_.run();
    if (listener_) listener_->Close();
  }

  Status status() const { return status_.ok() ? core_.status() : status_; }

 private:
  void Note(const std::string& text) {
    if (options_.on_note) options_.on_note(text);
  }

  void WaitForSignal() {
    signals_.AsyncWait([this](int signal) {
      if (!stopping_) {
        // The drain may take as long as the slowest call: say what is going on and how to
        // cut it short (probe AA: the daemon was silent at its first signal).
        Note(StopSignalFd::Name(signal) +
             ": draining (no new connections; the calls in flight finish and are logged); a "
             "second signal ends the children now");
        Stop();
        WaitForSignal();
      } else if (!abandoned_) {
        abandoned_ = true;
        Note("second signal: ending the children now and dropping unwritten answers");
        EndChildren([] {});
        for (auto& [id, connection] : connections_) connection->Abandon();
        if (operators_) operators_->Abandon();
      }
    });
  }

  void OnFederated() {
    if (stopping_ || !core_.status().ok()) {
      Finish();
      return;
    }
    // Answers held for the log count in the budget with the unwritten ones (probe CV1).
    core_.gateway().held_answers().ShareBudget(&answers_);
    answers_shared_ = true;
    auto listener = UnixListener::Bind(io_, socket_path_);
    if (!listener.ok()) {
      status_ = listener.status();
      stopping_ = true;
      Finish();
      return;
    }
    listener_ = std::move(*listener);
    signals_.UnlinkAtThirdSignal(socket_path_);
    listener_->Accept({[this](UniqueFd fd) { OnConnection(std::move(fd)); },
                       [this](uid_t uid) {
                         Note("refused a connection from uid " + std::to_string(uid));
                       },
                       [this](const std::string& note) { Note(note); }});
    // The operator's own door: MCP clients that leak connections up to the cap must not
    // lock the operator out of revoking a grant or disabling a source.
    if (auto operators = OperatorListener::Bind(io_, core_, operator_path_, options_.on_note); operators.ok()) {
      operators_ = std::move(*operators);
      signals_.UnlinkAtThirdSignal(operator_path_);
    } else {
      Note("no operator socket (" + operators.status().ToString() +
           "); the operator's `las` changes use the clients' socket");
    }
    if (options_.on_listening) options_.on_listening(socket_path_);
  }

  // Once the answers a burst held are gone, the allocator keeps their pages: handed back,
  // after the connection's handlers have let go of them (posted).
  void ReturnMemoryAfterAPeak() {
#ifdef __GLIBC__
    if (answers_.DrainedAfterAPeak()) boost::asio::post(io_, [] { ::malloc_trim(0); });
#endif
  }

  void OnConnection(UniqueFd fd) {
    if (stopping_) return;
    if (connections_.size() - detached_.size() >= options_.max_connections) {
      if (refused_connections_.Count()) {
        Note("too many connections (" + std::to_string(options_.max_connections) + "): " +
             std::to_string(refused_connections_.count()) + " refused so far");
      }
      return;  // `fd` closes here
    }
    const uint64_t id = next_id_++;
    connections_[id] = DaemonConnection::Start(
        io_, std::move(fd), core_, options_.max_line_bytes, {&partial_lines_, &answers_, &turns_},
        [this, id] {
          connections_.erase(id);
          detached_.erase(id);
          ReturnMemoryAfterAPeak();
          MaybeFinish();
        },
        /*operator_only=*/false,
        // A client that hung up with calls running frees its slot while they finish; at
        // most as many such sessions as connections, so what they hold stays bounded.
        [this, id] {
          if (detached_.size() >= options_.max_connections) return false;
          detached_.insert(id);
          return true;
        });
  }

  void Stop() {
    stopping_ = true;
    core_.federation().StopRestarting();  // the calls settle; no child starts meanwhile
    if (listener_) listener_->Close();
    if (operators_) {
      operators_->Stop([this] {
        operators_.reset();
        MaybeFinish();
      });
    }
    // Stopping a connection may close it (and erase it) later, never synchronously.
    for (auto& [id, connection] : connections_) connection->StopReading();
    MaybeFinish();
  }

  void MaybeFinish() {
    if (stopping_ && connections_.empty() && !operators_) Finish();
  }

  void Finish() {
    if (finished_) return;
    finished_ = true;
    EndChildren([this] {
      if (listener_) listener_->RemoveSocketFile();
      signals_.Cancel();
      io_.stop();
    });
  }

  // Ends the children once; every `done` runs after they are down.
  void EndChildren(std::function<void()> done) {
    after_children_.push_back(std::move(done));
    if (children_down_) {
      for (auto& next : std::exchange(after_children_, {})) next();
      return;
    }
    if (children_ending_) return;
    children_ending_ = true;
    core_.Shutdown([this] {
      children_down_ = true;
      for (auto& next : std::exchange(after_children_, {})) next();
    });
  }

  boost::asio::io_context& io_;
  ServerCore& core_;
  const DaemonOptions& options_;
  std::string socket_path_;
  std::string operator_path_;
  StopSignals signals_;  // a third signal exits in its handler
  std::unique_ptr<UnixListener> listener_;
  std::unique_ptr<OperatorListener> operators_;
  TurnQueue turns_{io_.get_executor()};
  PartialLineBudget partial_lines_{options_.max_partial_line_bytes,
                                   options_.partial_line_floor_bytes};  // outlives connections_
  AnswerBudget answers_{options_.max_unwritten_answer_bytes,
                        options_.unwritten_answer_floor_bytes};  // outlives connections_
  bool answers_shared_ = false;  // with the gateway's HeldAnswers
  std::map<uint64_t, std::shared_ptr<DaemonConnection>> connections_;
  std::set<uint64_t> detached_;  // of connections_: their client hung up, their calls run
  uint64_t next_id_ = 1;
  RefusalTally refused_connections_;
  Status status_;
  bool stopping_ = false;
  bool finished_ = false;
  bool children_ending_ = false;
  bool abandoned_ = false;
  bool children_down_ = false;
  std::vector<std::function<void()>> after_children_;
};

}  // namespace

Status RunDaemon(const ServerOptions& options, const DaemonOptions& daemon) {
  auto socket = DaemonSocketFor(options.log_dir, daemon.xdg_runtime_dir, /*create=*/true);
  if (!socket.ok()) return socket.status();
  auto live = ConnectToDaemon(socket->path);
  if (live.ok()) return Locked("a daemon already serves this log at " + socket->path);
  if (live.status().code() != Code::kNotFound) return live.status();
  boost::asio::io_context io;
  auto work = boost::asio::make_work_guard(io);
  auto core = ServerCore::Open(io, options);
  // A socket that accepts nothing and a log held: most likely its daemon is stopping (probe
  // JE2: the lock alone said nothing of it).
  if (!core.ok() && core.status().code() == Code::kLocked && FoundStaleSocket(live.status())) {
    return Locked(core.status().message() + "; " + live.status().message());
  }
  if (!core.ok()) return core.status();
  if (daemon.on_note) {
    if (auto note = log::LogDirectoryNote(options.log_dir)) daemon.on_note(*note);
  }
  Daemon server(io, **core, daemon, *socket);
  server.Run();
  if (!server.status().ok()) return server.status();
  return (*core)->FlushLogAtExit();
}

}  // namespace las::tools
