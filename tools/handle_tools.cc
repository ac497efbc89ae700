// las__handle_read: the owner reads a handle back in bounded spans
// (tools/coordination_tools.h, tools/handle_refs.h).
#include <string>

#include "tools/coordination_tools.h"
#include "tools/exact_json_result.h"
#include "tools/gateway.h"
#include "tools/handle_refs.h"
#include "tools/tool_args.h"

namespace las::tools {
namespace {

bool Continuation(char c) { return (static_cast<uint8_t>(c) & 0xC0) == 0x80; }

void Read(Coordination& c, const SessionInfo& session, const std::string& arguments,
          std::function<void(ToolCallReply)> done) {
  auto args = ToolArgs::Parse(arguments);
  if (!args.ok()) {
    return done(ToolCallReply::Result(
        ErrorJsonResult("invalid-arguments", args.status().message())));
  }
  if (!c.CatchUpForRead().ok()) return done(ToolCallReply::Error(kCallFailed, "Tool call failed"));
  const reducers::HandleRecord* h =
      reducers::FindOwnedHandle(c.handles(), args->String("handle_id").value_or(""),
                                session.agent_id);
  if (h == nullptr) {
    // Someone else's handle and no handle at all answer alike.
    return done(ToolCallReply::Result(
        ErrorJsonResult("handle-not-found", "no such handle for this agent")));
  }
  auto stored = c.HandleContent(*h);
  if (!stored.ok()) return done(ToolCallReply::Error(kCallFailed, "Tool call failed"));
  const std::string& content = **stored;
  const uint64_t length = std::min<uint64_t>(args->Uint("length").value_or(kMaxHandleSpan),
                                             kMaxHandleSpan);
  size_t begin = static_cast<size_t>(std::min<uint64_t>(args->Uint("offset").value_or(0),
                                                        content.size()));
  // Spans start and end on UTF-8 character boundaries (the content is JSON text).
  while (begin < content.size() && Continuation(content[begin])) ++begin;
  size_t end = static_cast<size_t>(std::min<uint64_t>(begin + length, content.size()));
  if (end < content.size()) {
    size_t cut = end;
    while (cut > begin && Continuation(content[cut])) --cut;
    if (cut > begin) {
      end = cut;
    } else {  // shorter than the character at `begin`: that one whole character
      while (end < content.size() && Continuation(content[end])) ++end;
    }
  }
  JsonObjectText answer;
  answer.String("handle_id", h->handle_id)
      .String("media_type", h->media_type)
      .Uint("size", h->size)
      .Uint("offset", begin)
      .Uint("length", end - begin)
      .Bool("eof", end == content.size());
  if (end < content.size()) answer.Uint("next_offset", end); else answer.Raw("next_offset", "null");
  answer.String("text", std::string_view(content).substr(begin, end - begin));
  done(ToolCallReply::Result(ExactJsonResult(answer.Take())));
}

}  // namespace

void AddHandleTools(BuiltinTools& tools, std::shared_ptr<Coordination> c) {
  tools.Add("handle_read",
            "Read back a handle this agent owns (a large state value, message body or tool "
            "result): `length` bytes (at most 65536) from `offset`, cut at character "
            "boundaries; `next_offset` continues (null at the end).",
            R"({"type":"object","properties":{"handle_id":{"type":"string","minLength":1},)"
            R"("offset":{"type":"integer","minimum":0},)"
            R"("length":{"type":"integer","minimum":1,"maximum":65536}},)"
            R"("required":["handle_id"],"additionalProperties":false})",
            [c](const SessionInfo& session, const std::string& arguments,
                std::function<void(ToolCallReply)> done) {
              Read(*c, session, arguments, std::move(done));
            });
}

}  // namespace las::tools
