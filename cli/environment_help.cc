#include "cli/environment_help.h"

namespace las::cli {
namespace {

constexpr const char* kNode =
    "  LAS_NODE                  The Node executable children may use (exactly that path)\n";
constexpr const char* kCredentialsAndPolicies =
    "  LAS_CREDENTIAL_<NAME>     A credential, filled into the arguments of the tools whose\n"
    "                            signed templates name it (never shown to the model or logged)\n"
    "  LAS_SKARBIEC_POLICY, LAS_SURFACE_POLICY, LAS_FINANCE_*\n"
    "                            Special surfaces' policies (docs/POLICIES.md)\n"
    "  SKARBIEC_MCP_AGENT_ID     With Skarbiec served: the one agent that may open a session\n";
constexpr const char* kDefaultPaths =
    "  XDG_STATE_HOME, XDG_CONFIG_HOME, HOME\n"
    "                            Where the default log and snapshot key are (shown above)\n";

}  // namespace

std::string FederationEnvironmentHelp(bool sessions) {
  std::string help =
      "Environment (docs/CLI.md):\n"
      "  LAS_RELEASE_MANIFEST, LAS_RELEASE_SIGNATURE, LAS_TRUST_STORE, LAS_RELEASE_WATERMARK\n"
      "                            The signed release that admits surfaces (docs/RELEASES.md)\n"
      "  LAS_WORKSPACE             The folder every child's files must be in\n"
      "  LAS_ONLY, LAS_SKIP        Comma lists of surfaces: keep only these / leave these out\n";
  help += kNode;
  help += kCredentialsAndPolicies;
  help += kDefaultPaths;
  if (sessions) {
    help +=
        "  XDG_RUNTIME_DIR           Where the daemon's socket is ($XDG_RUNTIME_DIR/las/, else\n"
        "                            /tmp/las-UID/; docs/DAEMON.md)\n";
    help +=
        "  LAS_AGENT_ID              The default agent of a session whose initialize names none\n"
        "                            (else `default`)\n"
        "  LAS_DEFAULT_AGENT_GRANT   `none`: the default agent may call only what a grant or rule\n"
        "                            allows (docs/GRANTS.md)\n";
  }
  return help;
}

std::string CheckEnvironmentHelp() {
  return std::string("Environment (docs/CLI.md), besides each path flag's variable:\n") +
         kNode + kCredentialsAndPolicies;
}

std::string DraftEnvironmentHelp() {
  return std::string("Environment (docs/CLI.md), besides each path flag's variable:\n") + kNode +
         "  LAS_CREDENTIAL_<NAME>     A drafted tool whose name, description or schema carries\n"
         "                            one of these values is refused (a release shows it to all)\n";
}

}  // namespace las::cli
