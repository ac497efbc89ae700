// The release watermark: per signing key, the highest manifest sequence this Las has
// admitted and the SHA-256 of exactly those manifest bytes. It is what makes an old
// (validly signed, unexpired) release unusable once a newer one was admitted.
//
// File format (strict JSON, docs/RELEASES.md):
//
//   {"schema_version": 1,
//    "keys": {"<key id>": {"sequence": 7, "manifest_sha256": "<64 lowercase hex>"}, ...}}
//
// Decision for a verified release (key id K, sequence S, manifest digest D) against the
// entry (s, d) for K — a key with no entry is at sequence 0:
//
//   S <  s             -> kRollback
//   S == s, D == d     -> accepted, kUnchanged (a restart re-admits the same release)
//   S == s, D != d     -> kConflict (two different manifests signed with one sequence)
//   S >  s             -> accepted, kAdvance
//
// Watermarks are per key, so rotating to a new key starts at 0 (the operator's recovery
// from a signed far-future sequence; docs/RELEASES.md).
//
// Moving the watermark is a separate, explicit step (CommitWatermark) that the caller
// takes only after its whole admission succeeded: a release that verifies but whose
// surfaces then fail must not burn a sequence. The write is atomic and durable: a
// temporary file in the same directory (mode 0600, O_EXCL), write, fsync, rename over the
// file, fsync the directory. A crash leaves either the old or the new file, never a mix
// (at worst a stray ".<name>.tmp-XXXXXX" file, which readers ignore).
//
// The file is read only through ReadSecureFile (trust/secure_file.h). A missing file
// reads as "no entries" (first admission); docs/RELEASES.md discusses what deleting it
// means.
//
// Errors: kWatermarkInvalid for content; secure_file reasons for the file; kIoError for a
// failed write. Thread safety: free functions. Commits to one file, from any number of
// processes or threads, run one at a time: CommitWatermark holds an exclusive flock(2) on
// the watermark's directory from its re-read to the rename (waiting at most
// kWatermarkLockWaitMs, then io-error), so a late commit re-decides against the early one.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "trust/digest.h"
#include "trust/reason.h"
#include "trust/secure_file.h"

namespace las::trust {

inline constexpr uint32_t kWatermarkSchemaVersion = 1;
inline constexpr size_t kMaxWatermarkBytes = 256 * 1024;
inline constexpr int kWatermarkLockWaitMs = 10 * 1000;

struct WatermarkEntry {
  uint64_t sequence = 0;
  Sha256Digest manifest_sha256{};
  bool operator==(const WatermarkEntry&) const = default;
};

struct Watermarks {
  std::map<std::string, WatermarkEntry> by_key;
  bool file_existed = false;  // false when loaded from a missing file

  // Borrowed; nullptr when the key has no entry (sequence 0).
  const WatermarkEntry* Find(std::string_view key_id) const;
};

enum class WatermarkStep {
  kAdvance,    // a higher sequence: CommitWatermark writes the file
  kUnchanged,  // the same sequence and bytes: nothing to write
};

VerdictOr<WatermarkStep> DecideWatermark(const Watermarks& watermarks, std::string_view key_id,
                                         uint64_t sequence, const Sha256Digest& manifest_sha256);

VerdictOr<Watermarks> ParseWatermarks(std::string_view bytes);
// Missing file -> empty Watermarks with file_existed == false; otherwise ReadSecureFile
// then ParseWatermarks.
VerdictOr<Watermarks> LoadWatermarks(const std::string& path, const SecureFileOptions& options = {});
std::string SerializeWatermarks(const Watermarks& watermarks);
// Whether the watermark at `path` could be replaced: its directory opens for reading (the
// commit's lock and fsync need that) and a temporary file can be made in it (then
// removed). Admission asks before launching anything, so a watermark that cannot move
// refuses the release instead of serving it unrecorded; io-error otherwise.
Verdict CheckWatermarkWritable(const std::string& path);
// Replaces the file at `path` with `watermarks`, atomically and durably (see above).
Verdict WriteWatermarksAtomically(const std::string& path, const Watermarks& watermarks);

// A watermark move decided during verification, applied by CommitWatermark.
struct PendingWatermark {
  std::string path;      // LAS_RELEASE_WATERMARK
  std::string key_id;
  WatermarkEntry next;   // the admitted release's sequence and manifest digest
  WatermarkStep step = WatermarkStep::kAdvance;
};

// Under the directory's lock (above), re-reads the file (secure checks again), re-decides
// `pending` against what is there now (a concurrent admission may have moved it:
// rollback/conflict come back as verdicts) and, for kAdvance, writes the new entry as
// WriteWatermarksAtomically does. Other keys' entries are kept. Accepted without writing
// for kUnchanged.
Verdict CommitWatermark(const PendingWatermark& pending, const SecureFileOptions& options = {});

}  // namespace las::trust
