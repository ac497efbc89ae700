#include "tools/daemon_connection.h"

#include <poll.h>
#include <sys/socket.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "tools/line_session.h"
#include "tools/line_write_queue.h"
#include "tools/paced_lines.h"
#include "tools/turn_queue.h"
#include "tools/answer_budget.h"
#include "tools/partial_line_budget.h"
#include "tools/operator_channel.h"
#include "tools/server_core.h"
#include "tools/stdio_lines.h"
#include "transport/json_text.h"
#include "transport/line_reader.h"

namespace las::tools {
namespace {

constexpr std::string_view kBridgeHello = "las/bridge";
// An operator connection says what it wants at once; one silent this long (before its first
// line or after its last) is closed, so idle connections cannot fill the operator socket.
constexpr std::chrono::seconds kOperatorIdleDeadline{5};
// A client (the `las serve` bridge, an MCP client) sends its first line at once; one silent
// this long after connecting is closed, so connections left open by a stuck or crashed
// program cannot fill the socket's connection limit. Once it has spoken, a session may
// idle for as long as it likes.
constexpr std::chrono::seconds kClientFirstLineDeadline{30};

// What a bridge hello line asks for: `agent` is the agent id it names, or nullopt for the
// daemon's default agent; a hello whose agentId is there but is not a non-empty string
// (or that repeats a key, or whose params is not an object) names "", which initialize
// refuses, rather than falling back to the default agent. nullopt if `line` is no hello.
struct BridgeHelloLine {
  std::optional<std::string> agent;
  bool waive_implicit_root = false;  // "defaultAgentGrant": "none"
};

// The terms of a hello too broken to read: its agent "" (initialize refuses it) and no
// implicit root.
BridgeHelloLine MalformedHello() {
  BridgeHelloLine hello{std::string()};
  hello.waive_implicit_root = true;
  return hello;
}

// Whether `text` (a whole line or an over-long line's start) shows itself a bridge hello by
// its shape alone: a top-level "method" of "las/bridge" and no "id". For a hello that is no
// valid JSON — a lone surrogate escape or a byte that is not UTF-8 in its agentId, nesting
// past the bound, over the line bound — which must not fall back to the default agent
// (probe EB1: it got the default agent's implicit root though it asked for none).
// The method is compared decoded ("las\/bridge" is the same), and it is the first
// "method" member: a line that repeats it is then malformed (probe ED4: the last one, as a
// JSON tree keeps it, made such a line no hello at all).
bool ShowsBridgeHello(std::string_view text) {
  const auto method = transport::SalvageTopLevelMember(text, "method");
  const auto decoded = method ? transport::DecodeJsonString(*method) : std::nullopt;
  return decoded && *decoded == kBridgeHello && !transport::ShowsTopLevelMember(text, "id");
}

std::optional<BridgeHelloLine> BridgeHello(std::string_view line) {
  if (!ShowsBridgeHello(line)) return std::nullopt;
  // Within the transport's bounds first: no tree is built from a line nested too deep.
  if (transport::ValidateJson(line) != transport::JsonTextError::kNone) return MalformedHello();
  const BridgeHelloLine malformed = MalformedHello();
  std::vector<transport::JsonMember> members;
  if (transport::ObjectMembers(line, &members, transport::kDefaultMaxDepth, nullptr,
                               transport::DuplicateKeys::kRejected) != transport::JsonTextError::kNone) {
    return malformed;
  }
  const auto parsed = nlohmann::json::parse(line, nullptr, false);
  auto params = parsed.find("params");
  if (params == parsed.end()) return BridgeHelloLine{};
  if (!params->is_object()) return malformed;
  BridgeHelloLine hello;
  // Only "none" or "root" (no change): anything else could be read as more than it says.
  if (auto grant = params->find("defaultAgentGrant"); grant != params->end()) {
    if (!grant->is_string() || (*grant != "none" && *grant != "root")) return malformed;
    hello.waive_implicit_root = *grant == "none";
  }
  auto id = params->find("agentId");
  if (id == params->end()) return hello;
  if (!id->is_string() || id->get_ref<const std::string&>().empty()) return malformed;
  hello.agent = id->get<std::string>();
  return hello;
}

class Connection final : public DaemonConnection,
                         public LineOutput,
                         public std::enable_shared_from_this<Connection> {
 public:
  Connection(boost::asio::io_context& io, UniqueFd fd, ServerCore& core, size_t max_line,
             ConnectionBudgets budgets, std::function<void()> on_closed, bool operator_only,
             std::function<bool()> on_detach)
      : io_(io), stream_(io, fd.Release()), core_(core), budget_(budgets.partial_lines),
        answer_budget_(budgets.answers), turns_(budgets.turns),
        lines_(max_line,
               [this](const transport::LineEvent& event) {
                 if (event.kind == transport::LineEvent::Kind::kTooLong) {
                   OnTooLong(event.bytes);
                 } else if (event.kind == transport::LineEvent::Kind::kTooLongEnd) {
                   OnTooLongEnd(event.bytes);
                 } else {
                   OnLine(event.bytes);
                 }
               }),
        on_closed_(std::move(on_closed)),
        on_detach_(std::move(on_detach)),
        answers_(
            [this](const std::string& data, std::function<void(bool)> done) {
              boost::asio::async_write(
                  stream_, boost::asio::buffer(data),
                  [self = shared_from_this(), done = std::move(done)](
                      const boost::system::error_code& error, size_t) { done(!error); });
            },
            [&io](std::function<void()> task) { boost::asio::post(io, std::move(task)); }),
        operator_only_(operator_only),
        idle_deadline_(io) {
    answers_.ShareBudget(budgets.answers);
  }

  void Begin() {
    // No answer can reach a peer whose writes fail: read (and run) none of its requests.
    answers_.WhenBroken([weak = weak_from_this()] {
      if (auto self = weak.lock()) self->StopReading();
    });
    ArmIdleDeadline(operator_only_ ? kOperatorIdleDeadline : kClientFirstLineDeadline);
    Read();
  }

  void StopReading() override {
    stopping_ = true;
    if (input_ended_ || !stream_.is_open()) return;
    ::shutdown(stream_.native_handle(), SHUT_RD);
    // A read in flight now sees the end; a read held back while the answers are
    // congested would never be made, so the input ends here.
    if (!read_in_flight_) EndInput();
  }

  bool AwaitsTheLog() const override {
    return operator_ && operator_->HeldAnswerBytes() > 0;
  }

  void Abandon() override {
    abandoned_ = true;
    StopReading();
    if (!stream_.is_open()) return;
    ::shutdown(stream_.native_handle(), SHUT_WR);
    boost::system::error_code ignored;
    stream_.cancel(ignored);  // the write in flight fails: the queue drops the rest
  }

  void Write(std::string line) override {
    if (stream_.is_open()) answers_.Write(std::move(line));
  }

  void WhenDrained(std::function<void()> done) override {
    answers_.WhenDrained(std::move(done));
  }

  // The answers unwritten, and those decided but held for the log, which count with them
  // against the pause mark and the shared budget (probes CS1, CV1).
  bool Congested() const override {
    if (answers_.Congested()) return true;
    const size_t held = session_     ? session_->HeldAnswerBytes()
                        : operator_ ? operator_->HeldAnswerBytes()
                                    : 0;
    return held > kPauseReadingAboveBytes ||
           (held > 0 && answer_budget_ != nullptr &&
            answer_budget_->Holds(answers_.queued_bytes() + held));
  }
  // A connection's lines yield to the others' (tools/paced_lines.h, kLinesPerTurn).
  void Later(std::function<void()> next) override {
    if (turns_ != nullptr) return turns_->Defer(std::move(next));
    boost::asio::post(stream_.get_executor(), std::move(next));
  }
  void ReadWhenAllowed(std::function<void()> read) override {
    // Then Congested() is asked again.
    if (!answers_.Congested() && session_ && session_->HeldAnswerBytes() > 0) {
      session_->ReadWhenAnswersReleased(std::move(read));
    } else if (!answers_.Congested() && operator_ && operator_->HeldAnswerBytes() > 0) {
      operator_->ReadWhenReleased(std::move(read));
    } else {
      answers_.ReadWhenAllowed(std::move(read));
    }
  }

 private:
  void Read() {
    if (input_ended_) return;
    read_in_flight_ = true;
    stream_.async_read_some(
        boost::asio::buffer(buffer_),
        [self = shared_from_this()](const boost::system::error_code& error, size_t n) {
          self->read_in_flight_ = false;
          if (self->input_ended_) return;
          if (error || n == 0) {
            self->lines_.Finish();
            self->Hold(self->lines_.held_bytes());
            self->EndInput();
            return;
          }
          if (self->budget_ != nullptr) {
            self->lines_.set_partial_limit(self->budget_->LimitFor(self->held_));
          }
          // A client that does not read its answers is not read (tools/paced_lines.h).
          self->lines_.Feed(std::string_view(self->buffer_, n), self.get(), [self] {
            self->Hold(self->lines_.held_bytes());  // what waited has been handed over
            self->Read();
          });
          self->Hold(self->lines_.held_bytes());
        });
  }

  void StartSession(const BridgeHelloLine& hello) {
    EndpointOptions options = core_.NewEndpointOptions("daemon");
    if (hello.agent) options.default_agent_id = *hello.agent;
    options.waive_implicit_root = hello.waive_implicit_root;
    session_ = std::make_unique<LineSession>(core_.gateway(), std::move(options), *this);
  }

  LineSession& Session() {
    if (!session_) {
      session_ = std::make_unique<LineSession>(core_.gateway(),
                                               core_.NewEndpointOptions("daemon"), *this);
    }
    return *session_;
  }

  // Operator-only mode, and the first line is not the operator hello: refuse, read no more.
  void RefuseNonOperator() {
    if (refused_) return;
    refused_ = true;
    Write(R"({"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"this socket accepts operator connections only"}})");
    StopReading();
  }

  // Stops reading after `deadline` without a line. Operator connections (every one on the
  // operator socket, and one on the clients' socket from its hello on) get
  // kOperatorIdleDeadline before every line (the first, or the next: their requests are
  // answered at once), so idle ones, even after the hello, cannot fill the socket's
  // connection limit and keep the operator out; client connections get
  // kClientFirstLineDeadline before their first line only.
  void ArmIdleDeadline(std::chrono::seconds deadline = kOperatorIdleDeadline) {
    idle_deadline_.expires_after(deadline);  // cancels the previous wait
    idle_deadline_.async_wait([weak = weak_from_this(), deadline](
                                  const boost::system::error_code& error) {
      auto self = weak.lock();
      if (error || !self) return;
      // Waiting for answers held for the log is not idleness (probe DM1).
      if (self->AwaitsTheLog()) return self->ArmIdleDeadline(deadline);
      self->StopReading();
    });
  }

  // An operator peer whose input ended gets kOperatorIdleDeadline to read its answers;
  // then they are dropped and the connection closes: one that sent requests and reads
  // nothing held its slot of the socket's limit for as long as it liked (probe CD2). Its
  // requests ran: what they changed is in the log.
  void ArmDrainDeadline() {
    idle_deadline_.expires_after(kOperatorIdleDeadline);
    idle_deadline_.async_wait([weak = weak_from_this()](const boost::system::error_code& error) {
      auto self = weak.lock();
      if (error || !self) return;
      self->answers_.Abandon();  // runs the drained callback: Close
      boost::system::error_code ignored;
      self->stream_.cancel(ignored);
    });
  }

  void SawLine() {
    if ((operator_only_ || operator_) && !stopping_) {
      ArmIdleDeadline();
    } else if (!operator_only_ && !spoken_) {
      spoken_ = true;
      idle_deadline_.cancel();
    }
  }

  void OnTooLong(std::string_view prefix) {
    SawLine();
    // As OnLine reads a line: an over-long hello behind a byte order mark is still the hello
    // (probe ED2: it fell back to the default agent).
    prefix = transport::WithoutByteOrderMark(prefix);
    if (refused_ || stopping_ || answers_.broken()) return;
    if (operator_only_ && !operator_) {
      RefuseNonOperator();
      return;
    }
    if (operator_) {
      operator_->OnTooLong();
    } else if (!session_ && ShowsBridgeHello(prefix)) {
      StartSession(MalformedHello());  // a hello is a notification: nothing to answer
      hello_cut_ = true;
    } else {
      Session().OnTooLong(prefix);
    }
  }

  // The end of the over-long line OnTooLong saw: a session's, where its id may be.
  void OnTooLongEnd(std::string_view tail) {
    // A line taken for a hello by its start is not also a request by an id at its end
    // (probe EF2).
    if (std::exchange(hello_cut_, false)) return;
    if (refused_ || stopping_ || answers_.broken() || operator_ || !session_) return;
    session_->OnTooLongEnd(tail);
  }

  void OnLine(std::string_view line) {
    SawLine();
    // Read as every session reads it: a hello behind a byte order mark is still the hello
    // (else its agent would be lost and the session fall back to the default agent).
    line = transport::WithoutByteOrderMark(line);
    if (refused_ || stopping_ || answers_.broken()) return;
    if (operator_only_ && !operator_ && !IsOperatorHello(line)) {
      RefuseNonOperator();
      return;
    }
    if (operator_) {
      operator_->OnLine(line);
      return;
    }
    if (!session_) {
      if (IsOperatorHello(line)) {  // an operator connection, not an MCP session
        operator_ = std::make_unique<OperatorSession>(core_, *this);
        // Held to the operator socket's deadlines from now on (probe CH5).
        ArmIdleDeadline();
        operator_->OnLine(line);
        return;
      }
      if (auto hello = BridgeHello(line)) {
        StartSession(*hello);
        return;
      }
    }
    Session().OnLine(line);
  }

  void EndInput() {
    if (input_ended_) return;
    input_ended_ = true;
    if (operator_ || operator_only_) {
      // Close once every request is answered and written. The peer's time to read its
      // answers starts when the last is due, not while a sync holds them (probe DL2: a
      // slow disk made the CLI exit 9 though its change was made).
      idle_deadline_.cancel();
      auto close_when_written = [self = shared_from_this()] {
        self->ArmDrainDeadline();
        self->WhenDrained([self] { self->Close(); });
      };
      if (operator_) {
        operator_->WhenSettled(std::move(close_when_written));
      } else {
        close_when_written();
      }
      return;
    }
    // A client gone entirely while its calls run: they finish and are logged without it,
    // so its socket (a descriptor, a slot of the daemon's limit) is not held for them. It
    // left: its session ends `disconnect` even if a second signal ends those calls (JN1).
    client_left_ = !abandoned_ && PeerHungUp();
    if (client_left_ && on_detach_ && on_detach_()) {
      Hold(0);
      boost::system::error_code ignored;
      stream_.close(ignored);
    }
    Session().EndInput([this] { return Reason(); }, [this] { Close(); });
  }

  // Whether the peer has closed its end entirely (not merely ended its input).
  bool PeerHungUp() {
    if (!stream_.is_open()) return true;
    pollfd pfd{stream_.native_handle(), POLLOUT, 0};
    return ::poll(&pfd, 1, 0) > 0 && (pfd.revents & (POLLHUP | POLLERR)) != 0;
  }

  std::string Reason() {
    if (client_left_) return "disconnect";
    // Abandon's own cancelled write and shutdown look like a client gone (probe IY1).
    if (abandoned_) return "shutdown";
    if (answers_.broken() || PeerHungUp()) return "disconnect";
    if (stopping_) return "shutdown";
    return "eof";
  }

  // This connection's partial line now holds `bytes`: told to the budget.
  void Hold(size_t bytes) {
    if (budget_ != nullptr) budget_->Update(held_, bytes);
    held_ = bytes;
  }

  void Close() {
    idle_deadline_.cancel();
    Hold(0);
    // A paused read resumed after this (Abandon posts the Close first) must not hold any
    // of the shared budget again: it would be lost to every connection for good (probe DI1).
    budget_ = nullptr;
    answers_.ShareBudget(nullptr);  // the budgets must outlive only the Close
    answer_budget_ = nullptr;
    boost::system::error_code ignored;
    stream_.close(ignored);
    boost::asio::post(io_, on_closed_);  // a copy: the daemon may destroy us in it
  }

  boost::asio::io_context& io_;
  boost::asio::posix::stream_descriptor stream_;
  ServerCore& core_;
  PartialLineBudget* budget_;
  AnswerBudget* answer_budget_;  // null once closed
  TurnQueue* turns_;             // may be null
  size_t held_ = 0;  // this connection's share of budget_
  PacedLines lines_;
  std::function<void()> on_closed_;
  std::function<bool()> on_detach_;
  std::unique_ptr<LineSession> session_;
  std::unique_ptr<OperatorSession> operator_;
  LineWriteQueue answers_;
  bool stopping_ = false;
  bool abandoned_ = false;  // the daemon dropped this connection (Abandon)
  bool client_left_ = false;  // the peer hung up before that (its input ended so)
  bool input_ended_ = false;
  bool read_in_flight_ = false;
  const bool operator_only_;
  boost::asio::steady_timer idle_deadline_;  // see ArmIdleDeadline
  bool spoken_ = false;                      // a client connection sent a line
  bool refused_ = false;
  bool hello_cut_ = false;  // the over-long line being read was taken for a hello
  char buffer_[1 << 16];
};

}  // namespace

std::shared_ptr<DaemonConnection> DaemonConnection::Start(boost::asio::io_context& io,
                                                          UniqueFd fd, ServerCore& core,
                                                          size_t max_line_bytes,
                                                          ConnectionBudgets budgets,
                                                          std::function<void()> on_closed,
                                                          bool operator_only,
                                                          std::function<bool()> on_detach) {
  auto connection = std::make_shared<Connection>(io, std::move(fd), core, max_line_bytes,
                                                 budgets, std::move(on_closed), operator_only,
                                                 std::move(on_detach));
  connection->Begin();
  return connection;
}

}  // namespace las::tools
