// RocksStore's reads behind log/log_view.h: one event's stored chain hash and the
// projection snapshots, the same for the writer and a follower.
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "log/rocks_layout.h"
#include "log/rocks_store.h"

namespace las::log {

Result<Hash> RocksStore::EventHash(uint64_t sequence) {
  return StoredEventHash(*db_, events_, sequence);
}

Result<Hash> StoredEventHash(rocksdb::DB& db, rocksdb::ColumnFamilyHandle* events,
                             uint64_t sequence) {
  if (sequence == 0) return NotFound("event 0 does not exist");
  std::string value;
  auto s = db.Get(rocksdb::ReadOptions(), events, layout::EncodeSequenceKey(sequence), &value);
  if (s.IsNotFound()) return NotFound("event " + std::to_string(sequence) + " does not exist");
  LAS_RETURN_IF_ERROR(FromRocks(s, "reading event " + std::to_string(sequence)));
  if (value.size() < layout::kHashSize) {
    return Corruption("event " + std::to_string(sequence) + " is shorter than its hash");
  }
  Hash hash;
  std::memcpy(hash.data(), value.data(), hash.size());
  return hash;
}

Result<std::vector<uint64_t>> RocksStore::SnapshotSequences() {
  std::vector<uint64_t> out;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions(), snapshots_));
  for (it->SeekToLast(); it->Valid(); it->Prev()) {
    // A key that is not a sequence is not a snapshot this Las wrote: skip it.
    const auto key = it->key();
    if (auto sequence = layout::DecodeSequenceKey({key.data(), key.size()})) {
      out.push_back(*sequence);
    }
  }
  LAS_RETURN_IF_ERROR(FromRocks(it->status(), "listing snapshots"));
  return out;
}

Result<std::string> RocksStore::GetSnapshot(uint64_t sequence) {
  std::string value;
  auto s = db_->Get(rocksdb::ReadOptions(), snapshots_, layout::EncodeSequenceKey(sequence), &value);
  if (s.IsNotFound()) return NotFound("no snapshot at " + std::to_string(sequence));
  LAS_RETURN_IF_ERROR(FromRocks(s, "reading a snapshot"));
  return value;
}

}  // namespace las::log
