// The head seal (log/FORMAT.md §The head seal): a keyed MAC over the head that a writer
// holding the snapshot key (log/snapshot.h) stores beside the head record, in the same write
// batch. The chain has no secret, so whoever can write the log directory can append, rewrite
// or cut events and recompute every hash and the head (probe DC1); they cannot make a seal.
// A seal vouches that its writer wrote the chain up to the head it names. The events it did
// not write — appended by a writer without the key, or by a forger — stay listed as
// unvouched in every later seal, so they can never come to look vouched.
//
// What a seal cannot tell: a log rolled back to an earlier state whose seal was copied then
// (the directory swapped for an old copy: the head kept outside the log tells, log/kept_head.h);
// a seal removed together with the events (that log reads "unsealed", which an auditor must
// not take for "sealed").
//
// Thread safety: free functions over values; no shared state.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "log/event.h"
#include "log/snapshot.h"

namespace las::log {

// Events first..last inclusive.
struct SequenceSpan {
  uint64_t first = 0;
  uint64_t last = 0;
  bool operator==(const SequenceSpan&) const = default;
};

// At most this many spans are kept: past it, the two oldest merge into one (which lists
// the events between them as unvouched too — never fewer than the truth).
inline constexpr size_t kMaxUnvouchedSpans = 64;

struct HeadSeal {
  Head head;
  std::vector<SequenceSpan> unvouched;  // ascending, disjoint, all ≤ head.sequence
};

// The 8 bytes that name `key` in the records it MACs (this seal, log/kept_head.h) without
// revealing it, so that a record of another key is told from a forged one.
std::string SealKeyId(const SnapshotKey& key);

// The record: magic, version, key id, head, spans, and the MAC over all of it.
std::string EncodeHeadSeal(const HeadSeal& seal, const SnapshotKey& key);

enum class SealState {
  kNoKey,     // no key to judge with
  kAbsent,    // no seal: a log no keyed writer has written to yet
  kOtherKey,  // a seal made with another key, or one that cannot be read as a seal
  kSealed,    // a seal this key made, for an event the log still holds with that hash
};

struct SealVerdict {
  SealState state = SealState::kNoKey;
  uint64_t through = 0;  // kSealed: the sequence of the sealed head
  // The log's events that no seal of this key vouches for, as the log stands: the seal's
  // own list and the events after its head; every event (1..head) unless kSealed.
  std::vector<SequenceSpan> unvouched;
  // kOtherKey: the id (hex, as in the kept-head files' names) of the key the seal names;
  // "" when the record cannot be read as a seal at all.
  std::string other_key_id;
};

// The stored hash of event `sequence` (kNotFound when the log does not hold it).
using HashAt = std::function<Result<Hash>(uint64_t sequence)>;

// The hash the log holds for event `sequence`: nullopt when it holds none; kIo from `hash_at`.
Result<std::optional<Hash>> HeldHash(const HashAt& hash_at, uint64_t sequence);

// How a record that names a head of the log (a seal, a kept head) says so, for the messages
// of CheckLogHolds: "the log ends at event H, but <claims> event N: <cut>" and "event N is
// not <the_one> (hash X, <label> Y): the log was rewritten from there or before".
struct HeadClaim {
  std::string_view claims;
  std::string_view cut;
  std::string_view the_one;
  std::string_view label;
};

// kCorruption unless the log, whose head is `head`, still holds `claimed` (an event with
// that sequence and hash); kIo from `hash_at`.
Status CheckLogHolds(const Head& claimed, const Head& head, const HashAt& hash_at,
                     const HeadClaim& words);

// Whether `status` is CheckLogHolds' "the log ends at event H" (cut below the claim), whose
// first bad sequence is H + 1, the first missing event; a rewrite names none.
bool SaysTheLogWasCut(const Status& status);

// Judges `record` (nullopt: none stored) for a log whose head is `head`, with `key` (null:
// kNoKey). kCorruption when a seal naming this key says otherwise than the log: it cannot
// be read or its MAC fails (the record was altered: never taken for another key's, probe
// DP1), it seals an event beyond the head (the log was cut) or one the log holds with
// another hash (rewritten). kIo from `hash_at`.
Result<SealVerdict> JudgeHeadSeal(std::optional<std::string_view> record, const SnapshotKey* key,
                                  const Head& head, const HashAt& hash_at);

// What an operator is told while `verdict` leaves events unvouched (every start of a writer:
// the CLI verbs too), naming them (the caller adds how to list them with its key); "" when
// every event of the log (head `head`) is vouched for, or there is no key, or the seal is
// another key's (what the writer does about that decides what to say: tools/sealed_log.h).
std::string UnvouchedNote(const SealVerdict& verdict, uint64_t head);

// "1-9, 12": each span, a single event by its sequence alone.
std::string SpansText(const std::vector<SequenceSpan>& spans);

// `spans` with first..last added (merged into the last span when they touch), then cut
// to kMaxUnvouchedSpans.
void AddUnvouched(std::vector<SequenceSpan>& spans, SequenceSpan added);

}  // namespace las::log
