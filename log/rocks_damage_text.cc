#include "log/rocks_damage_text.h"

namespace las::log {
namespace {

constexpr std::string_view kCorruptionPrefix = "Corruption: ";
constexpr std::string_view kOpenForRead = "While open a file for random read: ";
constexpr std::string_view kNoSuchFile = ": No such file or directory";
constexpr std::string_view kTooShort = "file is too short (";
constexpr std::string_view kTooShortEnd = " bytes) to be an sstable";
// RocksDB's note of the MANIFEST that named the file.
constexpr std::string_view kInFile = " in file ";

std::string_view WithoutCorruptionPrefixes(std::string_view text) {
  while (text.starts_with(kCorruptionPrefix)) text.remove_prefix(kCorruptionPrefix.size());
  return text;
}

// The text from `start` up to RocksDB's " in file MANIFEST-..." note or the end.
std::string_view UpToManifestNote(std::string_view text, size_t start) {
  const size_t end = text.find(kInFile, start);
  return text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
}

}  // namespace

std::string DescribeFileDamage(std::string_view rocks_text) {
  const std::string_view text = WithoutCorruptionPrefixes(rocks_text);
  if (const size_t open = text.find(kOpenForRead); open != std::string_view::npos) {
    const size_t path_start = open + kOpenForRead.size();
    const size_t path_end = text.find(kNoSuchFile, path_start);
    if (path_end != std::string_view::npos) {
      std::string path(text.substr(path_start, path_end - path_start));
      if (path.ends_with(".ldb")) path.replace(path.size() - 4, 4, ".sst");
      return "table file " + path + " is missing";
    }
  }
  if (text.starts_with(kTooShort)) {
    const size_t bytes_end = text.find(kTooShortEnd);
    if (bytes_end != std::string_view::npos) {
      const std::string_view recorded = text.substr(kTooShort.size(), bytes_end - kTooShort.size());
      const std::string_view path = UpToManifestNote(text, bytes_end + kTooShortEnd.size());
      return "table file " + std::string(path) + " is cut short (its MANIFEST records " +
             std::string(recorded) + " bytes)";
    }
  }
  return std::string(text);
}

}  // namespace las::log
