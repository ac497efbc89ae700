#include "tools/release_draft.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <boost/asio/io_context.hpp>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>
#include <set>

#include "tools/credentials.h"
#include "tools/surface_launcher.h"
#include "tools/tool_listing_notes.h"
#include "tools/unpinned_code.h"
#include "transport/json_text.h"
#include "transport/mcp_client.h"
#include "trust/argument_schema.h"
#include "trust/digest.h"
#include "trust/interpreter_argv.h"
#include "trust/strict_json.h"
#include "trust/tool_binding_check.h"
#include "base/path_error.h"
#include "base/printable_text.h"
#include "base/unique_fd.h"

namespace las::tools {
namespace {

// "a", "b": schema texts as a note shows them.
std::string QuotedList(const std::vector<std::string>& texts) {
  std::string list;
  for (const std::string& text : texts) list += (list.empty() ? "\"" : ", \"") + EscapeForTerminal(text) + "\"";
  return list;
}

// SHA-256 of a regular file, read through the descriptor that was opened; its size goes to
// *size when given.
Result<trust::Sha256Digest> HashFile(const std::string& path, const std::string& what,
                                     uint64_t* size = nullptr) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (!fd.valid()) {
    if (errno == ENOENT) return NotFound(what + " " + path + " does not exist");
    return PathErrorStatus(errno, "cannot open " + what + " " + path);  // under a file: exit 2
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return IoError("cannot stat " + what + " " + path);
  if (!S_ISREG(st.st_mode)) return InvalidArgument(what + " " + path + " is not a regular file");
  if (static_cast<uint64_t>(st.st_size) > trust::kMaxLaunchedFileBytes) {
    return InvalidArgument(
        trust::LaunchedFileTooLarge(what, path, static_cast<uint64_t>(st.st_size)));
  }
  if (size != nullptr) *size = static_cast<uint64_t>(st.st_size);
  Result<trust::Sha256Digest> digest = trust::Sha256OfFile(fd.get(), trust::kMaxLaunchedFileBytes);
  if (!digest.ok()) return Status(digest.status().code(), what + " " + path + ": " + digest.status().message());
  return digest;
}

Status CheckRequest(const DraftRequest& request) {
  if (!trust::IsValidSurfaceName(request.surface)) {
    return InvalidArgument("\"" + request.surface +
                           "\" is not a surface name ([a-z0-9_-], 1 to 64, no \"__\", no \"_\" at the "
                           "end, not \"las\")");
  }
  if (request.argv.empty()) return InvalidArgument("no command given (after --)");
  if (request.argv[0].empty() || request.argv[0].front() != '/') {
    return InvalidArgument("the command \"" + request.argv[0] +
                           "\" must be an absolute path (e.g. /usr/bin/python3): the release "
                           "binds exactly one file");
  }
  if (request.cwd.empty() || request.cwd.front() != '/') {
    return InvalidArgument("the working directory must be an absolute path");
  }
  // A release holds them as JSON strings, which are UTF-8: other bytes are refused here,
  // named, not blamed afterwards on the manifest the writer could not make (probe AU5).
  for (size_t i = 0; i < request.argv.size(); ++i) {
    if (trust::FindInvalidUtf8(request.argv[i])) {
      return InvalidArgument((i == 0 ? std::string("the command") : "argument " + std::to_string(i)) +
                             " \"" + request.argv[i] + "\" is not valid UTF-8, which a release "
                             "cannot hold (rename the file or directory)");
    }
  }
  if (trust::FindInvalidUtf8(request.cwd)) {
    return InvalidArgument("the working directory \"" + request.cwd +
                           "\" is not valid UTF-8, which a release cannot hold");
  }
  std::set<std::string> seen;
  for (const std::string& name : request.env) {
    if (!trust::IsValidEnvName(name)) {
      return InvalidArgument(trust::QuotedEnvEntry(name) + " is not an environment variable name a child may "
                             "receive ([A-Za-z_][A-Za-z0-9_]*; PATH is fixed by Las; "
                             "LAS_CREDENTIAL_* only by injection into the tools that name them)");
    }
    // The release would carry it: refused naming the variable, never the value.
    if (const std::string* variable = VariableWhoseValueIs(name, request.policy.environment)) {
      return InvalidArgument("an --env name is the value of " + *variable +
                             " here: give the variable's name (--env " + *variable + ")");
    }
    if (!seen.insert(name).second) return InvalidArgument("--env " + name + " is given twice");
  }
  return Status::Ok();
}

// The values of the LAS_CREDENTIAL_* variables set here, each with the variable's name.
struct CredentialsHere {
  std::vector<std::string> names;
  std::vector<CredentialSpellings> spellings;
  std::vector<std::string> values;

  // The name of the first variable whose value `carries` finds, or nullptr.
  template <typename Carries>
  const std::string* Carried(Carries carries) const {
    for (size_t c = 0; c < names.size(); ++c) {
      if (carries(spellings[c])) return &names[c];
    }
    return nullptr;
  }
};

CredentialsHere CredentialsIn(const trust::Environment& environment) {
  CredentialsHere here;
  for (const auto& [name, value] : CredentialVariablesIn(environment)) {
    here.names.push_back(name);
    here.spellings.emplace_back(std::vector<std::string>{value});
    here.values.push_back(value);
  }
  return here;
}

// A tool that carries a credential value of this environment in its name, description or
// schema would put it in the release, which every client is shown and the log records
// (probe BE5): refused, naming the variable, never the value or the tool.
Status CheckNoCredentialListed(const std::string& surface, const std::vector<trust::LiveTool>& tools,
                               const CredentialsHere& credentials) {
  for (size_t i = 0; i < tools.size(); ++i) {
    const std::string* carried = credentials.Carried(
        [&](const CredentialSpellings& spellings) { return ToolDefinitionCarries(tools[i], spellings); });
    if (carried != nullptr) {
      return Denied("surface " + surface + ": the child's tool #" + std::to_string(i + 1) +
                    " carries the value of " + *carried +
                    " in its name, description or inputSchema; nothing was written (a "
                    "release shows its tools to every client and the log records them)");
    }
  }
  return Status::Ok();
}

// A command argument that holds a credential value of this environment would put it in the
// release, which the log records (probe JY1; `las serve` refuses such a release whole):
// refused before the child starts, naming the variable and the argument's position.
Status CheckNoCredentialInArguments(const std::string& surface, const std::vector<std::string>& argv,
                                    const CredentialsHere& credentials) {
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string argument = transport::QuoteJsonString(argv[i]);
    const std::string* carried = credentials.Carried(
        [&](const CredentialSpellings& spellings) { return spellings.EchoedIn(argument); });
    if (carried != nullptr) {
      return Denied("surface " + surface + ": the command's argument #" + std::to_string(i) +
                    " holds the value of " + *carried +
                    "; nothing was written (the log records a release's command; name the "
                    "credential in the tool's credential_templates instead)");
    }
  }
  return Status::Ok();
}

// The launch, run to completion on a private loop; the child is shut down and reaped
// before this returns.
SurfaceLaunch ProbeOnce(const trust::SurfaceBinding& binding, const DraftRequest& request,
                        const CredentialsHere& credentials) {
  boost::asio::io_context io;
  LaunchOptions options;
  options.policy = request.policy;
  options.probe_only = true;
  options.other_credentials = credentials.values;  // withheld from a failed launch's detail
  options.start_timeout_ms = request.start_timeout_ms;
  std::optional<SurfaceLaunch> outcome;
  LaunchSurface(io, binding, options, [&outcome](SurfaceLaunch launch) {
    outcome = std::move(launch);
    if (outcome->client) outcome->client->Shutdown([] {});
  });
  io.run();
  SurfaceLaunch result = std::move(*outcome);
  result.client.reset();  // after the loop: never inside the client's own callback
  return result;
}

}  // namespace

Result<DraftedSurface> DraftSurface(const DraftRequest& request) {
  LAS_RETURN_IF_ERROR(CheckRequest(request));
  DraftedSurface out;
  trust::SurfaceBinding& b = out.binding;
  b.name = request.surface;
  b.command = request.argv[0];
  b.cwd = request.cwd;
  b.argv = request.argv;
  b.env = request.env;
  uint64_t binary_size = 0;
  Result<trust::Sha256Digest> binary = HashFile(b.command, "command", &binary_size);
  if (!binary.ok()) return binary.status();
  b.binary_sha256 = *binary;

  // An interpreter runs its script: the release binds that file too (trust/interpreter_argv.h).
  const trust::Interpreter interpreter =
      trust::InterpreterOf(b.command, binary_size, b.binary_sha256, request.policy.node_executable);
  std::optional<size_t> script_index;
  if (interpreter != trust::Interpreter::kNone) {
    trust::VerdictOr<size_t> index = trust::ScriptOperandIndex(interpreter, b.argv, b.name);
    if (!index.ok()) return index.verdict().ToStatus();
    script_index = *index;
    std::string& operand = b.argv[*index];
    std::filesystem::path script(operand);
    if (script.is_relative()) {
      script = (std::filesystem::path(b.cwd) / script).lexically_normal();
      out.notes.push_back("argv[" + std::to_string(*index) + "] \"" + operand +
                          "\" was made absolute: " + script.string() +
                          " (the release binds absolute code paths)");
      operand = script.string();
    }
    Result<trust::Sha256Digest> code = HashFile(operand, "script");
    if (!code.ok()) return code.status();
    b.code = trust::CodeBinding{operand, *code};
    if (interpreter == trust::Interpreter::kPython) {
      if (auto venv = VirtualEnvNote(b.command)) out.notes.push_back(*venv);
    }
  } else if (auto unpinned = UnpinnedCodeNote(b.command)) {
    out.notes.push_back(*unpinned);
  }
  for (std::string& note : UnboundFileNotes(b.argv, b.cwd, script_index)) {
    out.notes.push_back(std::move(note));
  }

  const CredentialsHere credentials = CredentialsIn(request.policy.environment);
  LAS_RETURN_IF_ERROR(CheckNoCredentialInArguments(b.name, b.argv, credentials));
  SurfaceLaunch launch = ProbeOnce(b, request, credentials);
  if (!launch.ok) {
    // The launch checks' details name the surface themselves: said once (probe BA3).
    const std::string who = "surface " + b.name + ": ";
    const std::string detail =
        launch.detail.starts_with(who) ? launch.detail.substr(who.size()) : launch.detail;
    const std::string message = who + launch.reason + ": " + detail;
    if (launch.reason == kReasonStartFailed || launch.reason == kReasonListFailed) {
      return IoError(message);
    }
    if (launch.reason == "file-missing") return NotFound(message);
    // A cwd or workspace that is a file, or under one: the operator's path mistake, exit 2
    // rather than a launch refusal (probe BI3).
    if (launch.reason == trust::ReasonName(trust::Reason::kFilePathInvalid)) {
      return InvalidArgument(message);
    }
    return Denied(message);
  }

  LAS_RETURN_IF_ERROR(CheckNoCredentialListed(b.name, launch.live_tools, credentials));
  std::set<std::string> names;
  for (const trust::LiveTool& live : launch.live_tools) {
    if (!trust::IsValidToolName(live.name)) {
      return InvalidArgument("surface " + b.name + ": the child lists tool \"" +
                             trust::ShownChildName(live.name) +
                             "\", a name no manifest can bind ([A-Za-z0-9_.-], 1 to 128 bytes)");
    }
    if (!names.insert(live.name).second) {
      return InvalidArgument("surface " + b.name + ": the child lists tool \"" + live.name +
                             "\" twice");
    }
    Result<trust::Sha256Digest> schema = trust::InputSchemaDigest(live.input_schema_json);
    if (!schema.ok()) {
      return InvalidArgument("surface " + b.name + ": tool \"" + live.name +
                             "\": inputSchema: " + schema.status().message());
    }
    // A digest that cannot tell this schema from its neighbours binds nothing.
    if (Status bindable = trust::CheckSchemaIntegers(live.input_schema_json); !bindable.ok()) {
      return Unsupported("surface " + b.name + ": tool \"" + live.name + "\": " + bindable.message());
    }
    // Signed all the same (the release binds what the child serves), but the operator
    // learns now what `las serve` will do with it.
    const Result<trust::ArgumentSchema> compiled = trust::CompileToolInputSchema(live.input_schema_json);
    if (!compiled.ok()) {
      out.notes.push_back("tool " + live.name + " will be left out by las serve (" +
                          std::string(trust::kSchemaUnsupported) +
                          "): its inputSchema cannot be checked: " + compiled.status().message());
    } else if (!compiled->unknown_keywords().empty()) {
      out.notes.push_back("tool " + live.name + ": its inputSchema uses " +
                          QuotedList(compiled->unknown_keywords()) +
                          ", no JSON Schema keyword (misspelt? another dialect's?): no validator "
                          "checks what it says, Las's neither");
    }
    if (compiled.ok() && !compiled->unchecked_formats().empty()) {
      out.notes.push_back("tool " + live.name + ": its inputSchema's format " +
                          QuotedList(compiled->unchecked_formats()) +
                          " is not checked by Las (only date, time and date-time are): a "
                          "value it refuses reaches the tool");
    }
    Result<trust::Sha256Digest> description = trust::DescriptionDigest(live.description);
    if (!description.ok()) {
      return InvalidArgument("surface " + b.name + ": tool \"" + live.name +
                             "\": description: " + description.status().message());
    }
    b.tools.push_back(trust::ToolBinding{live.name, *schema, *description, {}});
  }
  if (b.tools.size() > trust::kMaxToolsPerSurface) {
    return InvalidArgument("surface " + b.name + ": the child lists more than " +
                           std::to_string(trust::kMaxToolsPerSurface) + " tools");
  }
  std::sort(b.tools.begin(), b.tools.end(),
            [](const trust::ToolBinding& x, const trust::ToolBinding& y) { return x.name < y.name; });
  for (std::string& note : ToolListingNotes(b.name, launch.live_tools)) out.notes.push_back(std::move(note));
  for (const std::string& name : b.env) {
    if (request.policy.environment.find(name) == request.policy.environment.end()) {
      out.notes.push_back("--env " + name + " is not set here: the child ran without it");
    }
  }
  return out;
}

void MergeSurface(trust::Manifest& manifest, trust::SurfaceBinding drafted,
                  std::vector<std::string>* notes) {
  auto same_name = [&](const trust::SurfaceBinding& s) { return s.name == drafted.name; };
  auto existing = std::find_if(manifest.surfaces.begin(), manifest.surfaces.end(), same_name);
  if (existing != manifest.surfaces.end()) {
    for (const trust::ToolBinding& old_tool : existing->tools) {
      if (old_tool.credential_templates.empty()) continue;
      auto kept = std::find_if(drafted.tools.begin(), drafted.tools.end(),
                               [&](const trust::ToolBinding& t) { return t.name == old_tool.name; });
      if (kept == drafted.tools.end()) {
        if (notes) {
          notes->push_back("tool " + old_tool.name +
                           " had credential templates and is gone from the child's tools/list");
        }
        continue;
      }
      kept->credential_templates = old_tool.credential_templates;
      if (notes) {
        notes->push_back("kept the credential templates of tool " + old_tool.name + " (" +
                         std::to_string(old_tool.credential_templates.size()) + ")");
      }
    }
    *existing = std::move(drafted);
  } else {
    manifest.surfaces.push_back(std::move(drafted));
  }
  std::sort(manifest.surfaces.begin(), manifest.surfaces.end(),
            [](const trust::SurfaceBinding& x, const trust::SurfaceBinding& y) {
              return x.name < y.name;
            });
}

}  // namespace las::tools
