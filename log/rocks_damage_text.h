// What RocksDB says of a damaged log file, in the words an auditor acts on (log/FORMAT.md:
// "the log's files are damaged", naming the file).
//
// Thread safety: a pure function.
#pragma once

#include <string>
#include <string_view>

namespace las::log {

// `rocks_text`: a failed open's or checksum pass's status text (rocksdb::Status::ToString).
// A lost table file is named as the file that was lost — RocksDB, failing to find NNN.sst,
// tries the legacy name NNN.ldb and reports that one —, a table file cut short with the
// size its MANIFEST records; any other text is RocksDB's own, without its repeated
// "Corruption: " prefixes.
std::string DescribeFileDamage(std::string_view rocks_text);

}  // namespace las::log
