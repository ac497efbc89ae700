// Las's own tools (`las__*`): their catalog entries and their handlers.
//
// Each feature (onboarding, discovery, state, messages, grants, admin) adds its tools to
// one BuiltinTools table at start-up; the federation puts the definitions in the catalog
// and the gateway dispatches calls to the handlers. A handler answers through `done`
// exactly once, on the gateway's loop thread (it may append to the log first and answer
// when the append is durable).
//
// Threading: fill on one thread before serving; then read-only, handlers run on the loop.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tools/catalog.h"
#include "tools/mcp_endpoint.h"

namespace las::tools {

inline constexpr std::string_view kOnboardingTool = "las__onboarding";
inline constexpr std::string_view kOwnSurface = "las";

using BuiltinHandler = std::function<void(const SessionInfo& session,
                                          const std::string& arguments_json,
                                          std::function<void(ToolCallReply)> done)>;

// Ending one call of a Las tool early, when its client cancels it (notifications/
// cancelled): the handler says what ending it means (OnCancel), the gateway calls Cancel()
// at most once. The call is still answered through `done` (the endpoint drops the answer
// to a cancelled request). A call whose handler set nothing cannot be ended early.
// Loop thread only.
class BuiltinCancel {
 public:
  void OnCancel(std::function<void()> end) { end_ = std::move(end); }
  void Cancel() {
    std::function<void()> end = std::move(end_);
    end_ = nullptr;
    if (end) end();
  }

 private:
  std::function<void()> end_;
};

// What a handler added with AddWithCall learns of the one call it answers.
struct BuiltinCall {
  // The client's JSON-RPC id, as JSON text: a tool that makes a call of its own on the
  // client's behalf (las__call) makes it under this id, so that the trail names the
  // client's request and a notifications/cancelled for it reaches the inner call.
  std::string request_id_json;
  // Set for a tool added as cancellable, else nullptr.
  std::shared_ptr<BuiltinCancel> cancel;
  // Where the call's progress goes: empty unless the client asked (`_meta.progressToken`).
  // las__call hands it to the call it makes, as the direct call would have it.
  ProgressSink progress;
};

using CallHandler = std::function<void(const SessionInfo& session, const BuiltinCall& call,
                                       const std::string& arguments_json,
                                       std::function<void(ToolCallReply)> done)>;

enum class Cancellable { kNo, kYes };

class BuiltinTools {
 public:
  // `name` is the tool's own name ("onboarding"); it is listed as `las__<name>`.
  // `input_schema_json` must compile (trust/argument_schema.h): arguments are validated
  // against it before the handler runs. A second Add with the same name replaces the first.
  void Add(std::string name, std::string description, std::string input_schema_json,
           BuiltinHandler handler);
  // The same, for a handler that needs its call's request id, or whose calls can be ended
  // early (kYes: the gateway hands it a BuiltinCancel).
  void AddWithCall(std::string name, std::string description, std::string input_schema_json,
                   Cancellable cancellable, CallHandler handler);

  // The catalog entries, sorted by qualified name.
  std::vector<CatalogTool> Definitions() const;
  struct Handler {
    CallHandler call;
    // Added with Cancellable::kYes: the gateway hands it a BuiltinCancel. Otherwise its
    // BuiltinCall::cancel is nullptr: a call that cannot be ended early costs nothing for it.
    bool cancellable = false;
  };
  // The handler for `las__<name>`, or nullptr.
  const Handler* Find(std::string_view qualified_name) const;

  // Whether Las's own documentation (source las.docs) is served as MCP resources and
  // prompts right now (tools/docs_mcp.h); asked on the loop at every request. Unset: yes.
  void SetDocsEnabled(std::function<bool()> enabled) { docs_enabled_ = std::move(enabled); }
  bool DocsEnabled() const { return !docs_enabled_ || docs_enabled_(); }

  // The server is going away (ServerCore::Shutdown, on the loop, before the children are
  // ended): each feature ends the work it runs on threads of its own (`hook`), so that no
  // join waits for it. A call such work was for is answered with an error.
  void OnShutdown(std::function<void()> hook) { shutdown_hooks_.push_back(std::move(hook)); }
  void Shutdown() const {
    for (const auto& hook : shutdown_hooks_) hook();
  }

 private:
  struct Entry {
    CatalogTool definition;
    Handler handler;
  };
  void Put(std::string name, std::string description, std::string input_schema_json,
           Handler handler);
  std::map<std::string, Entry, std::less<>> entries_;  // by qualified name
  std::function<bool()> docs_enabled_;
  std::vector<std::function<void()>> shutdown_hooks_;
};

// A tools/call result whose content is one text item.
std::string TextResult(std::string_view text, bool is_error = false);
// A Las tool's refusal under policy: an error result naming a stable reason code (static
// text, nothing echoed), which the gateway records as ToolCallDenied with that reason.
ToolCallReply Refused(std::string_view reason);
// A tools/call result whose content is one text item holding `json_text`, and whose
// structuredContent is the same JSON object.
std::string JsonResult(const std::string& json_text);

}  // namespace las::tools
