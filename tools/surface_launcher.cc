#include "tools/surface_launcher.h"

#include <algorithm>
#include <cctype>
#include <optional>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <nlohmann/json.hpp>

#include "base/printable_text.h"
#include "tools/credentials.h"
#include "tools/decision_events.h"
#include "transport/json_text.h"
#include "transport/mcp_client.h"
#include "trust/strict_json.h"

namespace las::tools {

Result<std::vector<trust::LiveTool>> ParseLiveTools(std::string_view tools_json) {
  // Strict first: with a repeated key, two readers of the same list could see different
  // tools (nlohmann keeps the last). The detail names no child text.
  trust::StrictJsonLimits limits;
  limits.max_bytes = std::max(limits.max_bytes, tools_json.size());
  if (!trust::CheckStrictJson(tools_json, limits).ok()) {
    return InvalidArgument(
        "tools/list is not strict JSON (a repeated key, a raw NUL, a number beyond a double or "
        "nesting deeper than 64)");
  }
  // Ordered: a schema is served with its members in the child's order, which models and
  // form-building clients follow (probe IW3: they came out sorted by name). Its digest is
  // of its canonical form, whatever the order.
  const auto tools = nlohmann::ordered_json::parse(tools_json, nullptr, /*allow_exceptions=*/false);
  if (!tools.is_array()) return InvalidArgument("tools/list did not return an array");
  std::vector<trust::LiveTool> live;
  for (const auto& tool : tools) {
    if (!tool.is_object()) return InvalidArgument("a tools/list entry is not an object");
    auto name = tool.find("name");
    auto schema = tool.find("inputSchema");
    if (name == tool.end() || !name->is_string()) {
      return InvalidArgument("a tools/list entry has no string name");
    }
    // A schema that is no object schema leaves its tool out at admission
    // (schema-unsupported), not the whole surface (probe GL5).
    if (schema == tool.end()) return InvalidArgument("a tools/list entry has no inputSchema");
    trust::LiveTool entry;
    entry.name = name->get<std::string>();
    entry.input_schema_json = schema->dump();
    if (auto description = tool.find("description");
        description != tool.end() && !description->is_null()) {
      if (!description->is_string()) {
        return InvalidArgument("a tools/list entry has a non-string description");
      }
      entry.description = description->get<std::string>();
    }
    if (auto execution = tool.find("execution"); execution != tool.end() && execution->is_object()) {
      const auto support = execution->find("taskSupport");
      entry.requires_tasks = support != execution->end() && *support == "required";
    }
    live.push_back(std::move(entry));
  }
  return live;
}

std::map<std::string, std::string> ParseToolTitles(std::string_view tools_json) {
  std::map<std::string, std::string> titles;
  const auto tools = nlohmann::json::parse(tools_json, nullptr, /*allow_exceptions=*/false);
  if (!tools.is_array()) return titles;
  for (const auto& tool : tools) {
    if (!tool.is_object()) continue;
    auto name = tool.find("name");
    if (name == tool.end() || !name->is_string()) continue;
    // Unsigned, child-chosen text that reaches the model (las__search): only printable text,
    // no control or bidirectional characters (probe O2-4). The top-level title first, else
    // the annotations' (also when the top-level one is not printable: probe IN1).
    auto printable = [](const nlohmann::json& owner) -> const std::string* {
      auto title = owner.find("title");
      if (title == owner.end() || !title->is_string()) return nullptr;
      return IsPrintableText(title->get_ref<const std::string&>()) ? &title->get_ref<const std::string&>()
                                                                   : nullptr;
    };
    const std::string* title = printable(tool);
    if (auto annotations = tool.find("annotations");
        title == nullptr && annotations != tool.end() && annotations->is_object()) {
      title = printable(*annotations);
    }
    if (title != nullptr) titles[name->get<std::string>()] = *title;
  }
  return titles;
}

bool DeclaresCapability(std::string_view initialize_result_json, std::string_view capability) {
  const auto result = nlohmann::json::parse(initialize_result_json, nullptr, /*allow_exceptions=*/false);
  if (!result.is_object()) return false;
  auto capabilities = result.find("capabilities");
  return capabilities != result.end() && capabilities->is_object() &&
         capabilities->contains(std::string(capability));
}

namespace {

bool IsLasUri(std::string_view uri) {
  constexpr std::string_view kScheme = "las:";
  if (uri.size() < kScheme.size()) return false;
  for (size_t i = 0; i < kScheme.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(uri[i])) != kScheme[i]) return false;
  }
  return true;
}

}  // namespace

std::vector<CapabilityItem> ParseCapabilityList(std::string_view result_json,
                                                std::string_view key) {
  std::vector<CapabilityItem> items;
  const auto result = nlohmann::json::parse(result_json, nullptr, /*allow_exceptions=*/false);
  if (!result.is_object()) return items;
  auto list = result.find(std::string(key));
  if (list == result.end() || !list->is_array()) return items;
  auto text = [](const nlohmann::json& entry, const char* field) {
    auto it = entry.find(field);
    return it != entry.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  auto shown = [](const std::string& field, size_t limit) {
    return field.size() <= limit && IsPrintableText(field);
  };
  for (const auto& entry : *list) {
    if (items.size() >= kMaxListedItems) break;
    if (!entry.is_object()) continue;
    CapabilityItem item{text(entry, "name"), text(entry, "description"), text(entry, "uri"),
                        text(entry, "mimeType")};
    if (item.name.empty() && !item.uri.empty()) item.name = item.uri;
    if (item.name.empty() || (key == "resources" && item.uri.empty())) continue;
    // `las:` is Las's own scheme (its docs, las://docs/...): a child's entry cannot claim an
    // address that reads Las's document, not the child's (probe FC4).
    if (IsLasUri(item.uri)) continue;
    if (!shown(item.name, kMaxItemNameBytes) || !shown(item.uri, kMaxItemUriBytes) ||
        !shown(item.mime_type, kMaxItemNameBytes)) {
      continue;
    }
    std::string flat = item.description;
    std::replace_if(flat.begin(), flat.end(), [](char c) { return c == '\n' || c == '\t'; }, ' ');
    // Whole: the credential check comes first (KeepSafeExtras), then the bound.
    if (!IsPrintableText(flat)) item.description.clear();
    items.push_back(std::move(item));
  }
  return items;
}

namespace {

constexpr int64_t kExtraListTimeoutMs = 5'000;

// Everything one launch needs until its last callback: the plan's descriptors stay open
// until the child has been started from them.
struct LaunchState : std::enable_shared_from_this<LaunchState> {
  boost::asio::io_context* io = nullptr;
  const trust::SurfaceBinding* surface = nullptr;
  bool declares_resources = false;
  bool declares_prompts = false;
  int extras_left = 0;
  trust::LaunchPlan plan;
  SurfaceLaunch result;
  std::function<void(SurfaceLaunch)> done;
  // The values Las injects into this surface's tools and any other's (CredentialValuesOf,
  // LaunchOptions::other_credentials): child text that carries one is neither recorded nor
  // served.
  CredentialSpellings credentials{{}};
  // Those of them long enough to look for in the signed definitions (a short one, a PIN,
  // would match a schema's number or a description's word by chance).
  CredentialSpellings definition_credentials{{}};

  bool CarriesCredential(std::string_view text) const {
    return !credentials.empty() && credentials.EchoedIn(transport::QuoteJsonString(text));
  }

  bool ListedNameCarriesCredential() const {
    return std::any_of(result.live_tools.begin(), result.live_tools.end(),
                       [this](const trust::LiveTool& tool) { return CarriesCredential(tool.name); });
  }

  // The manifest index of the first signed tool whose definition carries a credential.
  std::optional<size_t> SignedToolCarryingCredential() const {
    for (const trust::LiveTool& tool : result.live_tools) {
      if (!ToolDefinitionCarries(tool, definition_credentials)) continue;
      for (size_t i = 0; i < surface->tools.size(); ++i) {
        if (surface->tools[i].name == tool.name) return i;
      }
    }
    return std::nullopt;
  }

  // The child's own text that Las keeps after the tool check — titles, prompt and resource
  // entries — unsigned: bounded, and dropped where it carries a credential.
  void KeepSafeExtras() {
    for (auto it = result.titles.begin(); it != result.titles.end();) {
      if (CarriesCredential(it->second)) {
        it = result.titles.erase(it);
        continue;
      }
      it->second = Bound(it->second, kMaxTitleBytes).text;
      ++it;
    }
    for (auto* items : {&result.prompts, &result.resources}) {
      std::erase_if(*items, [this](const CapabilityItem& item) {
        return CarriesCredential(item.name) || CarriesCredential(item.description) ||
               CarriesCredential(item.uri) || CarriesCredential(item.mime_type);
      });
      // Cut only once checked whole: a cut through a credential would keep its first bytes
      // (probe BR1).
      for (CapabilityItem& item : *items) {
        item.description = Bound(item.description, kMaxItemDescriptionBytes).text;
      }
    }
  }

  bool aborted = false;
  bool planning = false;  // the checks run off the loop (LaunchOptions::plan_off_loop)
  LaunchOptions launch;  // as LaunchSurface was given it

  // With the launch checks' verdict, on the loop: starts the child from the plan.
  void Planned(trust::VerdictOr<trust::LaunchPlan> checked);

  void Finish(bool ok, std::string_view reason, std::string detail) {
    if (ok) KeepSafeExtras();
    // A detail may quote the child (an extra tool's name): never a credential it has seen.
    // The detail cuts a name to 128 bytes, which can cut through a credential (or keep all
    // but its last byte), so every name the child listed is checked whole (probe CR1).
    if (!detail.empty() && (CarriesCredential(detail) || ListedNameCarriesCredential())) {
      detail = "the detail names something the child sent that carries a credential value "
               "Las injects; it is withheld";
    }
    if (ok && result.client &&
        (aborted || result.client->state() != transport::McpClient::State::kReady)) {
      // Its client cannot serve: a launch is admitted only with its child alive.
      return Fail(kReasonStartFailed, aborted ? "the launch was aborted"
                                              : "the child exited before its launch ended");
    }
    result.ok = ok;
    result.reason = std::string(reason);
    result.detail = std::move(detail);
    auto callback = std::move(done);
    callback(std::move(result));
  }

  // resources/list and prompts/list at once, each only when the child declared it, each
  // given at most kExtraListTimeoutMs: they feed only the inventory and search, so a child
  // slow to answer them must not hold up every surface's start. Either may be missing
  // ("Method not found") or fail without failing the launch.
  void ListExtras() {
    extras_left = (declares_resources ? 1 : 0) + (declares_prompts ? 1 : 0);
    if (extras_left == 0) return Finish(true, "", "");
    if (declares_resources) ListExtra("resources/list", "resources", &result.resources);
    if (declares_prompts) ListExtra("prompts/list", "prompts", &result.prompts);
  }

  void ListExtra(const char* method, const char* key, std::vector<CapabilityItem>* items) {
    auto self = shared_from_this();
    transport::CallOptions options;
    const int64_t start_ms = launch.start_timeout_ms;
    options.timeout = std::chrono::milliseconds(
        start_ms > 0 ? std::min(start_ms, kExtraListTimeoutMs) : kExtraListTimeoutMs);
    result.client->Request(method, "", options, [self, key, items](transport::CallResult r) {
      if (r.ok()) *items = ParseCapabilityList(r.result, key);
      if (--self->extras_left == 0) self->Finish(true, "", "");
    });
  }

  // A failed launch ends its child (if one started) before reporting, so a rejected
  // surface never leaves a process behind.
  void Fail(std::string_view reason, std::string detail) {
    if (!result.client) return Finish(false, reason, std::move(detail));
    auto self = shared_from_this();
    result.client->Shutdown([self, reason = std::string(reason), detail = std::move(detail)] {
      // The client must not be destroyed inside its own callback: post it.
      boost::asio::post(*self->io, [self, reason, detail] {
        self->result.client.reset();
        self->Finish(false, reason, detail);
      });
    });
  }
};

void LaunchState::Planned(trust::VerdictOr<trust::LaunchPlan> checked) {
  planning = false;
  if (aborted) return;  // reported already; the plan's descriptors close with it
  if (!checked.ok()) {
    const trust::Verdict& verdict = checked.verdict();
    boost::asio::post(*io, [self = shared_from_this(), reason = std::string(verdict.reason_name()),
                            detail = verdict.detail()] { self->Finish(false, reason, detail); });
    return;
  }
  plan = std::move(*checked);
  auto state = shared_from_this();

  transport::McpClientOptions client_options;
  client_options.spawn.argv = state->plan.argv;
  // The checked directory itself, not its path: a swap after the check changes nothing.
  client_options.spawn.cwd = "/proc/self/fd/" + std::to_string(state->plan.cwd.get());
  client_options.spawn.env = state->plan.env;
  for (const std::string& entry : launch.extra_env) {
    const std::string name = entry.substr(0, entry.find('=') + 1);
    bool present = false;
    for (const std::string& have : client_options.spawn.env) present |= have.rfind(name, 0) == 0;
    if (!present) client_options.spawn.env.push_back(entry);
  }
  client_options.spawn.exec_fd = state->plan.binary.get();
  client_options.spawn.keep_fds = state->plan.inherit_fds;
  client_options.start_timeout = std::chrono::milliseconds(launch.start_timeout_ms);
  client_options.on_child_gone = launch.on_child_gone;
  client_options.spawner = launch.spawner;
  state->result.client = std::make_unique<transport::McpClient>(*io, std::move(client_options));

  state->result.client->Start([state](transport::CallResult started) {
    state->plan = trust::LaunchPlan{};  // the child runs; our copies of the fds can go
    if (!started.ok()) {
      // A spawn's failure is Las's own (a step and its errno: "pipe: Too many open files"),
      // never the child's text, and it is the cause an operator needs (probe BF2).
      const std::string why = started.error == transport::CallError::kSpawnFailed
                                  ? ": " + started.spawn_status.message()
                                  : "";
      if (started.error == transport::CallError::kSpawnFailed) {
        state->result.spawn_failure = started.spawn_status.message();
      }
      state->Fail(kReasonStartFailed,
                  "the child did not start or initialize (" +
                      std::string(transport::CallErrorName(started.error)) + why + ")");
      return;
    }
    state->declares_resources = DeclaresCapability(started.result, "resources");
    state->declares_prompts = DeclaresCapability(started.result, "prompts");
    state->result.client->ListTools([state](transport::CallResult listed) {
      if (!listed.ok()) {
        state->Fail(kReasonListFailed,
                    "tools/list failed (" + std::string(transport::CallErrorName(listed.error)) +
                        (listed.why.empty() ? "" : ": " + listed.why) + ")");
        return;
      }
      auto live = ParseLiveTools(listed.result);
      if (!live.ok()) {
        state->Fail(kReasonListFailed, live.status().message());
        return;
      }
      state->result.live_tools = std::move(*live);
      state->result.titles = ParseToolTitles(listed.result);
      if (!state->launch.probe_only) {
        trust::Verdict verdict = trust::CheckToolList(*state->surface, state->result.live_tools);
        if (!verdict.ok()) {
          state->Fail(verdict.reason_name(), verdict.detail());
          return;
        }
        if (std::optional<size_t> index = state->SignedToolCarryingCredential()) {
          state->Fail(kReasonCredentialInDefinition,
                      "the release's tools[" + std::to_string(*index) +
                          "] carries a credential value Las injects in its name, description "
                          "or inputSchema; the surface is left out so that neither clients nor "
                          "the log get it: sign a release without it");
          return;
        }
        state->ListExtras();
        return;
      }
      state->Finish(true, "", "");
    });
  });
}

}  // namespace

std::function<void()> LaunchSurface(boost::asio::io_context& io,
                                    const trust::SurfaceBinding& surface,
                                    const LaunchOptions& options,
                                    std::function<void(SurfaceLaunch)> done) {
  auto state = std::make_shared<LaunchState>();
  state->io = &io;
  state->surface = &surface;
  state->launch = options;
  state->result.surface = surface.name;
  state->done = std::move(done);
  std::vector<std::string> values =
      options.probe_only ? std::vector<std::string>{}
                         : CredentialValuesOf(surface, options.policy.environment);
  values.insert(values.end(), options.other_credentials.begin(), options.other_credentials.end());
  state->credentials = CredentialSpellings(values);
  std::erase_if(values, [](const std::string& value) {
    return value.size() < kMinCrossSurfaceCredentialBytes;
  });
  state->definition_credentials = CredentialSpellings(values);

  if (!options.plan_off_loop) {
    state->Planned(trust::PlanLaunch(surface, options.policy));
  } else {
    state->planning = true;
    // The job owns copies of what it reads; it hands its reference to the state over to
    // the loop, so that the state (and the client it may come to hold) ends on the loop.
    options.plan_off_loop([io = &io, state, surface, policy = options.policy]() mutable {
      auto plan = std::make_shared<trust::VerdictOr<trust::LaunchPlan>>(
          trust::PlanLaunch(surface, policy));
      boost::asio::post(*io, [state = std::move(state), plan] { state->Planned(std::move(*plan)); });
    });
  }
  // While the checks run off the loop, the launch ends at once; after, the pending
  // initialize or list fails with kShutdown, and the launch reports that.
  return [weak = std::weak_ptr<LaunchState>(state)] {
    auto launching = weak.lock();
    if (!launching || launching->aborted) return;
    if (launching->planning) {
      launching->aborted = true;
      boost::asio::post(*launching->io, [launching] {
        launching->Finish(false, kReasonStartFailed, "the launch was aborted");
      });
    } else if (launching->result.client) {
      launching->aborted = true;
      launching->result.client->Shutdown([] {});
    }
  };
}

}  // namespace las::tools
