#include "tools/live_projections.h"

namespace las::tools {

Status LiveProjections::CatchUp() {
  if (log_.head().sequence <= set_.sequence()) return Status::Ok();
  auto cursor = log_.Read(set_.sequence() + 1);
  if (!cursor.ok()) return cursor.status();
  while (true) {
    auto next = (*cursor)->Next();
    if (!next.ok()) return next.status();
    if (!*next) return Status::Ok();
    set_.Apply((*cursor)->current());
  }
}

}  // namespace las::tools
