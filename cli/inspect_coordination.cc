// `las inspect state|messages|handles`: the agents' coordination projections, read from a
// live or stopped log as a follower. Values, bodies and contents stay in their events
// (`las replay`), but for `state --values`.
#include <algorithm>
#include <cstdio>
#include <string_view>
#include <nlohmann/json.hpp>
#include <vector>

#include "base/json_text_dump.h"
#include "base/clock.h"
#include "base/printable_text.h"
#include "cli/exit_codes.h"
#include "cli/fail.h"
#include "cli/inspect_flags.h"
#include "cli/json_output.h"
#include "cli/log_fold.h"
#include "cli/table.h"
#include "projections/handles_projection.h"
#include "projections/mailbox_projection.h"
#include "projections/state_projection.h"

namespace las::cli {
namespace {

using Json = nlohmann::ordered_json;

std::string U(uint64_t n) { return std::to_string(n); }

// A value is canonical JSON text with integers of any size, which a parse into Json would
// turn into doubles: it is spliced into the dumped document unparsed instead. Its place
// holds a discarded Json, which dumps as the bare word <discarded> — after `"value": `
// it cannot come from any string, whose quotes would be escaped.
constexpr std::string_view kValueSlot = "\"value\": <discarded>";

std::string DumpWithValues(const Json& document, const std::vector<std::string_view>& values) {
  std::string text = DumpJson(document, 2);
  size_t at = 0;
  for (std::string_view value : values) {
    at = text.find(kValueSlot, at);
    if (at == std::string::npos) break;
    at += kValueSlot.size() - std::string_view("<discarded>").size();
    text.replace(at, std::string_view("<discarded>").size(), value);
    at += value.size();
  }
  return text;
}

Json KeyJson(const std::string& key, const reducers::StateVersion& v,
             std::vector<std::string_view>* values) {
  Json out{{"key", key},
           {"version", v.version},
           {"author_agent_id", v.author_agent_id},
           {"reducer", v.reducer},
           {"value_bytes", v.value.size()},
           {"value_sha256", v.value_sha256},
           {"sequence", v.sequence},
           {"time_micros", v.time_micros}};
  if (values != nullptr) {
    out["value"] = Json(Json::value_t::discarded);
    values->push_back(v.value);
  }
  return out;
}

// The keys of `space`; with `values`, each value's text is added to it in document order.
Json SpaceJson(const reducers::KeySpace& space, std::vector<std::string_view>* values) {
  Json keys = Json::array();
  for (const auto& [key, state] : space) keys.push_back(KeyJson(key, state.current, values));
  return keys;
}

void AddSpaceRows(Table& table, const std::string& space_name, const reducers::KeySpace& space) {
  for (const auto& [key, state] : space) {
    const reducers::StateVersion& v = state.current;
    table.Add({space_name, key, U(v.version), v.author_agent_id, v.reducer, U(v.value.size()),
               U(v.sequence)});
  }
}

}  // namespace

int InspectState(const InspectFlags& flags) {
  projections::ProjectionSet set;
  int exit_code = kExitOk;
  const auto* state =
      FoldProjection<projections::StateProjection>(flags.log_dir, "state", set, exit_code);
  if (state == nullptr) return exit_code;
  const reducers::StateStore& store = state->store();
  if (flags.json) {
    std::vector<std::string_view> values;
    std::vector<std::string_view>* wanted = flags.values ? &values : nullptr;
    Json document{{"blackboard", SpaceJson(store.blackboard, wanted)}};
    Json agents = Json::array();
    for (const auto& [agent, space] : store.private_by_agent) {
      agents.push_back({{"agent_id", agent}, {"keys", SpaceJson(space, wanted)}});
    }
    document["private"] = std::move(agents);
    document["skipped_events"] = store.skipped;
    std::printf("%s\n", DumpWithValues(document, values).c_str());
    return kExitOk;
  }
  Table table({"SPACE", "KEY", "VERSION", "AUTHOR", "REDUCER", "BYTES", "SEQ"});
  AddSpaceRows(table, "blackboard", store.blackboard);
  for (const auto& [agent, space] : store.private_by_agent) {
    AddSpaceRows(table, "private:" + agent, space);
  }
  table.Print();
  return kExitOk;
}

int InspectMessages(const InspectFlags& flags) {
  if (flags.agent && flags.agent->empty()) {
    return Fail(InvalidArgument("--agent needs an agent id"));
  }
  projections::ProjectionSet set;
  int exit_code = kExitOk;
  const auto* mailbox =
      FoldProjection<projections::MailboxProjection>(flags.log_dir, "mailbox", set, exit_code);
  if (mailbox == nullptr) return exit_code;
  std::vector<const reducers::MailMessage*> messages;
  for (const auto& [id, message] : mailbox->mailboxes().by_id) {
    if (!flags.agent || message.to_agent_id == *flags.agent) messages.push_back(&message);
  }
  std::sort(messages.begin(), messages.end(), [](const auto* a, const auto* b) {
    return a->sent_sequence < b->sent_sequence;
  });
  // A deferral ends by time: the state is the one at this moment.
  const int64_t now = SystemWallClock().NowMicros();
  if (flags.json) {
    Json out = Json::array();
    for (const auto* m : messages) {
      const reducers::MailState state = reducers::StateAt(*m, now);
      // Only while it holds, as las__message_list shows it (probe CA3).
      const int64_t deferred_until =
          state == reducers::MailState::kDeferred ? m->deferred_until_micros : 0;
      out.push_back({{"message_id", m->message_id},
                     {"from_agent_id", m->from_agent_id},
                     {"to_agent_id", m->to_agent_id},
                     {"subject", m->subject},
                     {"state", reducers::MailStateName(state)},
                     {"body_bytes", m->body_bytes},
                     {"sent_sequence", m->sent_sequence},
                     {"sent_micros", m->sent_micros},
                     {"read_micros", m->read_micros},
                     {"completed_micros", m->completed_micros},
                     {"deferred_until_micros", deferred_until}});
    }
    PrintJson({{"messages", std::move(out)}});
    return kExitOk;
  }
  Table table({"MESSAGE", "FROM", "TO", "STATE", "SUBJECT", "BYTES", "SEQ"});
  for (const auto* m : messages) {
    table.Add({m->message_id, m->from_agent_id, m->to_agent_id,
               std::string(reducers::MailStateName(reducers::StateAt(*m, now))),
               m->subject.empty() ? "-" : m->subject, U(m->body_bytes), U(m->sent_sequence)});
  }
  table.Print();
  return kExitOk;
}

int InspectHandles(const InspectFlags& flags) {
  projections::ProjectionSet set;
  int exit_code = kExitOk;
  const auto* handles =
      FoldProjection<projections::HandlesProjection>(flags.log_dir, "handles", set, exit_code);
  if (handles == nullptr) return exit_code;
  std::vector<const reducers::HandleRecord*> records;
  for (const auto& [id, record] : handles->handles().by_id) records.push_back(&record);
  std::sort(records.begin(), records.end(),
            [](const auto* a, const auto* b) { return a->sequence < b->sequence; });
  if (flags.json) {
    Json out = Json::array();
    for (const auto* h : records) {
      out.push_back({{"handle_id", h->handle_id},
                     {"owner_agent_id", h->owner_agent_id},
                     {"media_type", h->media_type},
                     {"size", h->size},
                     {"content_sha256", h->content_sha256},
                     {"sequence", h->sequence},
                     {"created_micros", h->created_micros}});
    }
    PrintJson({{"handles", std::move(out)}});
    return kExitOk;
  }
  Table table({"HANDLE", "OWNER", "MEDIA TYPE", "SIZE", "SEQ"});
  for (const auto* h : records) {
    table.Add({h->handle_id, h->owner_agent_id, h->media_type, U(h->size), U(h->sequence)});
  }
  table.Print();
  return kExitOk;
}

}  // namespace las::cli
