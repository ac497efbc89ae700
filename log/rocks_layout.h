// Private to log/: the RocksDB layout of a Las log, exactly as log/FORMAT.md describes it.
// Any change here is a format change: bump kFormatVersion and update FORMAT.md.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "log/chain_hash.h"
#include "log/event.h"

namespace las::log::layout {

// FORMAT.md §Column families
inline constexpr std::string_view kEventsFamily = "events";
inline constexpr std::string_view kMetaFamily = "meta";
inline constexpr std::string_view kSnapshotsFamily = "snapshots";

// FORMAT.md §Metadata
inline constexpr std::string_view kMagicKey = "magic";
inline constexpr std::string_view kMagicValue = "las.event-log";
inline constexpr std::string_view kFormatVersionKey = "format_version";
inline constexpr std::string_view kHeadKey = "head";
// FORMAT.md §The head seal (log/head_seal.h); written only by a writer with a key.
inline constexpr std::string_view kHeadSealKey = "head_seal";
inline constexpr uint32_t kFormatVersion = 1;

// FORMAT.md §Events: key = 8-byte big-endian sequence; value = 32-byte hash || envelope.
inline constexpr size_t kSequenceKeySize = 8;
inline constexpr size_t kHashSize = 32;
inline constexpr size_t kHeadValueSize = kSequenceKeySize + kHashSize;
static_assert(sizeof(Hash) == kHashSize);

std::string EncodeSequenceKey(uint64_t sequence);
// nullopt unless the key is exactly 8 bytes.
std::optional<uint64_t> DecodeSequenceKey(std::string_view key);

std::string EncodeU32(uint32_t value);
std::optional<uint32_t> DecodeU32(std::string_view bytes);

std::string EncodeHead(const Head& head);
std::optional<Head> DecodeHead(std::string_view bytes);

}  // namespace las::log::layout
