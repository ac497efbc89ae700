// HeldSyncsLog: an EventLog that stands for a disk whose syncs stall. It passes everything
// to a real log except AwaitDurableAsync, whose waits it keeps until Release(): the events
// are written, but no one who waits off the writer's thread hears they are durable. (A
// synced Append or AppendInPlace on the writer's own thread is not held.)
// Threading: AwaitDurableAsync and Release on one thread (the test's loop).
#pragma once

#include <memory>
#include <string_view>
#include <utility>
#include <vector>

#include "log/event_log.h"

namespace las::testing {

class HeldSyncsLog final : public log::EventLog {
 public:
  explicit HeldSyncsLog(std::unique_ptr<log::EventLog> log) : log_(std::move(log)) {}

  size_t held() const { return held_.size(); }
  // Lets every held wait go on to the real log.
  void Release() {
    for (auto& [sequence, done] : std::exchange(held_, {})) {
      log_->AwaitDurableAsync(sequence, std::move(done));
    }
  }

  void AwaitDurableAsync(uint64_t sequence, DurableCallback done) override {
    held_.emplace_back(sequence, std::move(done));
  }
  Result<log::AppendedRange> Append(std::vector<log::EventDraft> drafts,
                                    log::Durability durability) override {
    return log_->Append(std::move(drafts), durability);
  }
  Result<log::AppendedRange> AppendInPlace(std::vector<log::EventDraft>& drafts,
                                           log::Durability durability) override {
    return log_->AppendInPlace(drafts, durability);
  }
  void AppendAsync(std::vector<log::EventDraft> drafts, log::Durability durability,
                   AppendCallback done) override {
    log_->AppendAsync(std::move(drafts), durability, std::move(done));
  }
  log::Head head() const override { return log_->head(); }
  log::LogStats stats() const override { return log_->stats(); }
  Result<std::unique_ptr<log::EventCursor>> Read(uint64_t from) override { return log_->Read(from); }
  Status Flush() override { return log_->Flush(); }
  Status Verify() override { return log_->Verify(); }
  Result<log::Hash> EventHash(uint64_t sequence) override { return log_->EventHash(sequence); }
  Status PutSnapshot(uint64_t sequence, std::string_view record) override {
    return log_->PutSnapshot(sequence, record);
  }
  Result<std::vector<uint64_t>> SnapshotSequences() override { return log_->SnapshotSequences(); }
  Result<std::string> GetSnapshot(uint64_t sequence) override { return log_->GetSnapshot(sequence); }
  Status DeleteSnapshot(uint64_t sequence) override { return log_->DeleteSnapshot(sequence); }

 private:
  std::unique_ptr<log::EventLog> log_;
  std::vector<std::pair<uint64_t, DurableCallback>> held_;
};

}  // namespace las::testing
