#include "transport/mcp_client.h"

#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <charconv>
#include <cstdint>
#include <cmath>
#include <deque>
#include <set>
#include <unordered_map>
#include <vector>

#include "transport/json_text.h"
#include "transport/jsonrpc.h"
#include "transport/line_breaks.h"
#include "transport/line_reader.h"

namespace las::transport {

namespace asio = boost::asio;
using ErrorCode = boost::system::error_code;

std::string_view CallErrorName(CallError error) {
  switch (error) {
    case CallError::kNone: return "none";
    case CallError::kSpawnFailed: return "spawn_failed";
    case CallError::kChildExited: return "child_exited";
    case CallError::kTimeout: return "timeout";
    case CallError::kResponseTooLarge: return "response_too_large";
    case CallError::kRemoteError: return "remote_error";
    case CallError::kMalformedResponse: return "malformed_response";
    case CallError::kNotReady: return "not_ready";
    case CallError::kShutdown: return "shutdown";
    case CallError::kUnsupportedProtocol: return "unsupported_protocol";
    case CallError::kCancelled: return "cancelled";
    case CallError::kChildNotReading: return "child_not_reading";
  }
  return "unknown";
}

namespace {

// Enough of an over-long answer's end for `,"id":<any int64>}` and some white space.
constexpr size_t kOversizedTailBytes = 64;

CallResult Failed(CallError error, std::string why = {}) {
  CallResult r;
  r.error = error;
  r.why = std::move(why);
  return r;
}

CallResult Malformed(std::string why) { return Failed(CallError::kMalformedResponse, std::move(why)); }

// An id as we write them: an integer literal. Only this is an answer to a call.
bool ParseOurId(std::string_view raw, int64_t* id) {
  const char* end = raw.data() + raw.size();
  auto [ptr, ec] = std::from_chars(raw.data(), end, *id);
  return ec == std::errc() && ptr == end;
}

// A JSON number's text whose value is exactly an int64, however it is written: 12, 12.0,
// 1.2e1 and 120e-1 are 12; 12.5, 1e400 and 12.000000000000001 are not. Decimal digits are
// compared exactly (no rounding through a double, which would turn 12.000000000000001
// into 12). Used only to name the call a malformed answer was meant for.
bool IntegralNumber(std::string_view raw, int64_t* value) {
  size_t i = 0;
  const bool negative = i < raw.size() && raw[i] == '-';
  if (negative) ++i;
  auto digits_from = [&raw](size_t& at) {
    const size_t start = at;
    while (at < raw.size() && raw[at] >= '0' && raw[at] <= '9') ++at;
    return raw.substr(start, at - start);
  };
  const std::string_view whole = digits_from(i);
  if (whole.empty()) return false;
  std::string_view fraction;
  if (i < raw.size() && raw[i] == '.') {
    fraction = digits_from(++i);
    if (fraction.empty()) return false;
  }
  int64_t exponent = 0;  // saturated: any value beyond int64 digits is far past the bound
  if (i < raw.size() && (raw[i] == 'e' || raw[i] == 'E')) {
    ++i;
    const bool minus = i < raw.size() && raw[i] == '-';
    if (i < raw.size() && (raw[i] == '-' || raw[i] == '+')) ++i;
    const std::string_view e = digits_from(i);
    if (e.empty()) return false;
    for (char c : e) exponent = std::min<int64_t>(exponent * 10 + (c - '0'), 100000);
    if (minus) exponent = -exponent;
  }
  if (i != raw.size()) return false;
  // value = digits × 10^scale, digits without leading zeros and trailing zeros taken into
  // the scale.
  std::string digits(whole);
  digits += fraction;
  int64_t scale = exponent - static_cast<int64_t>(fraction.size());
  digits.erase(0, std::min(digits.find_first_not_of('0'), digits.size()));
  if (digits.empty()) {
    *value = 0;
    return true;
  }
  while (digits.back() == '0') {
    digits.pop_back();
    ++scale;
  }
  if (scale < 0) return false;                                      // a fraction remains
  if (static_cast<int64_t>(digits.size()) + scale > 19) return false;  // beyond int64
  digits.append(static_cast<size_t>(scale), '0');
  if (negative) digits.insert(digits.begin(), '-');
  return ParseOurId(digits, value);  // from_chars reports an int64 overflow
}

// An id that names an int64 however it is written: such a number, or a JSON string whose
// content is one ("12", "12.0": a child that keeps ids as text). Only to name the call a
// malformed answer was meant for.
bool IntegralId(std::string_view raw, int64_t* value) {
  if (JsonTypeOf(raw) != JsonType::kString) return IntegralNumber(raw, value);
  const std::optional<std::string> text = DecodeJsonString(raw);
  return text && IntegralNumber(*text, value);
}

// The member `key` of an object, null when absent; false when it is repeated (readers would
// disagree about which one counts).
bool OnlyMember(const std::vector<JsonMember>& members, std::string_view key, const JsonMember** found) {
  *found = nullptr;
  for (const JsonMember& m : members) {
    if (m.key != key) continue;
    if (*found != nullptr) return false;
    *found = &m;
  }
  return true;
}

// The initialize result names our protocol version, once.
bool SpeaksOurProtocol(const std::vector<JsonMember>& members) {
  const JsonMember* version = nullptr;
  if (!OnlyMember(members, "protocolVersion", &version)) return false;
  if (version == nullptr || version->type != JsonType::kString) return false;
  const std::optional<std::string> text = DecodeJsonString(version->raw);
  return text && *text == kMcpProtocolVersion;
}

}  // namespace

class McpClient::Impl : public std::enable_shared_from_this<McpClient::Impl> {
 public:
  Impl(asio::io_context& io, McpClientOptions options)
      : io_(io),
        opts_(std::move(options)),
        clock_(opts_.clock ? *opts_.clock : SystemMonotonicClock()),
        spawner_(opts_.spawner ? *opts_.spawner : DefaultProcessSpawner()),
        in_(io),
        out_(io),
        err_(io),
        pidfd_(io),
        grace_timer_(io),
        out_framer_(opts_.max_line_bytes, kOversizedTailBytes),
        err_framer_(opts_.max_stderr_line_bytes) {
    IgnoreWriteSignals();
  }

  // ---- public operations -------------------------------------------------------------

  void Start(CallCallback done) {
    if (state_ != State::kIdle) return PostResult(std::move(done), Failed(CallError::kNotReady));
    state_ = State::kStarting;
    SpawnOptions spawn = opts_.spawn;
    spawn.stderr_mode =
        opts_.on_stderr_line ? SpawnOptions::Stderr::kPipe : SpawnOptions::Stderr::kDiscard;
    Result<std::unique_ptr<ChildProcess>> child = spawner_.Spawn(spawn);
    if (!child.ok()) {
      state_ = State::kFailed;
      CallResult r = Failed(CallError::kSpawnFailed);
      r.spawn_status = child.status();
      return PostResult(std::move(done), std::move(r));
    }
    child_ = std::move(child).value();
    in_.assign(child_->TakeStdin().Release());
    // Once: WriteNext writes without waiting (an ioctl per write otherwise).
    in_.non_blocking(true, in_mode_error_);
    out_.assign(child_->TakeStdout().Release());
    UniqueFd err = child_->TakeStderr();
    if (err.valid()) {
      err_.assign(err.Release());
      ReadErr();
    }
    int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, child_->pid(), 0));
    if (pidfd >= 0) {
      pidfd_.assign(pidfd);
      WatchExit();
    }
    ReadOut();

    std::string params = "{\"protocolVersion\":";
    params += QuoteJsonString(kMcpProtocolVersion);
    params += ",\"capabilities\":{},\"clientInfo\":{\"name\":";
    params += QuoteJsonString(opts_.client_name);
    params += ",\"version\":";
    params += QuoteJsonString(opts_.client_version);
    params += "}}";
    auto self = shared_from_this();
    SendRequest("initialize", params, opts_.start_timeout,
                [self, done = std::move(done)](CallResult r) mutable {
                  self->OnInitialized(std::move(r), std::move(done));
                });
  }

  int64_t Request(std::string_view method, std::string_view params, CallOptions options,
                  CallCallback done) {
    if (state_ != State::kReady) {
      PostResult(std::move(done), Failed(CallError::kNotReady));
      return 0;
    }
    return SendRequest(method, params, options.timeout, std::move(done),
                       std::move(options.on_progress));
  }

  bool Cancel(int64_t id, std::string_view reason) {
    std::optional<Pending> call = TakePending(id);
    if (!call) return false;
    CallResult cancelled = Failed(CallError::kCancelled);
    cancelled.never_sent = StopWaiting(id, *call, reason);
    PostResult(std::move(call->done), std::move(cancelled));
    return true;
  }

  int64_t CallTool(std::string_view name, std::string_view arguments, CallOptions options,
                   CallCallback done) {
    std::string params = "{\"name\":";
    params += QuoteJsonString(name);
    if (!arguments.empty()) {
      params += ",\"arguments\":";
      params += arguments;
    }
    // The token is the id SendRequest is about to give the request: progress is matched to
    // the pending call without a second table.
    if (options.on_progress) params += ",\"_meta\":{\"progressToken\":" + std::to_string(next_id_) + "}";
    params += '}';
    return Request("tools/call", params, std::move(options), std::move(done));
  }

  void ListTools(CallCallback done) {
    if (state_ != State::kReady) return PostResult(std::move(done), Failed(CallError::kNotReady));
    auto listing = std::make_shared<Listing>();
    listing->done = std::move(done);
    if (opts_.start_timeout.count() > 0) {
      listing->deadline_nanos =
          clock_.NowNanos() +
          std::chrono::duration_cast<std::chrono::nanoseconds>(opts_.start_timeout).count();
    }
    ListPage(std::move(listing), std::string());
  }

  void Shutdown(std::function<void()> done) {
    if (state_ == State::kIdle || child_ == nullptr) {
      state_ = State::kClosed;
      asio::post(io_, std::move(done));
      return;
    }
    if (state_ != State::kClosed) state_ = State::kClosing;
    shutdown_waiters_.push_back(std::move(done));
    FailAll(CallError::kShutdown);
    BeginTerminate();
    // Nothing more the child says matters now.
    CloseOut();
    CloseErr();
    MaybeFinish();
  }

  // The McpClient is going away: end the child now, call nothing.
  void Abandon() {
    abandoned_ = true;
    for (auto& [id, p] : pending_) {
      if (p.timer) p.timer->cancel();
    }
    pending_.clear();
    shutdown_waiters_.clear();
    ClearWriteQueue();
    ErrorCode ignored;
    grace_timer_.cancel();
    in_.close(ignored);
    out_.close(ignored);
    err_.close(ignored);
    pidfd_.close(ignored);
    if (child_) child_->KillAndReap();
  }

  State state() const { return state_; }
  pid_t pid() const { return child_ ? child_->pid() : -1; }
  size_t pending_calls() const { return pending_.size(); }
  size_t write_backlog_bytes() const { return queued_bytes_; }
  const McpClientStats& stats() const { return stats_; }
  std::optional<int> wait_status() const {
    return child_ ? child_->wait_status() : std::nullopt;
  }
  bool ended_by_las() const {
    const std::optional<int> status = wait_status();
    if (!status || !WIFSIGNALED(*status)) return false;
    const int signal = WTERMSIG(*status);
    return (signal == SIGTERM && sent_term_) || (signal == SIGKILL && sent_kill_);
  }

 private:
  struct Pending {
    CallCallback done;
    std::unique_ptr<asio::steady_timer> timer;
    std::function<void(const CallProgress&)> on_progress;
    std::optional<double> last_progress;  // passed on
    int64_t last_progress_nanos = 0;
    bool reached_total = false;  // a progress at its total was passed on: nothing more
    uint64_t line_seq = 0;        // the request line's place in the write order (QueuedLine)
  };
  // A line waiting to be written. `seq` counts every line ever queued, so a request's line
  // is found without a search: it is at seq - write_queue_.front().seq while still queued.
  struct QueuedLine {
    std::string bytes;  // with its newline; empty once withdrawn (skipped, never written)
    uint64_t seq = 0;
  };
  struct Listing {
    CallCallback done;
    std::string tools;  // comma-joined raw tool objects
    std::set<std::string> cursors;
    size_t cursor_bytes = 0;  // of `cursors`: counted with the tools in max_list_bytes
    size_t pages = 0;
    // The whole listing's time (start_timeout); nullopt: none.
    std::optional<int64_t> deadline_nanos;  // on clock_
  };

  void PostResult(CallCallback done, CallResult r) {
    auto self = shared_from_this();
    asio::post(io_, [self, done = std::move(done), r = std::move(r)]() mutable {
      if (!self->abandoned_) done(std::move(r));
    });
  }

  // ---- requests ----------------------------------------------------------------------

  int64_t SendRequest(std::string_view method, std::string_view params,
                      std::chrono::milliseconds timeout, CallCallback done,
                      std::function<void(const CallProgress&)> on_progress = nullptr) {
    if (child_gone_ || terminating_ || exited_) {
      PostResult(std::move(done), Failed(CallError::kChildExited));
      return 0;
    }
    const int64_t id = next_id_;
    std::string line = MakeRequest(std::to_string(id), method, params);
    if (!FitsWriteBacklog(line.size() + 1)) {
      // The child has not read what is already waiting: queueing more would only grow
      // memory, and the caller learns now instead of at a timeout (if it set one).
      ++stats_.refused_requests;
      PostResult(std::move(done), Failed(CallError::kChildNotReading));
      return 0;
    }
    ++next_id_;
    Pending p;
    p.done = std::move(done);
    p.on_progress = std::move(on_progress);
    if (timeout.count() > 0) {
      p.timer = std::make_unique<asio::steady_timer>(io_);
      p.timer->expires_after(timeout);
      auto self = shared_from_this();
      p.timer->async_wait([self, id](const ErrorCode& ec) {
        if (!ec && !self->abandoned_) self->OnTimeout(id);
      });
    }
    p.line_seq = Write(std::move(line));
    pending_.emplace(id, std::move(p));
    return id;
  }

  void OnTimeout(int64_t id) {
    std::optional<Pending> call = TakePending(id);
    if (!call) return;
    CallResult timed_out = Failed(CallError::kTimeout);
    timed_out.never_sent = StopWaiting(id, *call, "timeout");
    call->done(std::move(timed_out));
  }

  // The caller no longer waits for request `id` (taken from pending_). A request line the
  // child has not been given yet is withdrawn: it would cost memory until the child reads,
  // and then make it act for no one. One already given (or being written) stays uncertain;
  // the child is told we stopped waiting. True when it was withdrawn (never sent).
  bool StopWaiting(int64_t id, const Pending& call, std::string_view reason) {
    if (WithdrawQueued(call.line_seq)) {
      ++stats_.withdrawn_requests;
      return true;
    }
    std::string notice = MakeCancelledNotification(std::to_string(id), reason);
    if (!FitsWriteBacklog(notice.size() + 1)) {
      ++stats_.unsent_cancellations;
      return false;
    }
    Write(std::move(notice));
    return false;
  }

  // Removes and returns the pending call `id`, if any (its timer cancelled).
  std::optional<Pending> TakePending(int64_t id) {
    auto it = pending_.find(id);
    if (it == pending_.end()) return std::nullopt;
    if (it->second.timer) it->second.timer->cancel();
    Pending call = std::move(it->second);
    pending_.erase(it);
    return call;
  }

  void FailAll(CallError error) {
    auto pending = std::move(pending_);
    pending_.clear();
    // In id order, so callers see a deterministic sequence.
    struct Failing {
      int64_t id;
      CallCallback done;
      bool never_sent;
    };
    std::vector<Failing> calls;
    for (auto& [id, p] : pending) {
      if (p.timer) p.timer->cancel();
      calls.push_back({id, std::move(p.done),
                       StillQueued(p.line_seq) || p.line_seq >= unsent_from_seq_});
    }
    std::sort(calls.begin(), calls.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
    for (auto& call : calls) {
      if (abandoned_) return;
      CallResult failed = Failed(error);
      failed.never_sent = call.never_sent;
      call.done(std::move(failed));
    }
  }

  void OnInitialized(CallResult r, CallCallback done) {
    if (r.ok()) {
      std::vector<JsonMember> members;
      if (ObjectMembers(r.result, &members, opts_.max_depth) != JsonTextError::kNone) {
        r = Malformed("the result is not a JSON object");
      } else if (!SpeaksOurProtocol(members)) {
        // The child would answer in another version's terms (MCP: the client then
        // disconnects), or it answered no version at all.
        r = Failed(CallError::kUnsupportedProtocol);
      }
    }
    if (!r.ok()) {
      if (state_ == State::kStarting) state_ = State::kFailed;
      BeginTerminate();
      done(std::move(r));
      return;
    }
    if (state_ != State::kStarting) {  // shut down meanwhile
      done(Failed(CallError::kShutdown));
      return;
    }
    Write(MakeNotification("notifications/initialized"));
    state_ = State::kReady;
    done(std::move(r));
  }

  void ListPage(std::shared_ptr<Listing> listing, const std::string& raw_cursor) {
    std::string params;
    if (!raw_cursor.empty()) params = "{\"cursor\":" + raw_cursor + "}";
    CallOptions page;
    if (listing->deadline_nanos) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          std::chrono::nanoseconds(*listing->deadline_nanos - clock_.NowNanos()));
      if (left.count() <= 0) return PostResult(std::move(listing->done), Failed(CallError::kTimeout));
      page.timeout = left;
    }
    auto self = shared_from_this();
    Request("tools/list", params, page,
            [self, listing](CallResult r) { self->OnListPage(listing, std::move(r)); });
  }

  void OnListPage(const std::shared_ptr<Listing>& listing, CallResult r) {
    if (!r.ok()) return listing->done(std::move(r));
    std::vector<JsonMember> members;
    // Said only when a page is refused: a listing that succeeds builds no text.
    const size_t page_number = listing->pages + 1;
    auto page = [page_number] { return "page " + std::to_string(page_number) + ": "; };
    if (ObjectMembers(r.result, &members, opts_.max_depth) != JsonTextError::kNone) {
      return listing->done(Malformed(page() + "the result is not a JSON object"));
    }
    const JsonMember* tools = nullptr;
    const JsonMember* cursor = nullptr;
    if (!OnlyMember(members, "tools", &tools) || !OnlyMember(members, "nextCursor", &cursor)) {
      return listing->done(Malformed(page() + "the result names tools or nextCursor twice"));
    }
    std::vector<std::string_view> elements;
    if (tools == nullptr ||
        ArrayElements(tools->raw, &elements, opts_.max_depth) != JsonTextError::kNone) {
      return listing->done(Malformed(page() + "the result holds no tools array"));
    }
    for (std::string_view tool : elements) {
      if (JsonTypeOf(tool) != JsonType::kObject) {
        return listing->done(Malformed(page() + "a tools entry is not an object"));
      }
      if (!listing->tools.empty()) listing->tools += ',';
      listing->tools += tool;
    }
    auto too_large = [this] {
      return "the tools of every page together are over " + std::to_string(opts_.max_list_bytes) + " bytes";
    };
    if (listing->tools.size() > opts_.max_list_bytes) {
      return listing->done(Failed(CallError::kResponseTooLarge, too_large()));
    }
    ++listing->pages;
    if (cursor != nullptr && cursor->type == JsonType::kString) {
      std::string raw(cursor->raw);
      // Kept to tell a loop, so bounded with the tools: 1,000 cursors of a line each were
      // gigabytes (probe CS2).
      listing->cursor_bytes += raw.size();
      if (listing->tools.size() + listing->cursor_bytes > opts_.max_list_bytes) {
        return listing->done(Failed(CallError::kResponseTooLarge, too_large() + " with their cursors"));
      }
      // A cursor seen before, or too many pages: the child is looping.
      if (!listing->cursors.insert(raw).second) {
        return listing->done(Malformed(page() + "nextCursor repeats an earlier page's (a loop)"));
      }
      if (listing->pages >= opts_.max_list_pages) {
        return listing->done(Malformed("more than " + std::to_string(opts_.max_list_pages) + " pages"));
      }
      return ListPage(listing, raw);
    }
    if (cursor != nullptr && cursor->type != JsonType::kNull) {
      return listing->done(Malformed(page() + "nextCursor is neither a string nor null"));
    }
    CallResult done;
    done.result = "[" + listing->tools + "]";
    listing->done(std::move(done));
  }

  // ---- writing -----------------------------------------------------------------------

  // True when `bytes` more may wait to be written: within max_write_backlog_bytes, or
  // nothing waits at all (a single line over the bound still goes; the child may read it).
  bool FitsWriteBacklog(size_t bytes) const {
    return queued_bytes_ == 0 || queued_bytes_ + bytes <= opts_.max_write_backlog_bytes;
  }

  // Queues `line` (a newline is added) and returns its sequence number (QueuedLine::seq).
  uint64_t Write(std::string line) {
    const uint64_t seq = next_line_seq_++;
    if (!in_.is_open()) return seq;
    EscapeLineBreaksOfOtherReaders(line);  // arguments as the client wrote them (probe JO1)
    line += '\n';
    queued_bytes_ += line.size();
    write_queue_.push_back(QueuedLine{std::move(line), seq});
    if (!writing_) WriteNext();
    return seq;
  }

  // The line `seq` while it waits unwritten behind the front (which may be written in part,
  // or held by the write under way); nullptr when it was written, dropped or withdrawn, or
  // is the front.
  QueuedLine* Unwritten(uint64_t seq) {
    if (write_queue_.empty() || seq < write_queue_.front().seq) return nullptr;
    const uint64_t index = seq - write_queue_.front().seq;
    if (index == 0 || index >= write_queue_.size()) return nullptr;
    QueuedLine& line = write_queue_[index];
    return line.seq == seq && !line.bytes.empty() ? &line : nullptr;
  }
  bool StillQueued(uint64_t seq) { return Unwritten(seq) != nullptr; }

  // Takes the line `seq` out of the queue unwritten. False when it is not there unwritten
  // (Unwritten).
  bool WithdrawQueued(uint64_t seq) {
    QueuedLine* unwritten = Unwritten(seq);
    if (unwritten == nullptr) return false;
    QueuedLine& line = *unwritten;
    queued_bytes_ -= line.bytes.size();
    std::string().swap(line.bytes);  // release the memory now, not when it reaches the front
    return true;
  }

  void ClearWriteQueue() {
    write_queue_.clear();
    queued_bytes_ = 0;
    front_written_ = 0;
  }

  // The lines waiting (up to kMostLinesPerWrite) are first written at once, without
  // waiting: one line per write made each wait a pass of the loop, which a busy daemon
  // makes long (probe JK1: calls a flood had queued reached the child at 150-370 a second,
  // each waiting up to 12 s). What the pipe does not take waits in an asynchronous write of
  // the one line it stopped in, so that only that line is ever "being written": the lines
  // behind it can still be withdrawn, and are never sent if the child dies (probe JL1).
  static constexpr size_t kMostLinesPerWrite = 64;

  void WriteNext() {
    for (;;) {
      DropWithdrawnFront();
      if (write_queue_.empty() || !in_.is_open()) {
        writing_ = false;
        return;
      }
      writing_ = true;
      std::vector<asio::const_buffer> buffers;
      for (const QueuedLine& line : write_queue_) {
        if (buffers.size() == kMostLinesPerWrite) break;
        if (line.bytes.empty()) continue;
        const size_t from = buffers.empty() ? front_written_ : 0;
        buffers.push_back(asio::buffer(line.bytes.data() + from, line.bytes.size() - from));
      }
      ErrorCode ec = in_mode_error_;
      const size_t written = ec ? 0 : in_.write_some(buffers, ec);
      if (ec == asio::error::would_block || ec == asio::error::try_again) break;
      if (ec) {
        // Told on the loop, as an asynchronous write's failure is: Write() runs inside
        // SendRequest, before its call is pending, and the failure fails every pending call.
        asio::post(io_, [self = shared_from_this(), written] {
          if (!self->abandoned_) self->WriteFailed(written);
        });
        return;  // writing_ stays true meanwhile: lines queued are not written
      }
      TakeWritten(written);
      if (written == 0) break;
    }
    // The pipe is full: wait until it takes the rest of the front line.
    const QueuedLine& front = write_queue_.front();
    auto self = shared_from_this();
    asio::async_write(in_, asio::buffer(front.bytes.data() + front_written_, front.bytes.size() - front_written_),
                      [self](const ErrorCode& ec, size_t written) {
                        if (self->abandoned_) return;
                        if (ec) return self->WriteFailed(written);
                        self->TakeWritten(written);
                        self->WriteNext();
                      });
  }

  // `written` more bytes reached the child: the lines they complete leave the queue.
  void TakeWritten(size_t written) {
    while (written > 0 && !write_queue_.empty()) {
      QueuedLine& line = write_queue_.front();
      const size_t rest = line.bytes.size() - front_written_;
      if (written < rest) {
        front_written_ += written;
        return;
      }
      written -= rest;
      queued_bytes_ -= line.bytes.size();
      front_written_ = 0;
      write_queue_.pop_front();
      DropWithdrawnFront();
    }
  }

  // Withdrawn lines at the front leave the queue; the rest keep their order.
  void DropWithdrawnFront() {
    while (!write_queue_.empty() && write_queue_.front().bytes.empty()) write_queue_.pop_front();
  }

  // A write failed (EPIPE: no one reads the child's stdin) after `written` more bytes: a
  // line with nothing of it written never reached the child, nor did any behind it; one
  // written in part may have.
  void WriteFailed(size_t written) {
    TakeWritten(written);
    if (!write_queue_.empty()) {
      const QueuedLine& front = write_queue_.front();
      unsent_from_seq_ = front_written_ == 0 ? front.seq : front.seq + 1;
    } else {
      unsent_from_seq_ = next_line_seq_;
    }
    // The child no longer reads its stdin: it cannot get requests.
    writing_ = false;
    ClearWriteQueue();
    ErrorCode ignored;
    in_.close(ignored);
    ChildGone();
  }

  // ---- reading stdout ----------------------------------------------------------------

  void ReadOut() {
    auto self = shared_from_this();
    out_.async_read_some(asio::buffer(out_buf_), [self](const ErrorCode& ec, size_t n) {
      if (self->abandoned_ || !self->out_.is_open()) return;
      if (n > 0) {
        self->out_framer_.Feed(std::string_view(self->out_buf_.data(), n),
                               [&](const LineEvent& e) { self->OnOutLine(e); });
      }
      if (ec) {
        self->CloseOut();
        self->ChildGone();
        return;
      }
      if (self->out_.is_open()) self->ReadOut();
    });
  }

  void FailOversized(const std::optional<std::string>& id) {
    int64_t n = 0;
    if (id && ParseOurId(*id, &n)) {
      if (auto call = TakePending(n)) call->done(Failed(CallError::kResponseTooLarge));
    }
  }

  void OnOutLine(const LineEvent& e) {
    if (abandoned_) return;
    if (e.kind == LineEvent::Kind::kTooLong) {
      ++stats_.oversized_lines;
      // A request or notification of the child's own (its method or params read before the
      // bulk): its id, first or last, is the child's, not one of ours (probe AS4).
      oversized_is_message_ = ShownKind(e.bytes) == MessageKind::kRequest;
      // The id usually comes before the bulk; if it can be read, fail that call only.
      if (!oversized_is_message_) FailOversized(SalvageTopLevelMember(e.bytes, "id", opts_.max_depth));
      return;
    }
    if (e.kind == LineEvent::Kind::kTooLongEnd) {
      // Or it comes last (a serializer that writes "result" first): the call must not wait
      // for an answer that was already thrown away.
      if (!oversized_is_message_) FailOversized(SalvageTrailingMember(e.bytes, "id"));
      return;
    }
    if (e.kind != LineEvent::Kind::kLine) return;
    if (e.bytes.find_first_not_of(" \t\r") == std::string_view::npos) return;  // blank
    JsonRpcLimits limits;
    limits.max_line_bytes = opts_.max_line_bytes;
    limits.max_depth = opts_.max_depth;
    ParsedLine parsed = ParseMessage(e.bytes, limits);
    if (!parsed.ok()) {
      ++stats_.garbage_lines;
      FailCallNamedIn(e.bytes, parsed.error);
      return;
    }
    Message& m = *parsed.message;
    switch (m.kind) {
      case MessageKind::kRequest:
        // Server-to-client requests: answer ping, refuse the rest (no sampling, no roots).
        AnswerChildRequest(m.method == "ping" ? MakeResultResponse(m.id, "{}")
                                              : MakeErrorResponse(m.id, kMethodNotFound));
        return;
      case MessageKind::kNotification:
        if (m.method == "notifications/progress") OnProgress(m.params);
        return;  // logging, list_changed: not used here
      case MessageKind::kResponse:
        break;
    }
    int64_t id = 0;
    std::optional<Pending> done;
    if (ParseOurId(m.id, &id)) done = TakePending(id);
    if (!done && IntegralId(m.id, &id)) {
      // Our id written another way (12.0, "12"): the answer is meant for that call — Las
      // sends the child no request of another id — but an id is echoed exactly or not at
      // all, so it is not taken as the result; the call must not wait for an answer that
      // already came.
      if (auto call = TakePending(id)) {
        call->done(Malformed("the answer's id is not written as it was sent"));
        return;
      }
    }
    if (!done) {
      ++stats_.stray_responses;
      return;
    }
    CallResult r;
    if (m.is_error) {
      r.error = CallError::kRemoteError;
      r.remote_code = m.error_code;
      r.remote_error = std::move(m.error);
    } else {
      r.result = std::move(m.result);
      // Valid JSON holds a CR byte only as whitespace between tokens; passed on, it would
      // end a line for readers that take CR as a line break.
      if (r.result.find('\r') != std::string::npos) std::erase(r.result, '\r');
    }
    done->done(std::move(r));
  }

  // Passes a call's progress on if it is well formed, increases, and is not too soon. One
  // naming a member twice is not: readers keeping the first or the last disagree (probe HN4).
  void OnProgress(std::string_view params) {
    std::vector<JsonMember> members;
    int64_t id = 0;
    bool token_read = false;
    std::optional<double> progress;
    std::optional<double> total;
    bool valid = ObjectMembers(params, &members, opts_.max_depth) == JsonTextError::kNone;
    for (const auto& member : members) {
      if (member.key == "progressToken") {
        valid = valid && !std::exchange(token_read, true) && ParseOurId(std::string(member.raw), &id);
      } else if (member.key == "progress") {
        valid = valid && !progress;
        progress = FiniteNumber(member);
        valid = valid && progress.has_value();
      } else if (member.key == "total") {
        valid = valid && !total;
        total = FiniteNumber(member);
        valid = valid && total.has_value();
      }
    }
    auto it = valid && progress ? pending_.find(id) : pending_.end();
    if (it == pending_.end() || !it->second.on_progress) {
      ++stats_.dropped_progress;
      return;
    }
    Pending& call = it->second;
    const int64_t now = clock_.NowNanos();
    // Only the one that reaches the total may come sooner than the interval; after it,
    // nothing (a child whose every value is "at the total" would otherwise flood).
    const bool final = total && *progress >= *total;
    const bool soon = call.last_progress &&
                      now - call.last_progress_nanos <
                          std::chrono::nanoseconds(opts_.min_progress_interval).count();
    if (call.reached_total || (call.last_progress && *progress <= *call.last_progress) ||
        (soon && !final)) {
      ++stats_.dropped_progress;
      return;
    }
    call.last_progress = progress;
    call.last_progress_nanos = now;
    call.reached_total = final;
    call.on_progress(CallProgress{*progress, total});
  }

  static std::optional<double> FiniteNumber(const JsonMember& member) {
    if (member.type != JsonType::kNumber) return std::nullopt;
    double value = 0;
    const char* end = member.raw.data() + member.raw.size();
    auto [ptr, ec] = std::from_chars(member.raw.data(), end, value);
    if (ec != std::errc() || ptr != end || !std::isfinite(value)) return std::nullopt;
    return value;
  }

  void AnswerChildRequest(std::string answer) {
    if (queued_bytes_ + answer.size() > opts_.max_answer_backlog_bytes ||
        !FitsWriteBacklog(answer.size() + 1)) {
      ++stats_.unanswered_requests;
      return;
    }
    Write(std::move(answer));
  }

  // A line that is no valid message but reads as an answer to one of our pending calls (an
  // `id` we sent, no `method`) is that call's answer, malformed: the call fails instead of
  // waiting for an answer that already came. Also read that way: the line behind a UTF-8
  // byte order mark (stripped here only: the line stays invalid), and each element of a
  // batch array (JSON-RPC 2.0 batches, which Las never sends and so never takes).
  void FailCallNamedIn(std::string_view line, const ParseError& error) {
    const std::string_view body = WithoutByteOrderMark(line);
    std::vector<std::string_view> batch;
    if (ArrayElements(body, &batch, opts_.max_depth) != JsonTextError::kNone) {
      batch = SalvageArrayElements(body);  // a batch broken in one element: the others
    }
    const std::string why = "the answer is no valid JSON-RPC message (" +
                            std::string(ParseFailureName(error.reason)) + ")";
    if (!batch.empty()) {
      for (std::string_view element : batch) FailCallAnsweredBy(element, std::nullopt, "the answer came in a batch array, which Las never takes");
      return;
    }
    FailCallAnsweredBy(body, error.id, why);
  }

  // `text`: one JSON object, or the prefix of one; `id`: its id if the parser read it.
  // A line showing a method beside a result or an error is no request of the child's: it
  // answers a call (probe HN1: taken for a request, it left the call waiting).
  void FailCallAnsweredBy(std::string_view text, std::optional<std::string> id, const std::string& why) {
    if (ShownKind(text) == MessageKind::kRequest && !ShowsTopLevelMember(text, "result") &&
        !ShowsTopLevelMember(text, "error")) {
      return;  // a request of its own
    }
    if (!id) id = SalvageTopLevelMember(text, "id", opts_.max_depth);
    int64_t n = 0;
    // 12.0 or "12" for our 12 too: a line this broken is no exact echo anyway.
    if (!id || !IntegralId(*id, &n)) return;
    if (auto call = TakePending(n)) call->done(Malformed(why));
  }

  void CloseOut() {
    ErrorCode ignored;
    out_.close(ignored);
  }

  // ---- reading stderr ----------------------------------------------------------------

  void ReadErr() {
    auto self = shared_from_this();
    err_.async_read_some(asio::buffer(err_buf_), [self](const ErrorCode& ec, size_t n) {
      if (self->abandoned_ || !self->err_.is_open()) return;
      auto sink = [&](const LineEvent& e) {
        if (self->abandoned_ || !self->opts_.on_stderr_line) return;
        ++self->stats_.stderr_lines;
        self->opts_.on_stderr_line(e.bytes, e.kind == LineEvent::Kind::kTooLong);
      };
      if (n > 0) self->err_framer_.Feed(std::string_view(self->err_buf_.data(), n), sink);
      if (ec) {
        self->err_framer_.Finish(sink);
        self->CloseErr();
        return;
      }
      if (self->err_.is_open()) self->ReadErr();
    });
  }

  void CloseErr() {
    ErrorCode ignored;
    err_.close(ignored);
  }

  // ---- the child's end ---------------------------------------------------------------

  void WatchExit() {
    auto self = shared_from_this();
    pidfd_.async_wait(asio::posix::stream_descriptor::wait_read, [self](const ErrorCode& ec) {
      if (self->abandoned_ || ec) return;
      self->OnExited();
    });
  }

  // The leader exited. Whatever is left of its group is an orphan: kill it and reap.
  // Answers already written are still in the stdout pipe; they are read until EOF, and
  // calls still pending then fail (ChildGone).
  void OnExited() {
    exited_ = true;
    if (child_->reaped()) return;
    ErrorCode ignored;
    pidfd_.close(ignored);
    child_->KillAndReap();
    grace_timer_.cancel();
    if (out_.is_open()) {
      // A descendant that left the group could hold stdout open: give it the grace
      // period, then stop reading.
      ArmGrace(clock_.NowNanos(), /*force_close_out=*/true);
    }
    MaybeFinish();
  }

  // No more answers can come (stdout closed, stdin broken, or exit observed).
  void ChildGone() {
    if (!child_gone_) {
      child_gone_ = true;
      if (state_ == State::kReady) {
        state_ = State::kFailed;
        // Told once the child is reaped (MaybeFinish), so that wait_status() says how it
        // ended: its stdout often closes before its exit is seen (probe R2).
        report_gone_ = opts_.on_child_gone && !terminating_;
      }
      FailAll(CallError::kChildExited);
      if (abandoned_) return;
    }
    BeginTerminate();
    MaybeFinish();
  }

  void BeginTerminate() {
    if (terminating_ || child_ == nullptr) return;
    terminating_ = true;
    ErrorCode ignored;
    in_.close(ignored);  // EOF on the child's stdin
    ClearWriteQueue();
    if (child_->reaped()) return;
    // A child already dead or dying (of its own crash, or another's kill) is not ended by
    // this signal: its status stays its own (probes CH1, HU1).
    if (!child_->IsExiting()) sent_term_ = true;
    (void)child_->SignalGroup(SIGTERM);
    ArmGrace(clock_.NowNanos(), /*force_close_out=*/false);
  }

  // Polls the injected clock in short slices until the grace period is over, then
  // either kills the group (still running) or stops reading stdout (already reaped).
  void ArmGrace(int64_t start, bool force_close_out) {
    const int64_t grace = std::chrono::nanoseconds(opts_.terminate_grace).count();
    const int64_t left_ms = (grace - (clock_.NowNanos() - start)) / 1000000 + 1;
    grace_timer_.expires_after(std::chrono::milliseconds(std::clamp<int64_t>(left_ms, 1, 50)));
    auto self = shared_from_this();
    grace_timer_.async_wait([self, start, force_close_out, grace](const ErrorCode& ec) {
      if (ec || self->abandoned_) return;
      // Without a pidfd (old kernels) this poll is how an exit is noticed.
      if (!self->child_->reaped() && self->child_->HasExited()) return self->OnExited();
      if (self->clock_.NowNanos() - start < grace) {
        return self->ArmGrace(start, force_close_out);
      }
      if (!self->child_->reaped()) {
        ErrorCode ignored;
        self->pidfd_.close(ignored);
        if (!self->child_->IsExiting()) self->sent_kill_ = true;
        self->child_->KillAndReap();
        if (self->out_.is_open()) return self->ArmGrace(self->clock_.NowNanos(), true);
      } else if (force_close_out && self->out_.is_open()) {
        self->CloseOut();
        self->CloseErr();
        self->ChildGone();
        return;
      }
      self->MaybeFinish();
    });
  }

  // Completes shutdown once the child is reaped and its stdout is closed.
  void MaybeFinish() {
    if (child_ == nullptr || !child_->reaped() || out_.is_open()) return;
    if (report_gone_) {
      report_gone_ = false;
      asio::post(io_, opts_.on_child_gone);
    }
    if (state_ == State::kClosing) state_ = State::kClosed;
    grace_timer_.cancel();
    auto waiters = std::move(shutdown_waiters_);
    shutdown_waiters_.clear();
    for (auto& w : waiters) asio::post(io_, std::move(w));
  }

  asio::io_context& io_;
  McpClientOptions opts_;
  const MonotonicClock& clock_;
  ProcessSpawner& spawner_;
  asio::posix::stream_descriptor in_;
  asio::posix::stream_descriptor out_;
  asio::posix::stream_descriptor err_;
  asio::posix::stream_descriptor pidfd_;
  asio::steady_timer grace_timer_;
  LineFramer out_framer_;
  LineFramer err_framer_;
  std::array<char, 64 * 1024> out_buf_{};
  std::array<char, 16 * 1024> err_buf_{};

  State state_ = State::kIdle;
  std::unique_ptr<ChildProcess> child_;
  std::unordered_map<int64_t, Pending> pending_;
  int64_t next_id_ = 1;
  std::deque<QueuedLine> write_queue_;
  size_t queued_bytes_ = 0;  // in write_queue_
  uint64_t next_line_seq_ = 1;
  // After a failed write to the child's stdin: the first line it cannot have read (every
  // line from it on was never sent). No line has this seq until then.
  uint64_t unsent_from_seq_ = UINT64_MAX;
  bool writing_ = false;
  size_t front_written_ = 0;  // bytes of write_queue_.front() already written
  ErrorCode in_mode_error_;   // setting the child's stdin non-blocking failed: no write can be made
  bool child_gone_ = false;
  // The child's exit was seen: answers already written may still be read during the
  // grace period, but nothing new is sent (probe GC1: a descendant that escaped the group
  // held stdin open, and new calls went there for 2 s, to be recorded uncertain).
  bool exited_ = false;
  bool report_gone_ = false;  // on_child_gone is due once the child is reaped
  bool terminating_ = false;
  bool sent_term_ = false;  // SIGTERM sent while the child was alive (EndedByLas)
  bool sent_kill_ = false;  // SIGKILL likewise
  bool abandoned_ = false;
  std::vector<std::function<void()>> shutdown_waiters_;
  McpClientStats stats_;
  bool oversized_is_message_ = false;  // the over-long line being skipped names a method
};

McpClient::McpClient(asio::io_context& io, McpClientOptions options)
    : impl_(std::make_shared<Impl>(io, std::move(options))) {}

McpClient::~McpClient() { impl_->Abandon(); }

void McpClient::Start(CallCallback done) { impl_->Start(std::move(done)); }
void McpClient::ListTools(CallCallback done) { impl_->ListTools(std::move(done)); }
int64_t McpClient::CallTool(std::string_view name, std::string_view arguments_json,
                            CallOptions options, CallCallback done) {
  return impl_->CallTool(name, arguments_json, options, std::move(done));
}
int64_t McpClient::Request(std::string_view method, std::string_view params_json,
                           CallOptions options, CallCallback done) {
  return impl_->Request(method, params_json, options, std::move(done));
}
bool McpClient::Cancel(int64_t id, std::string_view reason) { return impl_->Cancel(id, reason); }
void McpClient::Shutdown(std::function<void()> done) { impl_->Shutdown(std::move(done)); }
McpClient::State McpClient::state() const { return impl_->state(); }
pid_t McpClient::pid() const { return impl_->pid(); }
size_t McpClient::pending_calls() const { return impl_->pending_calls(); }
size_t McpClient::write_backlog_bytes() const { return impl_->write_backlog_bytes(); }
const McpClientStats& McpClient::stats() const { return impl_->stats(); }
std::optional<int> McpClient::wait_status() const { return impl_->wait_status(); }
bool McpClient::ended_by_las() const { return impl_->ended_by_las(); }

}  // namespace las::transport
