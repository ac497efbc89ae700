// las__state_*: private state and the blackboard (tools/coordination_tools.h).
#include <algorithm>
#include <optional>
#include <string>

#include "base/json_string.h"
#include "reducers/las_std.h"
#include "tools/coordination_tools.h"
#include "tools/coordination_events.h"
#include "tools/exact_json_result.h"
#include "tools/gateway.h"
#include "tools/handle_refs.h"
#include "tools/page_budget.h"
#include "tools/tool_args.h"

namespace las::tools {
namespace {

using reducers::JsonValue;

constexpr size_t kMaxKeyBytes = 1024;

constexpr std::string_view kScopeSchema =
    R"("scope":{"type":"string","enum":["private","blackboard"],)"
    R"("description":"private: this agent's own state, the default; blackboard: shared by all agents"})";
constexpr std::string_view kKeySchema =
    R"("key":{"type":"string","minLength":1,"maxLength":256})";
constexpr std::string_view kValueSchema =
    R"("value":{"description":"any JSON value"},)"
    R"("value_json":{"type":"string","description":"the value as JSON text, parsed exactly and strictly"})";
constexpr std::string_view kReducerSchema =
    R"("reducer":{"type":"string","enum":["replace","append","max","merge_object","set_union"]})";

std::string Schema(std::initializer_list<std::string_view> properties,
                   std::string_view required = "") {
  std::string out = R"({"type":"object","properties":{)";
  bool first = true;
  for (auto p : properties) {
    if (!first) out.push_back(',');
    first = false;
    out += p;
  }
  out += "}";
  if (!required.empty()) out += ",\"required\":[" + std::string(required) + "]";
  out += ",\"additionalProperties\":false}";
  return out;
}

Actor ActorOf(const SessionInfo& session) { return {session.agent_id, session.session_id}; }

void Refuse(const std::function<void(ToolCallReply)>& done, std::string_view code,
            std::string_view message, std::string_view extra = {}) {
  done(ToolCallReply::Result(ErrorJsonResult(code, message, extra)));
}

void Failed(const std::function<void(ToolCallReply)>& done) {
  done(ToolCallReply::Error(kCallFailed, "Tool call failed"));
}

// What every state call names: where, and (for most) which key.
struct Target {
  bool blackboard = false;
  std::string owner;  // the session's agent for private state; "" for the blackboard
  std::string key;
};

bool ReadTarget(const ToolArgs& args, const SessionInfo& session, bool need_key, Target& out,
                const std::function<void(ToolCallReply)>& done) {
  const std::string scope = args.String("scope").value_or("private");
  if (scope != "private" && scope != "blackboard") {
    Refuse(done, "invalid-arguments", "scope must be private or blackboard");
    return false;
  }
  out.blackboard = scope == "blackboard";
  out.owner = out.blackboard ? std::string() : session.agent_id;
  if (need_key) {
    auto key = args.String("key");
    if (!key || key->empty() || key->size() > kMaxKeyBytes) {
      Refuse(done, "invalid-arguments", "key must be a non-empty string of at most 1024 bytes");
      return false;
    }
    out.key = std::move(*key);
  }
  return true;
}

// One version as a record: inline value when small, else a handle owned by the reader.
std::string RecordJson(Coordination& c, const Actor& reader, std::string_view key,
                       const reducers::StateVersion& v, Coordination::Batch& drafts) {
  JsonObjectText record;
  record.String("key", key).Uint("version", v.version).String("author_agent_id", v.author_agent_id);
  record.String("reducer", v.reducer).Int("time_micros", v.time_micros);
  if (v.value.size() <= kInlineValueBytes) {
    record.Raw("value", v.value);
  } else {
    record.Raw("handle", c.HandleRef(reader, v.value, drafts, v.value_sha256));
  }
  return record.Take();
}

// Answers `object_json` once the handles it names are durable.
void AnswerAfter(Coordination& c, Coordination::Batch drafts, std::string object_json,
                 std::function<void(ToolCallReply)> done) {
  c.Commit(std::move(drafts), [done = std::move(done), json = std::move(object_json)](bool ok) {
    if (!ok) return Failed(done);
    done(ToolCallReply::Result(ExactJsonResult(json)));
  });
}

enum class WriteMode { kSet, kAppend, kCas };

void Write(Coordination& c, WriteMode mode, const SessionInfo& session,
           const std::string& arguments, std::function<void(ToolCallReply)> done) {
  auto args = ToolArgs::Parse(arguments);
  if (!args.ok()) return Refuse(done, "invalid-arguments", args.status().message());
  Target target;
  if (!ReadTarget(*args, session, true, target, done)) return;
  auto operand = args->TakeValue("value");
  if (!operand.ok()) return Refuse(done, operand.refusal_code, operand.refusal_message);
  if (!operand.value) return Refuse(done, "invalid-arguments", "value or value_json is required");
  reducers::StdReducer reducer = reducers::StdReducer::kReplace;
  if (mode == WriteMode::kAppend) {
    reducer = reducers::StdReducer::kAppend;
  } else if (auto name = args->String("reducer")) {
    auto named = reducers::StdReducerNamed(*name);
    if (!named) return Refuse(done, "invalid-arguments", "unknown reducer");
    reducer = *named;
  }
  std::optional<uint64_t> expected;
  if (mode == WriteMode::kCas) {
    expected = args->Uint("expected_version");
    if (!expected) return Refuse(done, "invalid-arguments", "expected_version is required");
  }

  if (!c.CatchUp().ok()) return Failed(done);
  const std::string slot = Coordination::SlotOf(target.blackboard, target.owner, target.key);
  uint64_t current_version = 0;
  std::string_view current_text;
  std::string_view current_author;
  if (const auto* key = reducers::FindKey(c.state(), target.blackboard, target.owner, target.key)) {
    current_version = key->current.version;
    current_text = key->current.value;
    current_author = key->current.author_agent_id;
  }
  if (const auto* pending = c.Pending(slot); pending != nullptr && pending->version > current_version) {
    current_version = pending->version;
    current_text = pending->value;
    current_author = pending->author_agent_id;
  }
  if (expected && *expected != current_version) {
    return Refuse(done, "version-conflict", "the key's version is not the expected one",
                  ",\"current_version\":" + std::to_string(current_version));
  }
  std::optional<JsonValue> current;
  if (current_version != 0 && reducers::StdReducerReadsCurrent(reducer)) {
    reducers::JsonLimits limits;
    limits.max_bytes = kMaxValueBytes;
    auto parsed = reducers::ParseJsonValue(current_text, limits);
    if (!parsed.ok()) return Failed(done);  // Las wrote it canonical: cannot happen
    current = std::move(*parsed);
  }
  auto next = reducers::ApplyStdReducer(reducer, std::move(current), std::move(*operand.value));
  if (!next.ok()) {
    return Refuse(done, next.status().message(), "the reducer does not apply to these values");
  }
  // `append` wraps its operand one level deeper: a value Las could not read back is refused.
  if (reducers::NestingDepth(*next) > reducers::JsonLimits{}.max_depth) {
    return Refuse(done, "invalid-value", "the value would nest deeper than 64 levels");
  }
  std::string value = reducers::CanonicalText(*next);
  if (value.size() > kMaxValueBytes) {
    return Refuse(done, "value-too-large", "the value is larger than 1 MiB of canonical JSON");
  }
  if (const uint64_t quota = c.max_state_bytes_per_agent(); quota != 0) {
    const uint64_t held = c.HeldBytes(session.agent_id);
    const uint64_t released =
        current_author == session.agent_id ? reducers::HeldBytesOf(target.key, current_text) : 0;
    const uint64_t after = held - std::min(held, released) + reducers::HeldBytesOf(target.key, value);
    if (after > quota && after > held) {
      return Refuse(done, "state-quota-exceeded",
                    "this agent's state would exceed its quota (keys and values it wrote last)",
                    ",\"held_bytes\":" + std::to_string(held) +
                        ",\"quota_bytes\":" + std::to_string(quota));
    }
  }
  const uint64_t version = current_version + 1;
  const std::string_view reducer_name = reducers::StdReducerName(reducer);
  JsonObjectText answer;
  answer.String("key", target.key)
      .String("scope", target.blackboard ? "blackboard" : "private")
      .Uint("version", version)
      .String("author_agent_id", session.agent_id)
      .String("reducer", reducer_name)
      .Uint("size", value.size());
  Coordination::Batch drafts;
  drafts.drafts.push_back(StateWrittenEvent(ActorOf(session), target.blackboard, target.owner,
                                     target.key, version, reducer_name, value));
  c.BeginWrite(slot, {.blackboard = target.blackboard,
                      .owner = target.owner,
                      .key = target.key,
                      .version = version,
                      .value = std::move(value),
                      .author_agent_id = session.agent_id});
  c.Commit(std::move(drafts), [&c, slot, done = std::move(done), json = answer.Take()](bool ok) {
    c.EndWrite(slot);
    if (!ok) return Failed(done);
    done(ToolCallReply::Result(ExactJsonResult(json)));
  });
}

void Get(Coordination& c, const SessionInfo& session, const std::string& arguments,
         std::function<void(ToolCallReply)> done) {
  auto args = ToolArgs::Parse(arguments);
  if (!args.ok()) return Refuse(done, "invalid-arguments", args.status().message());
  Target target;
  if (!ReadTarget(*args, session, true, target, done)) return;
  if (!c.CatchUpForRead().ok()) return Failed(done);
  const auto* key = reducers::FindKey(c.state(), target.blackboard, target.owner, target.key);
  if (key == nullptr) {
    JsonObjectText missing;
    missing.String("key", target.key).Bool("found", false).Uint("version", 0);
    return done(ToolCallReply::Result(ExactJsonResult(missing.Take())));
  }
  Coordination::Batch drafts;
  const std::string record = RecordJson(c, ActorOf(session), target.key, key->current, drafts);
  JsonObjectText answer;
  answer.Bool("found", true).Raw("record", record);
  AnswerAfter(c, std::move(drafts), answer.Take(), std::move(done));
}

// Records joined into a page while its response stays within the PageBudget.
struct PageBuilder {
  std::string records = "[";
  size_t count = 0;
  PageBudget budget;
  // Adds `record` unless the page is full with `next` written as `next_json`.
  bool TryAdd(const std::string& record, std::string_view next_json) {
    if (!budget.TryTake(record, next_json)) return false;
    if (count++ > 0) records.push_back(',');
    records += record;
    return true;
  }
};

// `key` as the answer's `next` writes it.
std::string EncodedKey(const std::string& key) {
  std::string encoded;
  AppendJsonString(key, encoded);
  return encoded;
}

bool ByLength(const std::string& a, const std::string& b) { return a.size() < b.size(); }

size_t LimitOf(const ToolArgs& args) {
  const uint64_t limit = args.Uint("limit").value_or(kMaxPageItems);
  return limit == 0 ? 1 : static_cast<size_t>(std::min<uint64_t>(limit, kMaxPageItems));
}

void List(Coordination& c, const SessionInfo& session, const std::string& arguments,
          std::function<void(ToolCallReply)> done) {
  auto args = ToolArgs::Parse(arguments);
  if (!args.ok()) return Refuse(done, "invalid-arguments", args.status().message());
  Target target;
  if (!ReadTarget(*args, session, false, target, done)) return;
  const size_t limit = LimitOf(*args);
  const std::string after = args->String("after_key").value_or("");
  if (!c.CatchUpForRead().ok()) return Failed(done);
  PageBuilder page;
  Coordination::Batch drafts;
  bool truncated = false;
  std::optional<std::string> next;
  if (const auto* space = reducers::SpaceOf(c.state(), target.blackboard, target.owner)) {
    auto it = after.empty() ? space->begin() : space->upper_bound(after);
    std::string last_key;
    std::string last_key_json;  // EncodedKey(last_key)
    for (; it != space->end(); ++it) {
      if (page.count == limit) break;
      Coordination::Batch record_drafts;
      const std::string record =
          RecordJson(c, ActorOf(session), it->first, it->second.current, record_drafts);
      // `next` will name this key or the one before: room for the longer, as written.
      std::string key_json = EncodedKey(it->first);
      if (!page.TryAdd(record, std::max(last_key_json, key_json, ByLength))) {
        truncated = true;
        break;
      }
      drafts.Add(std::move(record_drafts));
      last_key = it->first;
      last_key_json = std::move(key_json);
    }
    if (it != space->end()) next = last_key;
  }
  page.records.push_back(']');
  JsonObjectText answer;
  answer.Raw("records", page.records);
  if (next) answer.String("next", *next); else answer.Raw("next", "null");
  answer.Bool("truncated", truncated);
  AnswerAfter(c, std::move(drafts), answer.Take(), std::move(done));
}

void History(Coordination& c, const SessionInfo& session, const std::string& arguments,
             std::function<void(ToolCallReply)> done) {
  auto args = ToolArgs::Parse(arguments);
  if (!args.ok()) return Refuse(done, "invalid-arguments", args.status().message());
  Target target;
  if (!ReadTarget(*args, session, true, target, done)) return;
  const size_t limit = LimitOf(*args);
  const uint64_t after = args->Uint("after_version").value_or(0);
  if (!c.CatchUpForRead().ok()) return Failed(done);
  PageBuilder page;
  Coordination::Batch drafts;
  bool truncated = false;
  std::optional<uint64_t> next;
  if (const auto* key = reducers::FindKey(c.state(), target.blackboard, target.owner, target.key)) {
    const reducers::HistoryPage versions = reducers::History(*key, after, limit);
    uint64_t last = after;
    for (const reducers::VersionAt& at : versions.versions) {
      // Only the current version is whole in memory; an older one comes from the log.
      std::optional<reducers::StateVersion> older;
      if (at.version != key->current.version) {
        auto read = c.StateVersionAt(target.blackboard, target.owner, target.key, at);
        if (!read.ok()) return Failed(done);
        older = std::move(*read);
      }
      Coordination::Batch record_drafts;
      const std::string record =
          RecordJson(c, ActorOf(session), target.key, older ? *older : key->current, record_drafts);
      if (!page.TryAdd(record, std::to_string(at.version))) {
        truncated = true;
        break;
      }
      drafts.Add(std::move(record_drafts));
      last = at.version;
    }
    if (truncated || versions.more) next = last;
  }
  page.records.push_back(']');
  JsonObjectText answer;
  answer.Raw("records", page.records);
  if (next) answer.Uint("next", *next); else answer.Raw("next", "null");
  answer.Bool("truncated", truncated);
  AnswerAfter(c, std::move(drafts), answer.Take(), std::move(done));
}

template <typename F>
BuiltinHandler Bind(std::shared_ptr<Coordination> c, F f) {
  return [c = std::move(c), f](const SessionInfo& session, const std::string& arguments,
                               std::function<void(ToolCallReply)> done) {
    f(*c, session, arguments, std::move(done));
  };
}

}  // namespace

void AddStateTools(BuiltinTools& tools, std::shared_ptr<Coordination> c) {
  const std::string limit = R"("limit":{"type":"integer","minimum":1,"maximum":100})";
  tools.Add("state_get",
            "Read one key of this agent's private state or of the shared blackboard: its "
            "current version, author and value (a handle for values over 16 KiB).",
            Schema({kScopeSchema, kKeySchema}, R"("key")"), Bind(c, Get));
  tools.Add("state_set",
            "Write one key (private or blackboard). With `reducer` (las.std: replace, append, "
            "max, merge_object, set_union) the new value is that reducer applied to the "
            "current value and `value`. Answers the new version once durably logged.",
            Schema({kScopeSchema, kKeySchema, kValueSchema, kReducerSchema}, R"("key")"),
            Bind(c, [](Coordination& co, const SessionInfo& s, const std::string& a,
                       std::function<void(ToolCallReply)> d) {
              Write(co, WriteMode::kSet, s, a, std::move(d));
            }));
  tools.Add("state_append",
            "Append `value` to the JSON array held by a key (a missing or null key becomes "
            "a one-element array).",
            Schema({kScopeSchema, kKeySchema, kValueSchema}, R"("key")"),
            Bind(c, [](Coordination& co, const SessionInfo& s, const std::string& a,
                       std::function<void(ToolCallReply)> d) {
              Write(co, WriteMode::kAppend, s, a, std::move(d));
            }));
  tools.Add("state_cas",
            "Compare and set: write only if the key's current version is `expected_version` "
            "(0: the key does not exist yet). A conflict changes nothing and answers the "
            "error code version-conflict with current_version.",
            Schema({kScopeSchema, kKeySchema, kValueSchema, kReducerSchema,
                    R"("expected_version":{"type":"integer","minimum":0})"},
                   R"("key","expected_version")"),
            Bind(c, [](Coordination& co, const SessionInfo& s, const std::string& a,
                       std::function<void(ToolCallReply)> d) {
              Write(co, WriteMode::kCas, s, a, std::move(d));
            }));
  tools.Add("state_list",
            "List keys in order after `after_key`: at most `limit` (<= 100) records and 64 "
            "KiB of response; `next` is the after_key of the next page (null at the end), "
            "`truncated` says the byte bound cut the page short.",
            Schema({kScopeSchema, R"("after_key":{"type":"string"})", limit}), Bind(c, List));
  tools.Add("state_history",
            "The versions of one key after `after_version`, oldest first, paged like "
            "state_list (`next` is the after_version of the next page).",
            Schema({kScopeSchema, kKeySchema, R"("after_version":{"type":"integer","minimum":0})",
                    limit},
                   R"("key")"),
            Bind(c, History));
}

}  // namespace las::tools
