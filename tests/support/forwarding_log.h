// ForwardingLog: an EventLog that passes every call to a real log. Tests derive from it to
// stand for one failure a real disk cannot be made to show on cue (tests/support/
// held_syncs_log.h: syncs that stall; a snapshots family that cannot be read), overriding
// only that call.
// Threading: as the real log's.
#pragma once

#include <memory>
#include <string_view>
#include <utility>
#include <vector>

#include "log/event_log.h"

namespace las::testing {

class ForwardingLog : public log::EventLog {
 public:
  explicit ForwardingLog(std::unique_ptr<log::EventLog> log) : log_(std::move(log)) {}

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
  void AwaitDurableAsync(uint64_t sequence, DurableCallback done) override {
    log_->AwaitDurableAsync(sequence, std::move(done));
  }
  log::Head head() const override { return log_->head(); }
  uint64_t durable_sequence() const override { return log_->durable_sequence(); }
  log::LogStats stats() const override { return log_->stats(); }
  const log::SealVerdict& seal_at_open() const override { return log_->seal_at_open(); }
  void KeepHead(KeepHeadCallback keep, int64_t every_micros) override {
    log_->KeepHead(std::move(keep), every_micros);
  }
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

 protected:
  log::EventLog& real() { return *log_; }

 private:
  std::unique_ptr<log::EventLog> log_;
};

}  // namespace las::testing
