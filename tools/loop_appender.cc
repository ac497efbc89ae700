#include "tools/loop_appender.h"

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <algorithm>

#include "tools/live_projections.h"

namespace las::tools {

LoopAppender::LoopAppender(boost::asio::io_context& io, log::EventLog& log,
                           LiveProjections* live)
    : io_(io), log_(log), live_(live), self_(std::make_shared<LoopAppender*>(this)) {}

LoopAppender::~LoopAppender() {
  *self_ = nullptr;
  if (!drafts_.empty()) (void)log_.Append(std::move(drafts_), log::Durability::kSynced);
}

void LoopAppender::Append(std::vector<log::EventDraft> drafts, log::Durability durability,
                          Done done) {
  if (drafts.empty()) {
    boost::asio::post(io_, [done = std::move(done)] {
      done(InvalidArgument("an append needs at least one event"));
    });
    return;
  }
  if (queued_.empty()) {
    boost::asio::post(io_, [self = std::weak_ptr<LoopAppender*>(self_)] {
      if (auto alive = self.lock(); alive && *alive != nullptr) (*alive)->WriteQueued();
    });
  }
  queued_.push_back({drafts.size(), durability, std::move(done)});
  for (auto& draft : drafts) drafts_.push_back(std::move(draft));
}

void LoopAppender::WriteQueued() {
  if (!queued_.empty()) Flush();  // a flush posted for a queue written since finds none
}

void LoopAppender::Flush() {
  const uint64_t id = next_flush_++;
  std::vector<log::EventDraft> drafts = std::move(drafts_);
  std::vector<Queued> queued = std::move(queued_);
  drafts_.clear();
  queued_.clear();
  bool synced = false;
  for (const auto& member : queued) synced |= member.durability == log::Durability::kSynced;
  const bool sync_inline =
      synced && open_calls_ <= 1 && syncs_in_flight_ == 0 && !sync_off_loop_always_;

  Result<log::AppendedRange> range = log_.AppendInPlace(
      drafts, sync_inline ? log::Durability::kSynced : log::Durability::kDeferred);
  if (range.status().code() == Code::kInvalidArgument && queued.size() > 1) {
    // One member's batch is malformed (nothing was written): write each on its own, so
    // only that one fails.
    size_t at = 0;
    for (auto& member : queued) {
      std::vector<log::EventDraft> own(std::make_move_iterator(drafts.begin() + at),
                                       std::make_move_iterator(drafts.begin() + at + member.count));
      at += member.count;
      auto written = log_.AppendInPlace(own, member.durability);
      if (written.ok() && live_ != nullptr) (void)live_->FoldStored(*written, own);
      if (!written.ok()) NoteFailure(written.status());
      member.done(std::move(written));
    }
    // The members that failed alone wrote nothing; what the others wrote ends at the head.
    Written(id, failure_.ok() ? Result<uint64_t>(log_.head().sequence) : Result<uint64_t>(failure_));
    return;
  }
  if (range.ok() && live_ != nullptr) (void)live_->FoldStored(*range, drafts);
  Written(id, range.ok() ? Result<uint64_t>(range->last) : Result<uint64_t>(range.status()));
  Complete(std::move(range), std::move(queued), !synced || sync_inline);
}

void LoopAppender::Written(uint64_t id, const Result<uint64_t>& last) {
  const uint64_t durable = log_.durable_sequence();
  std::erase_if(flush_last_, [durable](const auto& entry) { return entry.second <= durable; });
  if (last.ok() && *last > durable) flush_last_[id] = *last;
  auto waiting = flush_waiters_.extract(id);
  if (waiting.empty()) return;
  for (auto& then : waiting.mapped()) {
    if (!last.ok()) {
      then(last.status());
    } else {
      AfterDurable(*last, std::move(then));
    }
  }
}

void LoopAppender::Complete(Result<log::AppendedRange> range, std::vector<Queued> queued,
                            bool durable) {
  if (!range.ok()) {
    NoteFailure(range.status());
    for (auto& member : queued) member.done(range.status());
    return;
  }
  // Each member's own range, in order; the deferred ones are answered now.
  std::vector<std::pair<log::AppendedRange, Done>> awaiting;
  uint64_t next = range->first;
  for (auto& member : queued) {
    const log::AppendedRange own{next, next + member.count - 1};
    next += member.count;
    if (durable || member.durability == log::Durability::kDeferred) {
      member.done(own);
    } else {
      awaiting.emplace_back(own, std::move(member.done));
    }
  }
  if (awaiting.empty()) return;
  ++syncs_in_flight_;
  AfterDurable(range->last, [this, awaiting = std::move(awaiting)](Status synced) mutable {
    --syncs_in_flight_;
    for (auto& [own, done] : awaiting) {
      if (synced.ok()) {
        done(own);
      } else {
        done(synced);
      }
    }
  });
}

uint64_t LoopAppender::visible_sequence() const {
  return live_ != nullptr ? live_->sequence() : log_.head().sequence;
}

void LoopAppender::AfterDurable(uint64_t sequence, std::function<void(Status)> then) {
  if (sequence <= log_.durable_sequence()) {
    then(Status::Ok());
    return;
  }
  log_.AwaitDurableAsync(sequence, [io = &io_, self = std::weak_ptr<LoopAppender*>(self_),
                                    then = std::move(then)](Status synced) mutable {
    boost::asio::post(*io, [self, synced = std::move(synced), then = std::move(then)] {
      auto alive = self.lock();
      if (!alive || *alive == nullptr) return;
      if (!synced.ok()) (*alive)->NoteFailure(synced);
      then(synced);
    });
  });
}

LoopAppender::Horizon LoopAppender::horizon() const {
  return {visible_sequence(), queued_.empty() ? 0 : next_flush_};
}

void LoopAppender::AfterDurable(Horizon horizon, std::function<void(Status)> then) {
  if (horizon.flush == 0) return AfterDurable(horizon.visible, std::move(then));
  if (horizon.flush >= next_flush_) {  // not written yet
    flush_waiters_[horizon.flush].push_back(
        [this, visible = horizon.visible, then = std::move(then)](Status written) mutable {
          if (!written.ok()) return then(written);
          AfterDurable(visible, std::move(then));
        });
    return;
  }
  // Written: its last event, unless pruned as durable.
  auto it = flush_last_.find(horizon.flush);
  const uint64_t last = it == flush_last_.end() ? 0 : it->second;
  AfterDurable(std::max(horizon.visible, last), std::move(then));
}

void LoopAppender::NoteFailure(const Status& status) {
  if (status.code() == Code::kInvalidArgument || !failure_.ok()) return;
  failure_ = status;
  if (on_failure_) on_failure_(failure_);
}

}  // namespace las::tools
