// EchoesCredential (tools/credentials.h): a child's result that carries an injected
// credential, in any JSON spelling of it, is recognized; other text is not.
#include "tools/credentials.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace las::tools {
namespace {

TEST(CredentialsTest, EveryJsonSpellingOfAnInjectedValueIsRecognized) {
  const std::vector<std::string> ascii = {"hunter2-SECRET/key"};
  for (const char* result : {
           R"({"content":[{"type":"text","text":"hunter2-SECRET/key"}]})",
           R"({"content":[{"type":"text","text":"\u0068unter2-SECRET/key"}]})",
           R"({"content":[{"type":"text","text":"\u0068UNTER"}],"x":"hunter2-SECRET\/key"})",
           R"({"structuredContent":{"hunter2-SECRET\/key":1}})",
           R"({"content":[{"type":"text","text":"token=hunter2-SECRET\u002fkey;"}]})",
       }) {
    EXPECT_TRUE(EchoesCredential(result, ascii)) << result;
  }
  const std::vector<std::string> accented = {"key-\xC3\xA9t\xC3\xA9"};
  EXPECT_TRUE(EchoesCredential(R"({"content":[{"type":"text","text":"key-\u00e9t\u00E9"}]})",
                               accented));
}

// A credential is read from its LAS_CREDENTIAL_ variable; unset and empty alike are no
// credential (the call is refused credential-unavailable, not sent with "").
TEST(CredentialsTest, AnEmptyVariableIsNoCredential) {
  trust::Environment environment = {{"LAS_CREDENTIAL_MOST_API_KEY", "s3cret-value"},
                                    {"LAS_CREDENTIAL_EMPTY_KEY", ""}};
  auto resolve = EnvironmentCredentials(environment);
  EXPECT_EQ(resolve("most.api-key"), "s3cret-value");
  EXPECT_EQ(resolve("empty.key"), std::nullopt);
  EXPECT_EQ(resolve("unset.key"), std::nullopt);
}

TEST(CredentialsTest, OtherTextAndTooShortValuesAreNotRefused) {
  EXPECT_FALSE(EchoesCredential(R"({"content":[{"type":"text","text":"hunter2"}]})",
                                {"hunter2-SECRET/key"}));
  EXPECT_FALSE(EchoesCredential(R"({"content":[{"type":"text","text":"abc"}]})", {"abc"}))
      << "below kMinCheckedCredentialBytes: would match by chance";
  EXPECT_FALSE(EchoesCredential(R"({"content":[]})", {}));
}

}  // namespace
}  // namespace las::tools
