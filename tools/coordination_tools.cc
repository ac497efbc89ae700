#include "tools/coordination_tools.h"

namespace las::tools {

void AddCoordinationTools(BuiltinTools& tools, const LasToolContext& context,
                          CoordinationOptions options) {
  auto coordination = std::make_shared<Coordination>(context, std::move(options));
  AddStateTools(tools, coordination);
  AddMessageTools(tools, coordination);
  AddHandleTools(tools, coordination);
}

}  // namespace las::tools
