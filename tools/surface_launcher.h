// Launching one signed surface: the launch checks, spawning exactly the checked bytes,
// the MCP handshake and the comparison of the live tools/list with what was signed.
// Shared by federation (`las serve`, `las list`), `las check` and `las release draft`.
//
//   PlanLaunch (trust/launch_policy.h)  -> workspace, command, digests; fds kept open
//   McpClient::Start                    -> the child runs the plan's binary descriptor
//                                          (fexecve), cwd via the checked directory fd
//   ListTools                           -> every page
//   CheckToolList (unless probing)      -> names, schema and description digests
//
// Threading: call on the io_context's thread; `done` runs on it (also when the checks ran
// off the loop: LaunchOptions::plan_off_loop). The McpClient in the result lives on that
// io_context and must be destroyed before it.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tools/capability_item.h"
#include "trust/launch_policy.h"
#include "trust/manifest.h"
#include "trust/reason.h"
#include "trust/tool_binding_check.h"

namespace boost::asio {
class io_context;
}
namespace las::transport {
class McpClient;
class ProcessSpawner;
}

namespace las::tools {

// Stable reason codes for failures that are not trust verdicts (the child itself failed).
inline constexpr std::string_view kReasonStartFailed = "start-failed";
inline constexpr std::string_view kReasonListFailed = "list-failed";
// A signed tool's name, description or inputSchema carries a credential value Las injects
// (one of kMinCrossSurfaceCredentialBytes or more, this surface's or another's): served,
// it would reach every client and the log.
inline constexpr std::string_view kReasonCredentialInDefinition = "credential-in-definition";

struct SurfaceLaunch {
  std::string surface;
  bool ok = false;
  // Why not: a trust reason name ("digest-mismatch", "tools-mismatch", ...) or
  // kReasonStartFailed / kReasonListFailed; `detail` is for operators (no child text).
  std::string reason;
  std::string detail;
  // When the child could not be spawned: Las's own step and errno ("pipe: Too many open
  // files"), never the child's text, so a server's stderr may name it (probe FH3).
  std::string spawn_failure;
  std::unique_ptr<transport::McpClient> client;  // ready when ok
  std::vector<trust::LiveTool> live_tools;       // as the child listed them
  // After tools/list passed: the child's resources/list and prompts/list (first page, at
  // most kMaxListedItems each). Optional: an error answer ("Method not found" from a
  // tool-only child) or no answer means none, never a failed launch. Not asked in probe mode.
  std::vector<CapabilityItem> prompts;
  std::vector<CapabilityItem> resources;
  // Tool name -> display title (`title` or `annotations.title`), when the child gave one,
  // at most kMaxTitleBytes. Unsigned: used for search ranking only. Titles, prompts and
  // resources that carry a credential value Las injects into the surface are dropped, and
  // a `detail` that would is withheld.
  std::map<std::string, std::string> titles;
};

inline constexpr size_t kMaxListedItems = 1000;
// A child's tool title is kept to this many bytes (cut at a character boundary).
inline constexpr size_t kMaxTitleBytes = 256;

struct LaunchOptions {
  trust::LaunchPolicy policy;
  // Probe mode (`las release draft`): skip CheckToolList; the surface binding's tools are
  // not yet known.
  bool probe_only = false;
  // initialize; all of tools/list; resources/list and prompts/list (at most 5 s each)
  int64_t start_timeout_ms = 30'000;
  // "NAME=value" entries the child receives besides the plan's declared variables (a
  // special policy's own configuration, e.g. finance's paths: docs/POLICIES.md). A name
  // the plan already sets keeps the plan's value.
  std::vector<std::string> extra_env;
  // Credential values besides the surface's own that nothing the child sends may carry
  // into a detail: those of the other surfaces of the release (CrossSurfaceCredentialValues),
  // since a child can hand back another's (probe BD1). In probe mode the surface has no
  // bound tools and so no values of its own: these are the only ones looked for.
  std::vector<std::string> other_credentials;
  // The child exited by itself after the launch succeeded (transport/mcp_client.h).
  std::function<void()> on_child_gone;
  // Starts the child from the plan's descriptors. Not owned; null: the real spawner.
  transport::ProcessSpawner* spawner = nullptr;
  // Runs a job on another thread (an OffLoopRunner, tools/worker_thread.h): the launch
  // checks (PlanLaunch: opening and hashing the child's files, about a second per GiB) run
  // there and the launch goes on back on the loop, so a server's sessions are served
  // meanwhile (probe EX1: hashing a swapped-in 16 GiB file held every session 47 s). The
  // start timeout counts from the checks' end. Null: the checks run at once, on the
  // caller's thread (one-shot commands).
  std::function<void(std::function<void()> job)> plan_off_loop;
};

// Returns the launch's abort: while the launch is under way it ends the child (as
// McpClient::Shutdown does), and `done` then reports a failed launch; afterwards it does
// nothing. Call it on the io_context's thread.
std::function<void()> LaunchSurface(boost::asio::io_context& io,
                                    const trust::SurfaceBinding& surface,
                                    const LaunchOptions& options,
                                    std::function<void(SurfaceLaunch)> done);

// Parses a tools/list result array (raw JSON text, as McpClient::ListTools returns it).
// InvalidArgument if it is not strict JSON (trust/strict_json.h: no repeated key) or not an
// array of objects with a string `name` and an object `inputSchema`.
Result<std::vector<trust::LiveTool>> ParseLiveTools(std::string_view tools_json);
// Parses a resources/list or prompts/list result object (`key` is "resources" or
// "prompts"): entries with a string name (resources: and uri) are kept, others skipped;
// at most kMaxListedItems. Anything that is not such an object gives an empty list. The
// text is the child's own and reaches models and terminals (probe BQ1): an entry whose
// name, uri or mimeType is not printable (base/printable_text.h) or longer than
// kMaxItemNameBytes (a uri: kMaxItemUriBytes) is skipped; a description that is not
// printable text (line breaks and tabs allowed) is dropped. An entry whose uri is in Las's
// own scheme (`las:`, any case) is skipped. Descriptions are kept whole
// here: a launch cuts them to kMaxItemDescriptionBytes after its credential check.
inline constexpr size_t kMaxItemNameBytes = 256;
inline constexpr size_t kMaxItemUriBytes = 2048;
inline constexpr size_t kMaxItemDescriptionBytes = 1024;
std::vector<CapabilityItem> ParseCapabilityList(std::string_view result_json,
                                                std::string_view key);
// Whether an initialize result's `capabilities` object has the member `capability`
// ("resources", "prompts"): MCP servers declare what they serve, and a client asks for no
// more (a child that declares only tools may never answer resources/list).
bool DeclaresCapability(std::string_view initialize_result_json, std::string_view capability);
// Tool name -> title from a tools/list result array (`title`, else `annotations.title`);
// a title that is not printable text (base/printable_text.h) is left out.
std::map<std::string, std::string> ParseToolTitles(std::string_view tools_json);

}  // namespace las::tools
