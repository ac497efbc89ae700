#include "tests/log/raw_db.h"

#include <stdexcept>

namespace las::testing {

RawDb::RawDb(const std::string& dir) {
  rocksdb::Options options;
  rocksdb::Status s = rocksdb::DB::ListColumnFamilies(options, dir, &names_);
  if (!s.ok()) throw std::runtime_error(s.ToString());
  std::vector<rocksdb::ColumnFamilyDescriptor> families;
  for (const auto& name : names_) families.emplace_back(name, rocksdb::ColumnFamilyOptions());
  rocksdb::DB* raw = nullptr;
  s = rocksdb::DB::Open(options, dir, families, &handles_, &raw);
  if (!s.ok()) throw std::runtime_error(s.ToString());
  db_.reset(raw);
}

RawDb::~RawDb() {
  for (auto* handle : handles_) db_->DestroyColumnFamilyHandle(handle).PermitUncheckedError();
  db_->Close().PermitUncheckedError();
}

rocksdb::ColumnFamilyHandle* RawDb::Family(const std::string& name) {
  for (size_t i = 0; i < names_.size(); ++i) {
    if (names_[i] == name) return handles_[i];
  }
  throw std::runtime_error("no column family " + name);
}

void RawDb::Put(const std::string& family, const std::string& key, const std::string& value) {
  rocksdb::WriteOptions write;
  write.sync = true;
  auto s = db_->Put(write, Family(family), key, value);
  if (!s.ok()) throw std::runtime_error(s.ToString());
}

void RawDb::Delete(const std::string& family, const std::string& key) {
  rocksdb::WriteOptions write;
  write.sync = true;
  auto s = db_->Delete(write, Family(family), key);
  if (!s.ok()) throw std::runtime_error(s.ToString());
}

std::string RawDb::Get(const std::string& family, const std::string& key) {
  std::string value;
  auto s = db_->Get(rocksdb::ReadOptions(), Family(family), key, &value);
  if (!s.ok()) throw std::runtime_error(s.ToString());
  return value;
}

void RawDb::AddFamily(const std::string& family, const std::string& key, const std::string& value) {
  rocksdb::ColumnFamilyHandle* handle = nullptr;
  auto s = db_->CreateColumnFamily(rocksdb::ColumnFamilyOptions(), family, &handle);
  if (!s.ok()) throw std::runtime_error(s.ToString());
  handles_.push_back(handle);
  names_.push_back(family);
  Put(family, key, value);
}

std::string SequenceKey(uint64_t sequence) {
  std::string key(8, '\0');
  for (int i = 7; i >= 0; --i) {
    key[static_cast<size_t>(i)] = static_cast<char>(sequence & 0xFF);
    sequence >>= 8;
  }
  return key;
}

}  // namespace las::testing
