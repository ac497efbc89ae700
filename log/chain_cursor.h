// Private to log/: the EventCursor over a RocksStore.
#pragma once

#include <memory>

#include "log/event_cursor.h"
#include "log/rocks_store.h"

namespace las::log {

// Reads events from `from` (>= 1) on. When from > 1 the chain is anchored at the stored
// hash of event from-1 (verified from there on, not before). `store` must outlive the cursor.
// `use_snapshot`: pin a RocksDB snapshot (writer); followers read their caught-up state.
Result<std::unique_ptr<EventCursor>> OpenChainCursor(RocksStore& store, uint64_t from,
                                                     bool use_snapshot);

}  // namespace las::log
