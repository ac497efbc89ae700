// Direct RocksDB access to a Las log's column families, for tests that damage a log the
// way an attacker or a broken disk would: writing to the store behind the log's back.
#pragma once

#include <rocksdb/db.h>

#include <memory>
#include <string>
#include <vector>

namespace las::testing {

class RawDb {
 public:
  explicit RawDb(const std::string& dir);
  ~RawDb();

  void Put(const std::string& family, const std::string& key, const std::string& value);
  void Delete(const std::string& family, const std::string& key);
  std::string Get(const std::string& family, const std::string& key);
  // Creates the column family `family` (none of a Las log's) holding one key.
  void AddFamily(const std::string& family, const std::string& key, const std::string& value);

 private:
  rocksdb::ColumnFamilyHandle* Family(const std::string& name);

  std::unique_ptr<rocksdb::DB> db_;
  std::vector<rocksdb::ColumnFamilyHandle*> handles_;
  std::vector<std::string> names_;
};

std::string SequenceKey(uint64_t sequence);

}  // namespace las::testing
