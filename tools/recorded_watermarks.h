// The watermarks a log recorded (WatermarkAdvanced, folded by reducers/releases.h), as the
// trust checks read a watermark file: admission refuses a release below them, or at them
// with other bytes, even when the file says less (docs/RELEASES.md).
#pragma once

#include "reducers/releases.h"
#include "trust/watermark.h"

namespace las::tools {

trust::Watermarks RecordedWatermarks(const reducers::Releases& releases);

}  // namespace las::tools
