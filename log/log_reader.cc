#include "log/log_reader.h"

#include "log/chain_cursor.h"
#include "log/rocks_store.h"

namespace las::log {

Status DrainAndVerify(EventCursor& cursor) {
  while (true) {
    auto more = cursor.Next();
    if (!more.ok()) return more.status();
    if (!*more) return Status::Ok();
  }
}

namespace {

class FollowerReader final : public LogReader {
 public:
  explicit FollowerReader(std::unique_ptr<RocksStore> store) : store_(std::move(store)) {}

  Status CatchUp() override { return store_->CatchUp(); }
  Result<Head> head() override { return store_->ReadHead(rocksdb::ReadOptions()); }
  Result<std::unique_ptr<EventCursor>> Read(uint64_t from) override {
    return OpenChainCursor(*store_, from, /*use_snapshot=*/false);
  }
  Result<Hash> EventHash(uint64_t sequence) override { return store_->EventHash(sequence); }
  Result<SealVerdict> JudgeSeal(const SnapshotKey& key, const EventCursor& cursor) override {
    return JudgeHeadSeal(cursor.head_seal_record(), &key, cursor.head(),
                         [this](uint64_t sequence) { return store_->EventHash(sequence); });
  }
  Result<std::vector<uint64_t>> SnapshotSequences() override {
    return store_->SnapshotSequences();
  }
  Result<std::string> GetSnapshot(uint64_t sequence) override {
    return store_->GetSnapshot(sequence);
  }
  Status Verify() override {
    auto cursor = Read(1);
    if (!cursor.ok()) return cursor.status();
    return DrainAndVerify(**cursor);
  }

 private:
  std::unique_ptr<RocksStore> store_;
};

}  // namespace

Result<std::unique_ptr<LogReader>> LogReader::Open(const std::string& dir) {
  auto store = RocksStore::Open(dir, RocksStore::Mode::kFollower, /*create_if_missing=*/false);
  if (!store.ok()) return store.status();
  return std::unique_ptr<LogReader>(new FollowerReader(std::move(*store)));
}

}  // namespace las::log
