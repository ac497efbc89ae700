// McpClient: the MCP client side of one child MCP server over its stdio.
//
// Notifications from the child: `notifications/progress` for a call made with
// CallOptions::on_progress is passed on (bounded, see there); the rest are ignored.
//
// Lifecycle: Start() spawns the child (own process group, see child_process.h), sends
// `initialize` (protocolVersion "2024-11-05", clientInfo, capabilities {}) and, on
// success, `notifications/initialized`; the client is then ready for ListTools() (which
// follows `nextCursor` pages) and CallTool(), any number in flight, matched by id.
// Shutdown() fails what is pending, closes the child's stdin, sends SIGTERM to its
// group, SIGKILL after the grace period, and reaps everything.
//
// Threading: everything runs on the given io_context, which must be run by ONE thread.
// Call every method from that thread (or before the loop runs). Callbacks are invoked on
// that thread, never from inside the call that registered them (a call that fails at
// once delivers its callback through the loop). A callback may call any method of the
// client, including Shutdown(), but must not destroy it (post the destruction instead).
// The loop is never blocked on the child: all I/O is asynchronous; the only blocking
// steps are fork/exec in Start() and reaping a process group after SIGKILL.
//
// Ownership and lifetimes: the McpClient owns the child. Destroying it kills the child's
// group at once (SIGKILL), reaps it and drops pending callbacks without calling them; use
// Shutdown() first for callbacks and a graceful end. The McpClient must be destroyed
// before the io_context; the spawner, clock and stderr callback must outlive it.
//
// Errors: each callback gets a CallResult whose `error` is a stable CallError code.
// Child misbehaviour (exit, crash, garbage, over-long lines, silence, stderr floods)
// affects only the calls it concerns; it never throws and never blocks the loop. An
// over-long answer fails its call when its id can be read at the line's start or as its
// last member; one whose id is buried in the bulk leaves the call to a timeout. No
// message or field here ever carries child-controlled text except `result` and
// `remote_error`, which are the child's raw JSON for the caller to treat as untrusted.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "base/clock.h"
#include "transport/child_process.h"

namespace boost::asio {
class io_context;
}  // namespace boost::asio

namespace las::transport {

inline constexpr std::string_view kMcpProtocolVersion = "2024-11-05";

// Stable codes; never renumber, add at the end.
enum class CallError : int {
  kNone = 0,
  kSpawnFailed = 1,        // the child could not be started
  kChildExited = 2,        // the child exited or closed its stdout before answering
  kTimeout = 3,            // the per-call timeout elapsed (the call is uncertain)
  kResponseTooLarge = 4,   // the answer exceeded the line limit (its id read first or last)
  kRemoteError = 5,        // the child answered with a JSON-RPC error object
  kMalformedResponse = 6,  // the answer is not what the method promises
  kNotReady = 7,           // called before Start() succeeded, or after it failed
  kShutdown = 8,           // Shutdown() was called while this was pending
  kUnsupportedProtocol = 9,  // initialize answered another protocolVersion than ours
  kCancelled = 10,           // Cancel() was called while this was pending (uncertain)
  // Not sent: max_write_backlog_bytes were already waiting to be written to the child (it
  // does not read its stdin). The child never saw the request; the call did not happen.
  kChildNotReading = 11,
};
// "none", "spawn_failed", "child_exited", "timeout", "response_too_large",
// "remote_error", "malformed_response", "not_ready", "shutdown", "unsupported_protocol",
// "cancelled", "child_not_reading".
std::string_view CallErrorName(CallError error);

struct CallResult {
  CallError error = CallError::kNone;
  // On success: the raw JSON text of the response's `result` (for ListTools: a JSON array
  // of every page's tools, in order). Child-controlled; untrusted.
  std::string result;
  // kRemoteError only: the child's error `code` and raw error object. Untrusted.
  int64_t remote_code = 0;
  std::string remote_error;
  // kSpawnFailed only: why (errno text and step; never child output).
  Status spawn_status;
  // kMalformedResponse and kResponseTooLarge, where known: what was wrong, in Las's words
  // ("a tools entry is not an object"); never the child's text.
  std::string why;
  // A failed request that was never written to the child (withdrawn when it timed out or
  // was cancelled, or still queued behind others when the child went or was ended): the
  // child cannot have acted on it, so it is not uncertain.
  bool never_sent = false;

  bool ok() const { return error == CallError::kNone; }
};

using CallCallback = std::function<void(CallResult)>;

// A child's stdout line at most: a tool's whole answer is one line, and answers of a few
// MiB (a screenshot in base64) are ordinary — a client reads them from the child directly,
// so Las must relay them (as a handle). A longer line is kResponseTooLarge.
inline constexpr size_t kMaxChildLineBytes = 16 * 1024 * 1024;

struct McpClientOptions {
  SpawnOptions spawn;  // stderr_mode is set from on_stderr_line
  std::string client_name = "las";
  std::string client_version = "0.1.0";
  size_t max_line_bytes = kMaxChildLineBytes;  // per stdout line from the child
  size_t max_depth = 64;
  // If set, stderr is read on the loop and each line (at most max_stderr_line_bytes;
  // longer lines are cut, `truncated` is true) is passed here. If unset, stderr goes
  // to /dev/null. Child-controlled text: never pass it to a client.
  std::function<void(std::string_view line, bool truncated)> on_stderr_line;
  size_t max_stderr_line_bytes = 4096;
  // Applies to `initialize`, and to the whole of tools/list (every page); zero = none.
  std::chrono::milliseconds start_timeout{0};
  // SIGTERM-to-SIGKILL grace when ending the child, measured by `clock`.
  std::chrono::milliseconds terminate_grace{2000};
  const MonotonicClock* clock = nullptr;  // null: SystemMonotonicClock()
  ProcessSpawner* spawner = nullptr;      // null: DefaultProcessSpawner()
  size_t max_list_pages = 1000;           // tools/list pages before giving up
  // The tools of all tools/list pages together, with the page cursors (kept to tell a
  // loop), in bytes; more is kResponseTooLarge.
  size_t max_list_bytes = 16 * 1024 * 1024;
  // Answers to the child's own requests (ping) are written only while less than this is
  // waiting to be written to it: a child that sends requests and does not read would
  // otherwise grow Las's memory without bound. Beyond it the request goes unanswered.
  size_t max_answer_backlog_bytes = 64 * 1024;
  // Everything Las writes to the child (requests, notifications, answers) waits in memory
  // until the child reads it. A request whose line would bring that beyond this bound,
  // while something is already waiting, is not queued: its call fails at once with
  // kChildNotReading (one line larger than the bound alone is still sent). A
  // notifications/cancelled that would pass it is not sent (stats().unsent_cancellations).
  // Without it a child that stops reading makes every later call grow Las's memory.
  size_t max_write_backlog_bytes = 16 * 1024 * 1024;
  // Called once (posted to the loop) when a ready child exits or closes its stdout by
  // itself — not when Shutdown() or the destructor ended it — once it is reaped, so that
  // wait_status() tells how it ended. Every call after the exit or close is kNotReady.
  std::function<void()> on_child_gone;
  // Progress of one call is passed on at most this often (the first one at its total may
  // come sooner; none after it): a child that floods notifications cannot flood the caller.
  std::chrono::milliseconds min_progress_interval{50};
};

// One `notifications/progress` of the child for a call (MCP 2024-11-05: progress and an
// optional total, numbers). Only finite numbers that increase reach the caller; the child's
// other fields (a message, say) are child-controlled text and are not passed on.
struct CallProgress {
  double progress = 0;
  std::optional<double> total;
};

struct CallOptions {
  std::chrono::milliseconds timeout{0};  // zero = no timeout (the default)
  // CallTool only. If set, the call carries `_meta.progressToken` (the request's id) and the
  // child's progress notifications for it come here (on the loop, while the call is pending),
  // at most one per McpClientOptions::min_progress_interval but the first at its total.
  std::function<void(const CallProgress&)> on_progress;
};

// Counters of child misbehaviour that did not fail any call by itself.
struct McpClientStats {
  uint64_t garbage_lines = 0;    // not JSON-RPC at all
  uint64_t oversized_lines = 0;  // over max_line_bytes (attributed or not)
  uint64_t stray_responses = 0;  // ids we did not send or no longer wait for
  uint64_t stderr_lines = 0;     // forwarded stderr lines
  uint64_t unanswered_requests = 0;  // the child's requests dropped: it was not reading
  uint64_t dropped_progress = 0;  // progress notifications not passed on (bad, stale, too soon)
  uint64_t refused_requests = 0;  // failed kChildNotReading: max_write_backlog_bytes waiting
  // Requests timed out or cancelled while still waiting to be written: taken out of the
  // queue unsent (and no notifications/cancelled sent for them).
  uint64_t withdrawn_requests = 0;
  uint64_t unsent_cancellations = 0;  // notifications/cancelled over max_write_backlog_bytes
};

class McpClient {
 public:
  enum class State { kIdle, kStarting, kReady, kFailed, kClosing, kClosed };

  McpClient(boost::asio::io_context& io, McpClientOptions options);
  ~McpClient();
  McpClient(const McpClient&) = delete;
  McpClient& operator=(const McpClient&) = delete;

  // Spawns and initializes. `done` gets the raw `initialize` result on success. On
  // failure the client is kFailed and its child (if any) is being ended. Call once.
  void Start(CallCallback done);
  // tools/list, every page.
  void ListTools(CallCallback done);
  // tools/call with `name` and `arguments_json` (a JSON object's text; empty = omitted).
  // Returns the request's id for Cancel(), 0 when it was not sent (`done` then gets the
  // failure, posted).
  int64_t CallTool(std::string_view name, std::string_view arguments_json, CallOptions options,
                   CallCallback done);
  // Any request; `params_json` empty = omitted. For methods this class does not wrap.
  int64_t Request(std::string_view method, std::string_view params_json, CallOptions options,
                  CallCallback done);
  // Stops waiting for request `id` and completes it with kCancelled (posted). If its line is
  // still waiting to be written (the child is not reading) it is withdrawn, and the child
  // never sees the request; otherwise the child is sent notifications/cancelled with
  // `reason` and may still act on it. False when it is not pending (answered, failed, timed
  // out, or never sent).
  bool Cancel(int64_t id, std::string_view reason);
  // Fails pending calls with kShutdown, ends the child's group, reaps it, then calls
  // `done` (on the loop). Safe to call in any state, more than once.
  void Shutdown(std::function<void()> done);

  State state() const;
  pid_t pid() const;  // -1 before a successful spawn
  size_t pending_calls() const;
  // Bytes waiting to be written to the child (including the line being written).
  size_t write_backlog_bytes() const;
  const McpClientStats& stats() const;
  // The child's raw wait status once reaped.
  std::optional<int> wait_status() const;
  // Whether the child died of a signal Las sent it while it was alive (SIGTERM once its
  // stdout closed or at Shutdown, SIGKILL after the grace): the signal in wait_status() is
  // then Las's own, not its crash's or another process's. A child killed by someone else
  // with the same signal in the moment after Las sent it cannot be told apart.
  bool ended_by_las() const;

  class Impl;

 private:
  std::shared_ptr<Impl> impl_;
};

}  // namespace las::transport
