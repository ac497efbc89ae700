#include "tests/support/sample_events.h"

#include <algorithm>

#include "log/event_builder.h"

namespace las::testing {
namespace {

using log::EventBuilder;
namespace fb = las::fb;

std::string Tag(const char* what, int index) { return std::string(what) + "-" + std::to_string(index); }


template <typename MakePayload>
log::EventDraft Make(int index, MakePayload make) {
  EventBuilder b;
  auto payload = make(b.fbb());
  return b.Finish(payload, Tag("agent", index), Tag("session", index));
}

std::vector<flatbuffers::Offset<fb::ToolDigest>> Tools(flatbuffers::FlatBufferBuilder& f, int index) {
  return {fb::CreateToolDigestDirect(f, Tag("echo", index).c_str(), "aa11", "bb22"),
          fb::CreateToolDigestDirect(f, Tag("add", index).c_str(), "cc33", "dd44")};
}

}  // namespace

std::vector<log::EventDraft> OneOfEveryKind(int i) {
  const auto u = static_cast<uint64_t>(i);
  std::vector<uint8_t> manifest = {'{', '}', static_cast<uint8_t>(i)};
  std::vector<uint8_t> signature(64, static_cast<uint8_t>(i + 1));
  std::vector<log::EventDraft> out;
  out.push_back(Make(i, [&](auto& f) {
    return fb::CreateReleaseAcceptedDirect(f, Tag("key", i).c_str(), 10 + u, &manifest, &signature,
                                           "m256", "2027-01-01T00:00:00Z");
  }));
  out.push_back(Make(i, [&](auto& f) {
    return fb::CreateReleaseRejectedDirect(f, Tag("key", i).c_str(), 9 + u, "m256", "rollback",
                                           "sequence 9 is below watermark 10");
  }));
  out.push_back(Make(i, [&](auto& f) {
    return fb::CreateWatermarkAdvancedDirect(f, Tag("key", i).c_str(), 9 + u, 10 + u, "m256");
  }));
  out.push_back(Make(i, [&](auto& f) {
    auto tools = Tools(f, i);
    return fb::CreateSurfaceAdmittedDirect(f, Tag("weles", i).c_str(), "key", 10 + u,
                                           "/usr/bin/python3", "b256", "c256", &tools);
  }));
  out.push_back(Make(i, [&](auto& f) {
    return fb::CreateSurfaceRejectedDirect(f, Tag("tama", i).c_str(), 10 + u, "tools-mismatch",
                                           "extra tool");
  }));
  out.push_back(Make(i, [&](auto& f) {
    auto tools = Tools(f, i);
    return fb::CreateCatalogLoadedDirect(f, Tag("weles", i).c_str(), &tools);
  }));
  out.push_back(Make(i, [&](auto& f) {
    return fb::CreateSessionOpenedDirect(f, "2024-11-05", Tag("client", i).c_str(), "1.0", "stdio", i % 2 == 1);
  }));
  out.push_back(Make(i, [&](auto& f) { return fb::CreateSessionClosedDirect(f, "eof"); }));
  out.push_back(Make(i, [&](auto& f) {
    return fb::CreateToolCallRequestedDirect(f, Tag("call", i).c_str(), "weles", "echo", "d256",
                                             R"({"text":"hi"})", 13, false, "7");
  }));
  out.push_back(Make(i, [&](auto& f) {
    return fb::CreateToolCallCompletedDirect(f, Tag("call", i).c_str(), fb::CallOutcome::ToolError,
                                             R"({"content":[]})", 14, true, 1234 + i, "tool_error");
  }));
  out.push_back(Make(i, [&](auto& f) {
    return fb::CreateToolCallDeniedDirect(f, Tag("call-d", i).c_str(), "finance", "pay", "no-grant");
  }));
  out.push_back(Make(i, [&](auto& f) { return fb::CreateSourceEnabledDirect(f, Tag("src", i).c_str()); }));
  out.push_back(Make(i, [&](auto& f) {
    return fb::CreateSourceDisabledDirect(f, Tag("src", i).c_str(), "operator");
  }));
  out.push_back(Make(i, [&](auto& f) {
    std::vector<flatbuffers::Offset<fb::GrantSelector>> selectors = {
        fb::CreateGrantSelectorDirect(f, "weles", "echo", "d256")};
    return fb::CreateGrantIssuedDirect(f, Tag("grant", i).c_str(), "agent-b", "grant-0", false,
                                       &selectors);
  }));
  out.push_back(Make(i, [&](auto& f) {
    return fb::CreateGrantRevokedDirect(f, Tag("grant", i).c_str(), "operator");
  }));
  out.push_back(Make(i, [&](auto& f) {
    return fb::CreatePermissionRuleAddedDirect(f, Tag("rule", i).c_str(), "agent-a", "weles",
                                               "echo", "d256");
  }));
  out.push_back(Make(i, [&](auto& f) {
    return fb::CreatePermissionRuleRemovedDirect(f, Tag("rule", i).c_str());
  }));
  out.push_back(Make(i, [&](auto& f) {
    return fb::CreateStateWrittenDirect(f, fb::StateScope::Blackboard, "", Tag("key", i).c_str(),
                                        3 + u, "replace", "[1,2]", "v256");
  }));
  out.push_back(Make(i, [&](auto& f) {
    return fb::CreateMessageSentDirect(f, Tag("msg", i).c_str(), "agent-b", "hello", R"({"x":1})");
  }));
  out.push_back(Make(i, [&](auto& f) { return fb::CreateMessageReadDirect(f, Tag("msg", i).c_str()); }));
  out.push_back(Make(i, [&](auto& f) {
    return fb::CreateMessageCompletedDirect(f, Tag("msg", i).c_str());
  }));
  out.push_back(Make(i, [&](auto& f) {
    return fb::CreateMessageDeferredDirect(f, Tag("msg", i).c_str(), 99 + i);
  }));
  out.push_back(Make(i, [&](auto& f) {
    return fb::CreateOnboardingStepCompletedDirect(f, "trust-store", "present and safe");
  }));
  out.push_back(Make(i, [&](auto& f) {
    return fb::CreateOnboardingStepResetDirect(f, "trust-store", "re-check failed",
                                               "/x/trust.json is mode 0640");
  }));
  out.push_back(Make(i, [&](auto& f) {
    const std::vector<uint8_t> content = {'{', '}'};
    return fb::CreateHandleCreatedDirect(f, Tag("handle", i).c_str(), "agent-a",
                                         "application/json", content.size(), "c256", &content);
  }));
  out.push_back(Make(i, [&](auto& f) {
    return fb::CreateToolWithheldDirect(f, "tama", "install_hook", "policy-tool-not-allowed");
  }));
  out.push_back(Make(i, [&](auto& f) {
    return fb::CreateSurfaceStoppedDirect(f, "lem", "child-exited", "exit status 3", 1000 + i);
  }));
  out.push_back(Make(i, [&](auto& f) {
    return fb::CreateSessionRefusedDirect(f, "skarbiec-agent-id", "2024-11-05",
                                          Tag("client", i).c_str(), "1.0", "stdio");
  }));
  return out;
}

std::vector<log::EventDraft> SampleSession(const std::string& session) {
  const std::string agent = "demo-agent";
  std::vector<log::EventDraft> drafts;
  {
    EventBuilder b;
    drafts.push_back(b.Finish(
        fb::CreateSessionOpenedDirect(b.fbb(), "2024-11-05", "las-demo", "0.1.0", "stdio"),
        agent, session));
  }
  const char* calls[][3] = {{"weles", "navigate", R"({"url":"file:///tmp/index.html"})"},
                            {"stado", "quota", R"({"pool":"default"})"},
                            {"lem", "search", R"({"query":"provenance"})"}};
  int n = 0;
  for (const auto& [surface, tool, args] : calls) {
    const std::string call_id = session + "-call-" + std::to_string(++n);
    EventBuilder req;
    drafts.push_back(req.Finish(
        fb::CreateToolCallRequestedDirect(req.fbb(), call_id.c_str(), surface, tool, "",
                                          args, std::char_traits<char>::length(args), false,
                                          std::to_string(n).c_str()),
        agent, session));
    EventBuilder done;
    drafts.push_back(done.Finish(
        fb::CreateToolCallCompletedDirect(done.fbb(), call_id.c_str(), fb::CallOutcome::Ok,
                                          R"({"content":[{"type":"text","text":"ok"}]})", 41,
                                          false, 250 * n, ""),
        agent, session));
  }
  {
    EventBuilder b;
    const std::string call_id = session + "-call-denied";
    drafts.push_back(b.Finish(fb::CreateToolCallDeniedDirect(b.fbb(), call_id.c_str(), "finance",
                                                             "finance_execute", "not-allowlisted"),
                              agent, session));
  }
  {
    EventBuilder b;
    drafts.push_back(b.Finish(fb::CreateSessionClosedDirect(b.fbb(), "eof"), agent, session));
  }
  return drafts;
}

log::EventDraft SampleToolCallRequested(uint64_t n) {
  EventBuilder b;
  const std::string call = "call-" + std::to_string(n);
  auto payload = fb::CreateToolCallRequestedDirect(
      b.fbb(), call.c_str(), "weles", "echo",
      "3f1c0a8e5b7d2a4c9e6f1b3d5a7c9e0f2b4d6f8a0c2e4a6c8e0a2c4e6a8c0e2a",
      R"({"message":"hello from the benchmark","n":42})", 46, false, std::to_string(n).c_str());
  return b.Finish(payload, "agent-main", "session-0001");
}

log::EventDraft SampleToolCallCompleted(uint64_t n) {
  EventBuilder b;
  const std::string call = "call-" + std::to_string(n);
  auto payload = fb::CreateToolCallCompletedDirect(
      b.fbb(), call.c_str(), fb::CallOutcome::Ok,
      R"({"content":[{"type":"text","text":"Echo: hello from the benchmark"}]})", 72, false,
      180, "");
  return b.Finish(payload, "agent-main", "session-0001");
}

log::EventDraft SampleCallEvent(uint64_t i) {
  return i % 2 == 0 ? SampleToolCallRequested(i / 2) : SampleToolCallCompleted(i / 2);
}

Status AppendSampleCalls(log::EventLog& log, uint64_t n, log::Durability durability) {
  for (uint64_t first = 0; first < n; first += 256) {
    std::vector<log::EventDraft> batch;
    for (uint64_t i = first; i < std::min<uint64_t>(n, first + 256); ++i) {
      batch.push_back(SampleCallEvent(i));
    }
    auto appended = log.Append(std::move(batch), durability);
    if (!appended.ok()) return appended.status();
  }
  return Status::Ok();
}

}  // namespace las::testing
