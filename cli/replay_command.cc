#include "base/json_text_dump.h"
#include "cli/number_flags.h"
#include "cli/path_flag.h"
#include "cli/replay_command.h"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string_view>
#include <utility>
#include <nlohmann/json.hpp>

#include "base/hex.h"
#include "base/printable_text.h"
#include "cli/agent_flag.h"
#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/fail.h"
#include "cli/paths.h"
#include "cli/replay_output.h"
#include "cli/stdout_check.h"
#include "log/envelope.h"
#include "log/event_json.h"
#include "log/log_reader.h"
#include "log/head_seal.h"
#include "log/kept_head.h"
#include "tools/builtin_tools.h"
#include "tools/kept_head_file.h"
#include "tools/release_audit.h"
#include "tools/snapshot_key_file.h"
#include "trust/manifest.h"
#include "trust/trust_store.h"

namespace las::cli {
namespace {

// Past this size a terminal gets a progress line: a big replay should not look hung.
constexpr uint64_t kProgressThreshold = 200'000;

// `--anchor SEQ:HASH`: the sequence and chain hash of an event the log must still hold, as
// an earlier replay's summary named its head. The chain has no secret: whoever can write
// the log directory can rewrite its tail and head consistently, or cut it (probe DC1);
// only a head kept elsewhere tells. nullopt for a malformed anchor.
struct Anchor {
  uint64_t sequence = 0;
  log::Hash hash{};
};
// `message` without a leading "event N: " for the event the line names already (probe FM7:
// "verification fails at event 7088: event 7088: ...").
std::string WithoutEventPrefix(const std::string& message, uint64_t sequence) {
  const std::string prefix = "event " + std::to_string(sequence) + ": ";
  return message.starts_with(prefix) ? message.substr(prefix.size()) : message;
}

// The anchors as given, "SEQ:HASH" each, for the summary.
nlohmann::ordered_json AnchorsJson(const std::vector<Anchor>& anchors) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const Anchor& anchor : anchors) {
    out.push_back(std::to_string(anchor.sequence) + ":" + ToHex(anchor.hash));
  }
  return out;
}

std::optional<Anchor> ParseAnchor(std::string_view text) {
  const size_t colon = text.find(':');
  if (colon == std::string_view::npos || colon == 0 || colon > 20) return std::nullopt;
  Anchor anchor;
  for (char c : text.substr(0, colon)) {
    if (c < '0' || c > '9' || anchor.sequence > (UINT64_MAX - 9) / 10) return std::nullopt;
    anchor.sequence = anchor.sequence * 10 + static_cast<uint64_t>(c - '0');
  }
  const std::string_view hex = text.substr(colon + 1);
  if (anchor.sequence == 0 || hex.size() != 64 ||
      hex.find_first_not_of("0123456789abcdef") != std::string_view::npos) {
    return std::nullopt;
  }
  auto bytes = FromHex(hex);
  if (!bytes) return std::nullopt;
  std::copy(bytes->begin(), bytes->end(), anchor.hash.begin());
  return anchor;
}

CLI::Validator AnchorFlag() {
  return CLI::Validator(
      [](std::string& text) {
        return ParseAnchor(text) ? std::string()
                                 : "must be SEQ:HASH, a sequence from 1 and 64 lowercase hex "
                                   "digits (the head a `las replay --summary` reported), not \"" +
                                       EscapeForTerminal(text) + "\"";
      },
      "SEQ:HASH");
}

const char* SealStateName(log::SealState state) {
  switch (state) {
    case log::SealState::kAbsent: return "absent";
    case log::SealState::kOtherKey: return "other-key";
    case log::SealState::kSealed: return "sealed";
    case log::SealState::kNoKey: break;
  }
  return "no-key";
}

// docs/CLI.md: null when not judged (no usable key, or a broken chain); `contradicted` when
// the log contradicts a seal of this key (probe FM1: that too was null, as for no key).
nlohmann::ordered_json SealJson(const std::optional<log::SealVerdict>& seal, bool contradicted) {
  if (contradicted) return {{"state", "contradicted"}};
  if (!seal) return nullptr;
  nlohmann::ordered_json spans = nlohmann::ordered_json::array();
  for (const log::SequenceSpan& span : seal->unvouched) spans.push_back({span.first, span.last});
  return {{"state", SealStateName(seal->state)}, {"through", seal->through}, {"unvouched", spans}};
}

// The key in `path` that judges the seal of the log in `log_dir`, or why there is none (the
// checks of tools::UsableSnapshotKey, the file read once).
Result<log::SnapshotKey> SealJudgeKey(const std::string& path, const std::string& log_dir) {
  if (path.empty()) return NotFound("no snapshot key file");
  if (tools::KeyFileInsideLog(path, log_dir)) {
    return InvalidArgument("the snapshot key file is inside the log directory");
  }
  return tools::ReadSnapshotKey(path);
}

std::string SealLine(const std::optional<log::SealVerdict>& seal, const std::string& no_key) {
  if (!seal) return "head seal not judged: " + (no_key.empty() ? "the chain broke first" : no_key);
  std::string line = std::string("head seal ") + SealStateName(seal->state);
  if (seal->state == log::SealState::kSealed) line += " through event " + std::to_string(seal->through);
  if (!seal->other_key_id.empty()) line += " (key id " + seal->other_key_id + ")";
  if (seal->unvouched.empty()) return line + "; every event vouched for";
  return line + "; events no seal vouches for: " + log::SpansText(seal->unvouched);
}

const char* KeptStateName(log::KeptState state) {
  switch (state) {
    case log::KeptState::kOtherKey: return "other-key";
    case log::KeptState::kOtherLog: return "other-log";
    case log::KeptState::kHolds: return "holds";
    case log::KeptState::kNone: break;
  }
  return "none";
}

// docs/CLI.md: null when not judged (no usable key, a kept file that cannot be read, or a
// broken chain); "contradicted" when the log or the kept file fails it (probe DN4: that read
// as null, not judged, to a script).
nlohmann::ordered_json KeptJson(const std::optional<log::KeptVerdict>& kept, bool contradicted) {
  if (contradicted) return {{"state", "contradicted"}};
  if (!kept) return nullptr;
  return {{"state", KeptStateName(kept->state)}, {"sequence", kept->kept.head.sequence}};
}

std::string KeptLine(const std::optional<log::KeptVerdict>& kept,
                     const Result<std::optional<std::string>>& record, const std::string& no_key) {
  if (!kept) {
    return "head kept outside the log not judged: " +
           (!no_key.empty()      ? no_key
            : !record.ok()       ? EscapeForTerminal(record.status().message())
                                 : std::string("the chain broke first"));
  }
  switch (kept->state) {
    case log::KeptState::kHolds:
      return "head kept outside the log: event " + std::to_string(kept->kept.head.sequence) +
             ", which the log holds";
    case log::KeptState::kOtherLog:
      return "head kept outside the log: another log's (made anew in this place?)";
    case log::KeptState::kOtherKey:
      return "head kept outside the log: another snapshot key's record where this key's "
             "belongs (damaged?), not judged";
    case log::KeptState::kNone: break;
  }
  return "no head kept outside the log for this key";
}

nlohmann::ordered_json UntrustedJson(
    const std::vector<std::pair<uint64_t, tools::UntrustedRelease>>& untrusted) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const auto& [sequence, release] : untrusted) {
    list.push_back({{"seq", sequence}, {"release", release.release_sequence}, {"key_id", release.key_id}});
  }
  return list;
}

// With --summary, a log that cannot be read still ends stdout with its summary line, so a
// script reading the last line always finds one.
// `unread` names what could not be read — "log", "snapshot-key" or "trust-store" — so that
// a reader of the summary alone tells a missing log from a missing key (probe JA1: both
// were "error":"not_found").
int CannotRead(const ReplayOptions& options, const Status& status,
               std::string_view unread = "log") {
  if (options.summary) {
    replay_output::Print(
        nlohmann::ordered_json{{"summary", {{"ok", false}, {"verified", 0}, {"selected", 0},
                                            {"releases_verified", 0},
                                            {"error", std::string(CodeName(status.code()))},
                                            {"unread", std::string(unread)}}}}
            .dump());
    (void)replay_output::Write();
    (void)StdoutDelivered();
  }
  return Fail(status);
}

}  // namespace

int RunReplay(const ReplayOptions& options) {
  Status valid = projections::ValidateFilter(options.filter);
  // A name no surface can have (docs/MANIFEST.md; "las" is Las's own tools) would select
  // nothing and read as "no events about it": a typo is refused instead.
  if (valid.ok() && options.filter.surface && !options.filter.surface->empty() &&
      !trust::IsValidSurfaceName(*options.filter.surface) &&
      *options.filter.surface != tools::kOwnSurface) {
    valid = InvalidArgument("--surface: no surface can be named that (a surface name is 1 to "
                            "64 of a-z, 0-9, '_' and '-', without \"__\")");
  }
  if (!valid.ok()) return Fail(valid);
  const Result<log::SnapshotKey> judge = SealJudgeKey(options.snapshot_key_file, options.log_dir);
  // A key the auditor named is meant to judge the log: one that cannot do so fails the
  // replay rather than pass it unjudged with exit 0 (probe FM6). A key file that is not a
  // key is a bad flag value here, not a damaged log (exit 3 reads as tamper).
  if (!judge.ok() && options.snapshot_key_given && !options.snapshot_key_file.empty()) {
    const Code code = judge.status().code() == Code::kCorruption ? Code::kInvalidArgument
                                                                  : judge.status().code();
    return CannotRead(options,
                      Status(code, "--snapshot-key: " + judge.status().message() +
                                       " (--snapshot-key \"\" replays without judging the seal)"),
                      "snapshot-key");
  }
  // The auditor's trust store, read before the log: one that cannot be read fails the replay
  // (its question would go unanswered), naming the flag.
  std::optional<trust::TrustStore> trusted;
  if (!options.trust_store.empty()) {
    trust::VerdictOr<trust::TrustStore> store = trust::LoadTrustStore(options.trust_store);
    if (!store.ok()) {
      const Status status = store.verdict().ToStatus();
      return CannotRead(options, Status(status.code(), "--trust-store: " + status.message()),
                        "trust-store");
    }
    trusted = std::move(*store);
  }
  const std::string no_key = judge.ok() ? "" : EscapeForTerminal(judge.status().message());
  const std::optional<log::SnapshotKey> key =
      judge.ok() ? std::optional<log::SnapshotKey>(*judge) : std::nullopt;
  // Read before the log: a server keeps its head while this replay runs, and a head kept
  // after the reader opened could lie beyond what the reader sees.
  const std::string kept_file =
      key ? tools::KeptHeadFile(options.snapshot_key_file, *key, options.log_dir) : "";
  Result<std::optional<std::string>> kept_record = std::optional<std::string>();
  if (key) kept_record = tools::ReadKeptHead(kept_file);
  auto reader = log::LogReader::Open(options.log_dir);
  if (!reader.ok()) return CannotRead(options, reader.status());
  auto cursor = (*reader)->Read(1);
  if (!cursor.ok()) return CannotRead(options, cursor.status());

  std::setvbuf(stdout, nullptr, _IONBF, 0);  // replay_output hands it whole lines, 64 KiB at a time
  projections::ReplayCallbacks callbacks;
  uint64_t releases_verified = 0;
  std::vector<Anchor> anchors;
  for (const std::string& text : options.anchors) anchors.push_back(*ParseAnchor(text));
  std::vector<std::pair<uint64_t, tools::UntrustedRelease>> untrusted;  // event sequence, release
  callbacks.audit = [&releases_verified, &anchors, &trusted, &untrusted](const log::StoredEvent& event) {
    for (const Anchor& anchor : anchors) {
      if (anchor.sequence == event.sequence && anchor.hash != event.hash) {
        return Corruption("it is not the anchored event (hash " + ToHex(event.hash) +
                          ", anchored " + ToHex(anchor.hash) +
                          "): the log was rewritten from there or before, or the anchor was "
                          "mistyped");
      }
    }
    Status audited = tools::AuditRecordedRelease(event);
    if (audited.ok() &&
        log::EnvelopeOf(event).payload_type() == fb::EventPayload::ReleaseAccepted) {
      ++releases_verified;
      if (trusted) {
        if (auto release = tools::UntrustedBy(event, *trusted)) {
          untrusted.emplace_back(event.sequence, std::move(*release));
        }
      }
    }
    return audited;
  };
  // The progress line shows on a terminal, for a large log. When the events go to the
  // same terminal, it shows only while no event has been printed since the last count (a
  // filter that selects few), and it is cleared before the next event, so that it never
  // lands inside one (probe AT2) nor leaves the terminal silent for the whole run (BH8).
  const bool show_progress = ::isatty(STDERR_FILENO) != 0 &&
                             (*cursor)->head().sequence >= kProgressThreshold;
  const bool events_on_terminal = ::isatty(STDOUT_FILENO) != 0;
  replay_output::CatchStopSignals(events_on_terminal);
  bool printed_since_count = false;
  // A reader that went away (`las replay | head`) is told at the next buffer that fails,
  // not after the whole log has been read.
  bool output_failed = false;
  callbacks.on_selected = [&](const log::StoredEvent& event) {
    if (replay_output::ProgressShown() && events_on_terminal) {
      std::fputs("\r\033[K", stderr);
      replay_output::SetProgressShown(false);
    }
    printed_since_count = true;
    if (replay_output::Print(log::EventToJson(event))) return Status::Ok();
    output_failed = true;
    return IoError("writing to standard output failed");
  };
  if (show_progress) {
    callbacks.on_progress = [&](uint64_t done, uint64_t total) {
      if (events_on_terminal && std::exchange(printed_since_count, false)) {
        (void)replay_output::Write();  // the events show that it runs
        return;
      }
      replay_output::SetProgressShown(true);  // before it shows: a stop clears what there is
      std::fprintf(stderr, "\rlas replay: %llu/%llu events verified",
                   static_cast<unsigned long long>(done), static_cast<unsigned long long>(total));
    };
  }
  projections::ProjectionSet set;
  projections::ReplayOutcome outcome = projections::Replay(**cursor, options.filter, callbacks, set);
  // Judged only on an intact chain (a break names its own first bad sequence).
  // The seal and the kept head are judged each on its own, so that both verdicts show.
  const bool chain_intact = outcome.status.ok();
  std::optional<log::SealVerdict> seal;
  bool seal_contradicted = false;
  bool cut_below_a_claim = false;  // a seal or kept head names an event past the log's end
  bool rewritten_below_a_claim = false;  // or says another: rewritten there or before
  if (chain_intact && key) {
    auto judged = (*reader)->JudgeSeal(*key, **cursor);
    if (judged.ok()) {
      seal = std::move(*judged);
    } else {
      seal_contradicted = judged.status().code() == Code::kCorruption;
      cut_below_a_claim = log::SaysTheLogWasCut(judged.status());
      rewritten_below_a_claim = seal_contradicted && !cut_below_a_claim;
      outcome.status = judged.status();
    }
  }
  std::optional<log::KeptVerdict> kept;
  bool kept_contradicted = false;
  if (chain_intact && key && kept_record.ok()) {
    std::optional<std::string_view> record;
    if (*kept_record) record = **kept_record;
    auto judged = log::JudgeKeptHead(record, *key, (*cursor)->head(), [&](uint64_t sequence) {
      return (*reader)->EventHash(sequence);
    });
    if (judged.ok()) {
      kept = std::move(*judged);
    } else {
      kept_contradicted = judged.status().code() == Code::kCorruption;
      if (log::SaysTheLogWasCut(judged.status())) {
        cut_below_a_claim = true;
      } else if (kept_contradicted) {
        rewritten_below_a_claim = true;
      }
      if (outcome.status.ok()) {  // else the seal's contradiction is said first
        outcome.status = Status(judged.status().code(),
                                judged.status().message() + tools::KeptHeadAdvice(kept_file));
      }
    }
  }
  // The first missing event is the first bad one (probe HO2: the summary named none); a
  // rewrite below a seal or kept head names no sequence, not even beside a cut (probe HP4:
  // "fails at event 6" for a rewrite at 5 or before): their states say it.
  const bool first_bad_known = !rewritten_below_a_claim;
  if (cut_below_a_claim && first_bad_known) outcome.first_bad_sequence = outcome.verified + 1;
  // Checked on an intact chain whatever the seal said, so that a failed anchor shows beside a
  // contradicted seal (probe FO4: the seal's failure hid it); the first one past the end.
  bool anchor_past_the_end_told = false;
  for (const Anchor& anchor : anchors) {
    if (chain_intact && anchor.sequence > outcome.verified &&
        !std::exchange(anchor_past_the_end_told, true)) {
      const std::string cut = "the log ends at event " + std::to_string(outcome.verified) +
                              ", before the anchored event " + std::to_string(anchor.sequence) +
                              ": it was cut";
      outcome.status = outcome.status.ok()
                           ? Corruption(cut)
                           : Status(outcome.status.code(), outcome.status.message() + "; " + cut);
      if (first_bad_known) outcome.first_bad_sequence = outcome.verified + 1;
    }
  }
  // The last progress count shown is older than the end: the line is cleared, not left.
  if (replay_output::ProgressShown()) {
    std::fputs("\r\033[K", stderr);
    replay_output::SetProgressShown(false);
  }
  (void)replay_output::Write();
  if (output_failed) {
    (void)StdoutDelivered();  // says so, once
    return ExitCodeFor(outcome.status);
  }

  nlohmann::ordered_json digests = nlohmann::ordered_json::object();
  const auto computed_digests = set.Digests();  // costly on a large log: once
  for (const auto& [name, digest] : computed_digests) digests[name] = digest;
  if (options.summary) {
    // In the documented order (docs/CLI.md), as the event lines keep theirs (probe AT3).
    nlohmann::ordered_json summary = {
        {"ok", outcome.status.ok() && untrusted.empty()},
        {"verified", outcome.verified},
        {"selected", outcome.selected},
        {"releases_verified", releases_verified},
        {"head", {{"seq", outcome.head.sequence}, {"hash", ToHex(outcome.head.hash)}}},
        {"digests", digests},
        // On tamper the projections hold only the events before it.
        {"digests_through", outcome.verified},
        // Whether the head vouches for the verified events: only a chain that reaches it
        // intact does (a forger may rewrite a prefix consistently and break it on purpose).
        {"anchored", outcome.status.ok()},
        {"seal", SealJson(seal, seal_contradicted)},
        {"kept_head", KeptJson(kept, kept_contradicted)},
        // The anchors given, each checked: with "ok" true every one holds (probe FM2: a
        // saved summary did not show that an anchor was checked at all).
        {"anchors", AnchorsJson(anchors)}};
    if (outcome.first_bad_sequence) summary["first_bad_sequence"] = *outcome.first_bad_sequence;
    if (trusted) summary["untrusted_releases"] = UntrustedJson(untrusted);
    replay_output::Print(DumpJson(nlohmann::ordered_json{{"summary", summary}}));
    (void)replay_output::Write();
    // The summary's "seal": null does not say why; stderr does, as without --summary
    // (probe IQ3).
    if (!key) std::fprintf(stderr, "las %s: %s\n", CommandWords(), SealLine(std::nullopt, no_key).c_str());
  }
  const bool delivered = StdoutDelivered();
  // Last before the verdict, so that a reader of the end sees them (probe IK3).
  auto report_untrusted = [&] {
    for (const auto& [sequence, release] : untrusted) {
      std::fprintf(stderr, "las %s: release %llu (event %llu) was signed by key %s, which %s does not list\n",
                   CommandWords(), static_cast<unsigned long long>(release.release_sequence),
                   static_cast<unsigned long long>(sequence), EscapeForTerminal(release.key_id).c_str(),
                   EscapeForTerminal(options.trust_store).c_str());
    }
  };
  if (!outcome.status.ok()) {
    report_untrusted();
    if (outcome.first_bad_sequence) {
      // Not called tampering: a block failing its checksum (a disk error) breaks the chain
      // too, and the detail says which it is (probe AZ2).
      std::fprintf(stderr,
                   "las %s: corruption: verification fails at event %llu: %s (the events before "
                   "it, printed, verified from the first one, but with verification failing the "
                   "head no longer vouches for them)\n",
                   CommandWords(), static_cast<unsigned long long>(*outcome.first_bad_sequence),
                   EscapeForTerminal(WithoutEventPrefix(outcome.status.message(),
                                                        *outcome.first_bad_sequence))
                       .c_str());
      return ExitCodeFor(outcome.status);
    }
    return Fail(outcome.status);
  }
  // What was verified did not reach its reader: no line may read as a success.
  if (!delivered) return ExitCodeFor(IoError(""));
  if (!options.summary) {
    // Without --summary the digests are the audit's report and stderr carries them: lost
    // there (a full disk), the replay fails as it does when stdout is lost (exit 9). Nothing
    // can say so: stderr is what failed.
    std::clearerr(stderr);
    std::fprintf(stderr, "las %s: verified %llu events and %llu release signatures, head %s\n", CommandWords(),
                 static_cast<unsigned long long>(outcome.verified),
                 static_cast<unsigned long long>(releases_verified),
                 ToHex(outcome.head.hash).c_str());
    for (const auto& [name, digest] : computed_digests) {
      std::fprintf(stderr, "las %s: projection %-10s sha256 %s\n", CommandWords(), name.c_str(),
                   digest.c_str());
    }
    std::fprintf(stderr, "las %s: %s\n", CommandWords(), SealLine(seal, no_key).c_str());
    std::fprintf(stderr, "las %s: %s\n", CommandWords(),
                 KeptLine(kept, kept_record, no_key).c_str());
  }
  report_untrusted();
  if (!options.summary && (std::fflush(stderr) != 0 || std::ferror(stderr))) {
    return ExitCodeFor(IoError(""));
  }
  return untrusted.empty() ? kExitOk : kExitFailure;
}

void RegisterReplay(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<ReplayOptions>();
  options->log_dir = DefaultLogDir();
  auto* cmd = app.add_subcommand(
      "replay",
      "Verify the log's hash chain from the first event, print events as JSON lines, rebuild "
      "every projection and print its digest. Works while a server holds the log.");
  AddLogFlag(*cmd, options->log_dir);
  cmd->add_option("--from", options->filter.from, "Print events from this sequence")->transform(WholeUint64());
  cmd->add_option("--to", options->filter.to, "Print events up to this sequence")->transform(WholeUint64());
  cmd->add_option("--kind", options->filter.kinds, "Print only this kind (repeatable)");
  cmd->add_option("--agent", options->filter.agent, "Print only events this agent acted in (the envelope's agent: not a grant's grantee or a message's recipient)")->check(AgentIdFlag());
  // The operator and Las itself act with no agent: the empty actor, which --agent cannot
  // spell (probe CL3).
  auto* no_agent = cmd->add_flag_callback(
      "--no-agent", [options] { options->filter.agent = std::string(); },
      "Print only events no agent acted in: the operator's (grants, revocations, rules, "
      "sources changed from the CLI) and Las's own (releases, catalogs, surfaces)");
  no_agent->excludes(cmd->get_option("--agent"));
  cmd->add_option("--surface", options->filter.surface, "Print only events about this surface");
  cmd->add_option("--anchor", options->anchors,
                  "SEQ:HASH of an event the log must still hold, as an earlier `las replay "
                  "--summary` named its head (repeatable): a rewritten or cut log fails (exit 3) "
                  "even when its chain and head were rewritten to match")
      ->check(AnchorFlag());
  options->snapshot_key_file = DefaultSnapshotKeyFile();
  cmd->add_option("--snapshot-key", options->snapshot_key_file,
                  "File with the key that sealed the log's head (as las serve's): a seal of "
                  "this key that the log contradicts fails (exit 3); the summary's \"seal\" "
                  "lists the events no seal vouches for. \"\": not judged; a key given here that "
                  "cannot be used fails the replay; the default one absent: not judged")
      ->capture_default_str();
  cmd->add_option("--trust-store", options->trust_store,
                  "Also require every recorded release to be signed by a key this trust store "
                  "lists (any of its keys, selected or not): each one that is not is named on "
                  "stderr and in the summary's untrusted_releases, and the replay exits 1")
      ->check(NonEmptyPath("leave the flag out not to compare the releases' keys with a trust "
                           "store"));
  cmd->add_flag("--summary", options->summary,
                "End with a JSON summary line on stdout instead of digests on stderr");
  cmd->callback([cmd, options, &exit_code] {
    options->snapshot_key_given = cmd->get_option("--snapshot-key")->count() > 0;
    exit_code = RunReplay(*options);
  });
}

}  // namespace las::cli
