// A closed log's RocksDB table files, and damage done to them the way a failing disk would,
// for the tests of how Las reports it.
#pragma once

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

namespace las::testing {

// The log directory's table files (*.sst).
inline std::set<std::filesystem::path> TableFiles(const std::string& dir) {
  std::set<std::filesystem::path> tables;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() == ".sst") tables.insert(entry.path());
  }
  return tables;
}

// The largest table file (of a log of many events: one of its events' data blocks fills
// its middle); empty when there is none.
inline std::filesystem::path LargestTableFile(const std::string& dir) {
  std::filesystem::path largest;
  for (const auto& table : TableFiles(dir)) {
    if (largest.empty() || std::filesystem::file_size(table) > std::filesystem::file_size(largest)) {
      largest = table;
    }
  }
  return largest;
}

// Flips bits of the byte in the middle of `file`: its block then fails its checksum.
inline void FlipTheMiddleByte(const std::filesystem::path& file) {
  std::fstream stream(file, std::ios::in | std::ios::out | std::ios::binary);
  const auto middle = static_cast<std::streamoff>(std::filesystem::file_size(file) / 2);
  stream.seekg(middle);
  char byte = 0;
  stream.read(&byte, 1);
  byte = static_cast<char>(byte ^ 0x5a);
  stream.seekp(middle);
  stream.write(&byte, 1);
}

}  // namespace las::testing
