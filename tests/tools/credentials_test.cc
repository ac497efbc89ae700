// EchoesCredential (tools/credentials.h): a child's result that carries an injected
// credential, in any JSON spelling of it, is recognized; other text is not.
#include "tools/credentials.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "tools/carried_secrets.h"
#include "tools/credential_encodings.h"

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

// A value with stray bytes cannot come back whole in JSON; its well-formed stretches of 8
// bytes or more, and the whole with its stray bytes dropped, replaced or escaped, are looked
// for instead (probe FE1: Python echoed "bin\udcff\udcfeSECRET..." and 16 of its 18 bytes
// reached the client).
TEST(CredentialsTest, TheSpellingsOfAValueThatIsNotUtf8AreRecognized) {
  const std::vector<std::string> odd = {std::string("bin\xFF\xFE") + "SECRETVALUE12345"};
  EXPECT_TRUE(EchoesCredential(
      R"({"content":[{"type":"text","text":"bin\udcff\udcfeSECRETVALUE12345"}]})", odd));
  EXPECT_TRUE(EchoesCredential(R"({"content":[{"type":"text","text":"secretvalue12345"}]})", odd))
      << "in another case too";
  EXPECT_FALSE(EchoesCredential(R"({"content":[{"type":"text","text":"bin and more"}]})", odd))
      << "a stretch under 8 bytes is not looked for";
  EXPECT_FALSE(EchoesCredential(R"({"content":[{"type":"text","text":"SECRETVALUE1234"}]})", odd));
  // Every well-formed piece under 8 bytes: the lossy decodings of the whole are looked for
  // (probe FJ2: dropped or U+FFFD stray bytes came through).
  const std::vector<std::string> short_pieces = {std::string("SKprod7\xFF") + "A9xQ2zK\xFE" +
                                                 "M3nB8vR\xFF" + "Tq5Lw0"};
  for (const char* result : {
           R"({"content":[{"type":"text","text":"SKprod7A9xQ2zKM3nB8vRTq5Lw0"}]})",
           R"({"content":[{"type":"text","text":"SKprod7\ufffdA9xQ2zK\ufffdM3nB8vR\ufffdTq5Lw0"}]})",
           "{\"content\":[{\"type\":\"text\",\"text\":\"SKprod7\xEF\xBF\xBD" "A9xQ2zK\xEF\xBF\xBD"
           "M3nB8vR\xEF\xBF\xBD" "Tq5Lw0\"}]}",
           R"({"content":[{"type":"text","text":"SKprod7\udcffA9xQ2zK\udcfeM3nB8vR\udcffTq5Lw0"}]})",
           R"({"content":[{"type":"text","text":"SKprod7\\xffA9xQ2zK\\xfeM3nB8vR\\xffTq5Lw0"}]})",
       }) {
    EXPECT_TRUE(EchoesCredential(result, short_pieces)) << result;
  }
  EXPECT_FALSE(EchoesCredential(R"({"content":[{"type":"text","text":"SKprod7 A9xQ2zK"}]})", short_pieces));
  const std::vector<std::string> mostly_stray = {std::string("\xFF\xFE") + "abcd"};
  EXPECT_FALSE(EchoesCredential(R"({"content":[{"type":"text","text":"abcd efgh"}]})", mostly_stray))
      << "what is left without the stray bytes is too short to look for";
}

// A client reads a JSON number by its value: 7.3918264e7 is the credential 73918264 as much
// as 73918264 is. A number token equal to a credential of decimal digits (an optional
// '-' first) counts in every spelling, decided exactly on the digits.
// A result whose structuredContent holds the number token `n`.
std::string ResultWithNumber(const char* n) { return std::string(R"({"structuredContent":{"n":)") + n + "}}"; }

TEST(CredentialsTest, EveryNumberSpellingOfANumericCredentialIsRecognized) {
  for (const char* n : {"73918264", "7.3918264e7", "7.3918264E+7", "73918264.0", "739182640E-1",
                        "0.73918264e8", "73918264.000e0", "-7.3918264e7", "7391826400e-2",
                        // more digits than a double holds: every double reader decodes 73918264
                        "73918263.99999999999999", "7391826.39999999999999999999e1"}) {
    EXPECT_TRUE(EchoesCredential(ResultWithNumber(n), {"73918264"})) << n;
  }
  const std::vector<std::string> negative = {"-73918000"};
  EXPECT_TRUE(EchoesCredential(R"({"n":[1,-7.3918e7]})", negative));
  EXPECT_FALSE(EchoesCredential(R"({"n":7.3918e7})", negative)) << "the credential is negative";
  // JSON text held in a string holds its numbers too, at every level (probe BO1).
  for (const char* held : {R"({"a":"{\"n\":1,\"m\":7.3918264e7}"})", R"({"a":"[7.3918264e7]"})",
                           R"({"a":" 739182640e-1"})", R"(["{\"b\":\"[1, 739182640E-1]\"}"])",
                           R"({"{\"k\":7.3918264e7}":1})"}) {
    EXPECT_TRUE(EchoesCredential(held, {"73918264"})) << held;
  }
  for (const char* other : {R"({"a":"{\"m\":7.39182645e7}"})", R"({"a":"7.3918264e6"})",
                            R"({"a":"2026-12-05 7.3918264e7"})"}) {
    EXPECT_FALSE(EchoesCredential(other, {"73918264"})) << other;
  }
  const std::vector<std::string> leading_zeros = {"00731"};
  EXPECT_TRUE(EchoesCredential(R"({"pin":731.0})", leading_zeros));
  EXPECT_TRUE(EchoesCredential(R"({"pin":731})", leading_zeros));
}

TEST(CredentialsTest, OtherNumbersAndNonNumericCredentialsAreNotRefused) {
  // (73918264.5 itself is refused: its bytes hold the credential.)
  for (const char* n : {"7.39182645e7", "7.3918264500001e7", "7.3918264e6", "7.3918264001e7", "73918265",
                        "1e999999999", "-1e-999999999", "0.0", "7.3918264e7000000000"}) {
    EXPECT_FALSE(EchoesCredential(ResultWithNumber(n), {"73918264"})) << n;
  }
  // Only a credential of digits is a number: these stay compared as text.
  for (const char* secret : {"7391e264", "7.3918264e7", "0x4681B78", "73918264 ", "+73918264"}) {
    EXPECT_FALSE(EchoesCredential(R"({"n":739182640e-1})", {secret})) << secret;
  }
  EXPECT_TRUE(EchoesCredential(R"({"t":"7391e264"})", {"7391e264"}));
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

// A tool's text content is often JSON itself; its reader decodes that too. An encoder that
// writes `/` as `\/` (PHP, Java) or every character as `\u` must not hide the value, at any
// level of nesting (probe Z1); nor may a change of ASCII case (probe Z2: an upper-cased
// hex token is the token).
TEST(CredentialsTest, ValuesInsideJsonTextAndInAnotherCaseAreRecognized) {
  const std::vector<std::string> secret = {"hunter2-SECRET/key"};
  const auto text_result = [](const std::string& text) {
    return nlohmann::json{{"content", {{{"type", "text"}, {"text", text}}}}}.dump();
  };
  const std::string slash_escaped = R"({"auth":"hunter2-SECRET\/key"})";
  EXPECT_TRUE(EchoesCredential(text_result(slash_escaped), secret)) << text_result(slash_escaped);
  const std::string all_escaped =
      R"({"k":"\u0068\u0075\u006e\u0074\u0065\u0072\u0032-SECRET\u002fkey"})";
  EXPECT_TRUE(EchoesCredential(text_result(all_escaped), secret)) << text_result(all_escaped);
  const std::string nested = nlohmann::json{{"wrapped", slash_escaped}}.dump();
  EXPECT_TRUE(EchoesCredential(text_result(nested), secret)) << text_result(nested);
  EXPECT_TRUE(EchoesCredential(text_result("HUNTER2-SECRET/KEY"), secret));
  EXPECT_TRUE(EchoesCredential(text_result("hunter2-secret/key"), secret));
  // Escapes that decode to something else stay something else.
  EXPECT_FALSE(EchoesCredential(text_result(R"({"k":"hunter2-SECRET\n/key"})"), secret));
}

// A child that echoes what it was sent often echoes it encoded: a debug dump in hex, an
// "Authorization: Basic" header in base64 (of user:password, where the password may start
// at any byte of a 3-byte group), a token in URL-safe base64.
TEST(CredentialsTest, HexAndBase64SpellingsAreRecognized) {
  const std::vector<std::string> secret = {"hunter2-SECRET/key?"};
  const auto text_result = [](const std::string& text) {
    return nlohmann::json{{"content", {{{"type", "text"}, {"text", text}}}}}.dump();
  };
  // printf '%s' "$prefix$secret" | xxd -p / base64: the prefixes put the secret's first byte
  // at each place of a 3-byte group.
  for (const char* text : {
           "dump: 68756e746572322d5345435245542f6b65793f",
           "DUMP: 68756E746572322D5345435245542F6B65793F",
           "Authorization: Basic aHVudGVyMi1TRUNSRVQva2V5Pw==",              // the secret
           "Authorization: Basic YWxpY2U6aHVudGVyMi1TRUNSRVQva2V5Pw==",      // alice:
           "Authorization: Basic Ym9iOmh1bnRlcjItU0VDUkVUL2tleT8=",          // bob:
           "Authorization: Basic bWFsbG9yeTpodW50ZXIyLVNFQ1JFVC9rZXk/",      // mallory:
           "token=bWFsbG9yeTpodW50ZXIyLVNFQ1JFVC9rZXk_",                     // URL-safe
           "token=YWxpY2U6aHVudGVyMi1TRUNSRVQva2V5Pw",                       // unpadded
           // Each byte apart, as debug output writes it (probe HW1).
           "fingerprint 68:75:6E:74:65:72:32:2D:53:45:43:52:45:54:2F:6B:65:79:3F",
           R"(b'\x68\x75\x6e\x74\x65\x72\x32\x2d\x53\x45\x43\x52\x45\x54\x2f\x6b\x65\x79\x3f')",
           "BitConverter: 68-75-6E-74-65-72-32-2D-53-45-43-52-45-54-2F-6B-65-79-3F",
       }) {
    EXPECT_TRUE(EchoesCredential(text_result(text), secret)) << text;
  }
  // Wrapped as MIME and PEM encoders wrap (python's base64.encodebytes of 50 or 48 'x' and
  // the secret): the line break falls inside the secret's spelling (probe AD1), in a
  // string as it is and in JSON text inside a string.
  for (const char* wrapped :
       {"eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHhodW50ZXIy\nLVNFQ1JFVC9rZXk/\n",
        "eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4aHVudGVyMi1T\r\nRUNSRVQva2V5Pw==\r\n"}) {
    EXPECT_TRUE(EchoesCredential(text_result(wrapped), secret)) << wrapped;
    EXPECT_TRUE(EchoesCredential(text_result(nlohmann::json{{"pem", wrapped}}.dump()), secret)) << wrapped;
  }
  // Where the standard alphabet writes '+' and '/', the URL-safe one writes '-' and '_'.
  const std::vector<std::string> symbols = {"k>>>secret???value"};
  EXPECT_TRUE(EchoesCredential(text_result("x:az4+PnNlY3JldD8/P3ZhbHVl"), symbols));
  EXPECT_TRUE(EchoesCredential(text_result("x:az4-PnNlY3JldD8_P3ZhbHVl"), symbols));
  // Data that only shares the credential's first bytes is not refused.
  EXPECT_FALSE(EchoesCredential(text_result("Basic YWxpY2U6aHVudGVyMi1TRUNSRVQva2V5"), secret));
  EXPECT_FALSE(EchoesCredential(text_result("68756e746572322d534543"), secret));
  // A value too short for its hex to be looked for is not looked for written a byte apart
  // either (probe HX4: "00:1a:61:62:31:32" was refused for "ab12").
  EXPECT_FALSE(EchoesCredential(text_result("mac 00:1a:61:62:31:32 up"), {"ab12"}));
  EXPECT_FALSE(EchoesCredential(text_result("bytes \\x61\\x62\\x31\\x32 end"), {"ab12"}));
}

// A value of several words is looked for by each word alone too that looks like a token: a
// child that says "invalid token X" hands back the secret without its scheme (probes HW2,
// HX1). A word under 16 bytes is not: it would match ordinary text (HX3); nor one without a
// digit, a public part such as a user name, an address or a URL (HZ5).
TEST(CredentialsTest, AValuesTokenLikeWordsAreLookedForAlone) {
  const std::string token = "hw-auth-0123456789abcdef";
  const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
      {"Bearer " + token, {token}},
      {"Bearer\t" + token + "\n", {token}},
      {" Bearer " + token + " ", {token}},
      {"Authorization: Bearer " + token, {token}},
      {"token=" + token, {token}},
      {"Bearer " + token + ", realm", {token}},
      {"Bearer\xC2\xA0" + token, {token}},
      {"alice:" + token, {token}},
      {token, {}},                                  // one word: the value itself
      {"Bearer password", {}},                      // probe HX3: no false refusals
      {"Acme Corporation", {}},
      {"Bearer 1234567890", {}},
      {"some-long-public-username:s3cr3t-0123456789ab", {"s3cr3t-0123456789ab"}},
      {"alice.smith@example-corp.com:Sh0rtPw9", {}},
      {"X-Amz-Security-Token: FQoGZXIvYXdzEJr0123456789", {"FQoGZXIvYXdzEJr0123456789"}},
      {"https://hooks.example.com/services=T0123456789ABCDEFGH", {"T0123456789ABCDEFGH"}},
      {"Bearer abcdefghijklmnopqrstuvwxyz", {}},   // no digit: not token-like
  };
  for (const auto& [value, words] : cases) {
    trust::SurfaceBinding surface;
    trust::ToolBinding tool;
    tool.name = "call";
    tool.credential_templates = {{"authorization", "s.auth"}};
    surface.tools.push_back(tool);
    std::vector<std::string> expected = words;
    expected.push_back(value);
    EXPECT_EQ(CredentialValuesOf(surface, {{"LAS_CREDENTIAL_S_AUTH", value}}), expected) << value;
  }
  const std::vector<std::string> values = {"Bearer " + token, token};
  EXPECT_TRUE(EchoesCredential(
      R"({"content":[{"type":"text","text":"invalid token hw-auth-0123456789abcdef"}]})", values));
}

// A secret the child gets through a variable its surface declares (`release draft --env`)
// is looked for in what it hands back, as an injected credential is (probe IW2: a child
// given GOOGLE_MAPS_API_KEY put it in every error text, and so in the log); a variable
// whose name says nothing of a secret is not, nor a value that does not look like a token
// ("postgres", "changeme", a path: they refused every surface's results that named them,
// probe IX1).
TEST(CredentialsTest, ADeclaredVariableNamedAsASecretCountsAsACredential) {
  for (const char* name : {"GOOGLE_MAPS_API_KEY", "SLACK_BOT_TOKEN", "db_password", "AWS_SECRET",
                           "APIKEY", "X_Passphrase", "GCP_CREDENTIALS", "PGPASSWORD", "MYSQL_PWD",
                           "GHTOKEN"}) {
    EXPECT_TRUE(SecretName(name)) << name;
  }
  for (const char* name : {"KEY_PATH", "PWD", "HOME", "GIT_AUTHOR_NAME", "MONKEY", "TOKENS_DIR",
                           "PASSWORD_FILE_", ""}) {
    EXPECT_FALSE(SecretName(name)) << name;
  }
  trust::SurfaceBinding surface;
  surface.env = {"GOOGLE_MAPS_API_KEY", "KEY_PATH", "HOME", "UNSET_TOKEN", "DB_PASSWORD",
                 "MY_API_KEY", "AUTH_TOKEN"};
  const std::string key = "AIzaDummyDummyDummy0123456789";
  const std::string token = "xyzTok3nABCDEFGH12345";
  const trust::Environment environment = {{"GOOGLE_MAPS_API_KEY", key},
                                          {"KEY_PATH", "/home/alice/key.pem"},
                                          {"HOME", "/home/alice"},
                                          {"DB_PASSWORD", "postgres"},
                                          {"MY_API_KEY", "/tmp/probe/workspace"},
                                          {"AUTH_TOKEN", "Bearer " + token}};
  const std::vector<std::string> expected = {key, token, "Bearer " + token};
  EXPECT_EQ(CredentialValuesOf(surface, environment), expected);
  EXPECT_EQ(CrossSurfaceCredentialValues({surface}, environment), expected);
  EXPECT_TRUE(EchoesCredential(
      R"({"content":[{"type":"text","text":"request to https://maps.example/api?key=AIzaDummyDummyDummy0123456789 failed"}]})",
      CredentialValuesOf(surface, environment)));
}

// A variable named for what it configures may carry a secret all the same: headers as
// JSON, pairs, a connection string with a password. Those count, not the public rest of
// the value — a host, a path, a build id, a model name (probe JF2 refused them) — and a
// member whose name says nothing of a secret does not.
TEST(CredentialsTest, ASecretCarriedInADeclaredVariableOfAnyNameCounts) {
  trust::SurfaceBinding surface;
  surface.env = {"OPENAPI_MCP_HEADERS", "DATABASE_URL", "BASE_URL", "LOG_LEVEL", "MODEL_OPTS",
                 "MIRRORS",             "EXTRA_HEADERS", "REPLICA_URL"};
  const std::string bearer = "sk-live-0123456789abcdefXYZ";
  const trust::Environment environment = {
      {"OPENAPI_MCP_HEADERS", R"({"Authorization":"Bearer )" + bearer +
                                  R"(","X-Build":"build-2024-07-rc1x","X-Team":"core"})"},
      {"DATABASE_URL", "postgres://app:p/ss#W0rdLongEnough1@db.internal/prod"},
      {"BASE_URL", "https://api2.example.com/v1/abcdef0123456789abcd"},
      {"LOG_LEVEL", "debug"},
      {"MODEL_OPTS", "max_tokens=4096,model=llama3-70b-instruct-v2"},
      {"MIRRORS", "https://alice@mirror.example.com/x,https://a:short@m2.example.com,"
                  "https://host:8080/docs/@scope/package-name-1234567890"},
      {"EXTRA_HEADERS", "Cookie: sessionid=9f8e7d6c5b4a3210abcdefXY\nOcp-Apim-Subscription-Key: "
                        "a1b2c3d4e5f6a7b8c9d0e1f2"},
      {"REPLICA_URL", "mysql://root:Encod%40dPassw0rd9@db2/x"}};
  const std::vector<std::string> expected = {bearer,
                                             "Bearer " + bearer,
                                             "p/ss#W0rdLongEnough1",
                                             "9f8e7d6c5b4a3210abcdefXY",
                                             "sessionid=9f8e7d6c5b4a3210abcdefXY",
                                             "a1b2c3d4e5f6a7b8c9d0e1f2",
                                             "Encod%40dPassw0rd9",
                                             "Encod@dPassw0rd9"};
  std::vector<std::string> got = CredentialValuesOf(surface, environment);
  std::vector<std::string> sorted_expected = expected;
  std::sort(got.begin(), got.end());
  got.erase(std::unique(got.begin(), got.end()), got.end());
  std::sort(sorted_expected.begin(), sorted_expected.end());
  EXPECT_EQ(got, sorted_expected);
  const auto text = [](const std::string& said) {
    return nlohmann::json{{"content", {{{"type", "text"}, {"text", said}}}}}.dump();
  };
  EXPECT_TRUE(EchoesCredential(text("401 for " + bearer), got));
  for (const char* public_text :
       {"Authorization failed; team core; build-2024-07-rc1x", "https://api2.example.com/v1/abcdef0123456789abcd",
        "model llama3-70b-instruct-v2 is used", "https://host:8080/docs/@scope/package-name-1234567890"}) {
    EXPECT_FALSE(EchoesCredential(text(public_text), got)) << public_text;
  }
}

// The shapes configuration takes (probe JH3, JH4): each secret part is found, the public
// parts and names that only mention a secret's word are not.
TEST(CredentialsTest, CarriedSecretsOfManyShapesAreFoundAndTheirPublicPartsAreNot) {
  const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
      {"machine api.github.com login octocat password ghp_R8x2Netrc0123456789", {"ghp_R8x2Netrc0123456789"}},
      {"region=eu-central-1 output=json aws_secret_access_key=zS9pSpace0123456789ab",
       {"zS9pSpace0123456789ab"}},
      {"--host db.example.com --password S3cretCliPass2024", {"S3cretCliPass2024"}},
      {R"([{"name":"X-Api-Key","value":"kv_Env7Har0123456789"},{"name":"X-Team","value":"core-2024-team01"}])",
       {"kv_Env7Har0123456789"}},
      {R"({"apiKeys":["sk_search_0123456789ab","sk_search_ba9876543210"]})",
       {"sk_search_0123456789ab", "sk_search_ba9876543210"}},
      {R"({"dsn":"mysql:\/\/php_user:PhpJs0nPassw0rd24@db\/app"})", {"PhpJs0nPassw0rd24"}},
      {"https://ghp_R8x2User0123456789abcd@github.com/acme/private-repo.git",
       {"ghp_R8x2User0123456789abcd"}},
      {R"({"privateKey":"pk_Camel0123456789abc","signingKey":"sg_Camel0123456789abc"})",
       {"pk_Camel0123456789abc", "sg_Camel0123456789abc"}},
      {"DefaultEndpointsProtocol=https;AccountName=acct2024;AccountKey=Eby8Azure0123456789GMGw==",
       {"Eby8Azure0123456789GMGw=="}},
      {R"({"PASSPHRASE":"Pp7hrase2024Secret99x"})", {"Pp7hrase2024Secret99x"}},
      // TOML, INI, properties, HCL: spaces around '=' (probe JJ1).
      {"[default]\naws_access_key_id = AKIAEXAMPLEKEYID2024\naws_secret_access_key = t9VbSpaced0123456789",
       {"t9VbSpaced0123456789"}},
      {R"(db_password = "Tfv4Spaced0123456789")", {"Tfv4Spaced0123456789"}},
      // .npmrc names its secret after a ':' in a path; compose and docker list NAME=VALUE
      // strings; session cookies and written-as qualifiers (probe JJ3, JJ4).
      {"//registry.example.org/:_authToken=npm_Npmrc0123456789abcd", {"npm_Npmrc0123456789abcd"}},
      {R"({"Config":{"Env":["MYSQL_ROOT_PASSWORD=D0ckerEnv0123456789","TZ=UTC"]}})", {"D0ckerEnv0123456789"}},
      {"PHPSESSID=Php5ess0123456789abcd; connect.sid=Expr3ss0123456789abcd",
       {"Php5ess0123456789abcd", "Expr3ss0123456789abcd"}},
      {R"({"private_key_pem":"MIIEpQIBAAKCAQEA0123456789","clientSecretValue":"Cl13ntSecret0123456789"})",
       {"MIIEpQIBAAKCAQEA0123456789", "Cl13ntSecret0123456789"}},
      // Connection strings without a scheme (Go's MySQL DSN, Oracle, libpq's .pgpass) and
      // base64 "user:password" (Basic, docker's config.json "auth").
      {"app_user:G0DsnPassw0rd2024@tcp(db.internal:3306)/app?parseTime=true", {"G0DsnPassw0rd2024"}},
      {"DSN=root:Dsn3qualsPw2024@unix(/run/mysqld/mysqld.sock)/x", {"Dsn3qualsPw2024"}},
      {"reader:Schemeless2024Pw@db.internal:5432/app", {"Schemeless2024Pw"}},
      {"scott/0racleTiger2024x@//db.example.com:1521/ORCLPDB1", {"0racleTiger2024x"}},
      {"hr/Tns0racle2024pw@(DESCRIPTION=(ADDRESS=(PROTOCOL=TCP)(HOST=db)(PORT=1521)))", {"Tns0racle2024pw"}},
      {"db.internal:5432:app:app_user:PgPassFile2024x\n*:*:*:backup:PgPassAny2024xyz",
       {"PgPassFile2024x", "PgPassAny2024xyz"}},
      {"Authorization: Basic ZGVwbG95OkJhNWljUGFzc3cwcmQyMDI0", {"Ba5icPassw0rd2024"}},
      {R"({"auths":{"registry.example.org":{"auth":"Y2ktYm90OkQwY2tlckF1dGgyMDI0eHl6"}}})", {"D0ckerAuth2024xyz"}},
      // Passwords holding ',', ';' or spaces: in a URL, quoted, braced, or the rest of a
      // YAML line (probe JM1); ODBC's PWD.
      {"postgresql://app:Ps4,Kw8;vNm2Lq7Rt@pg-main-04.example.com:5432/app", {"Ps4,Kw8;vNm2Lq7Rt"}},
      {"mongodb://app:Cm4,xR8vTq2Wn6Lz9@mongo1.example.com:27017,mongo2.example.com:27017/app?replicaSet=rs0",
       {"Cm4,xR8vTq2Wn6Lz9"}},
      {R"(Server=tcp:crm.example.com,1433;User Id=crm_app;Password="Pz4;Kw8vNm2Lq7Rt";)", {"Pz4;Kw8vNm2Lq7Rt"}},
      {"Driver={ODBC Driver 18};Server=rpt;Uid=report_user;Pwd={Vb6;Nx3mQz8Wk1Lt};", {"Vb6;Nx3mQz8Wk1Lt"}},
      {"DRIVER={ODBC Driver 18};SERVER=rpt;UID=sa;PWD=Odbc0PwdUpper2024x;", {"Odbc0PwdUpper2024x"}},
      {R"(org.apache.kafka.common.security.scram.ScramLoginModule required username="streams" password="Zx9,Qm4 vT7nL2wK8p";)",
       {"Zx9,Qm4 vT7nL2wK8p"}},
      {"db:\n  host: pg.example.com\n  password: Yc4,Rw8vNm2Lq7Rt9\n", {"Yc4,Rw8vNm2Lq7Rt9"}},
      {R"(export PASSPHRASE="correct horse battery staple 2024")", {"correct horse battery staple 2024"}},
      // Secrets written in base64, decoded (JM2): .npmrc's _auth and _password, a Kubernetes
      // Secret's data, kubeconfig's client-key-data PEM.
      {"//npm.pkg.example.com/:_auth=bnBtdXNlcjpOcDhtUmMzdlR6N0x4UTJ3", {"Np8mRc3vTz7LxQ2w"}},
      {"//nexus.example.com/repository/npm/:_password=Tng1cFczdlR6OExxUTJtSw==", {"Nx5pW3vTz8LqQ2mK"}},
      {R"({"kind":"Secret","data":{"DB_PASSWORD":"SzhzUXozdlQ4eEw3bU4ydw=="}})", {"K8sQz3vT8xL7mN2w"}},
      {"users:\n- name: admin\n  user:\n    client-key-data: "
       "LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQpNSUlFb3dJQkFBS0NBUUVBeDdRejN2VDh4TDJtTjl3UjRwQjZ5QzFoRDVqUzBnRTNmQ"
       "ThrVDJsVzdtUTl2TjRiCktwMkxtOFF4NFJ2N1R6MU53NlliM0hjOUpkNUZnMEtzMkxwOE1xNE5yN1N0MVV2Nld4M1l6OUFiNUNkMEVmMkcKSG"
       "o4S2w0TW43T3AxUXI2U3QzVXY5V3g1WXowQWIyQ2Q4RWY0R2g3SWoxS2w2TW4zT3A5UXI1U3QwVXYyV3g4Ci0tLS0tRU5EIFJTQSBQUklWQVRF"
       "IEtFWS0tLS0tCg==",
       {"Kp2Lm8Qx4Rv7Tz1Nw6Yb3Hc9Jd5Fg0Ks2Lp8Mq4Nr7St1Uv6Wx3Yz9Ab5Cd0Ef2G"}},
      // Percent-encoded pair values as their readers decode them (JM3); Oracle's JDBC URL
      // and a .pgpass field's escaped ':' (JM4).
      {"https://acmestore2024.blob.core.windows.net/reports?sv=2022-11-02&sp=r&"
       "sig=k7Qz3vT%2BxL8mN2wR9pB4yC6hD1jS5gE0fA2kT7lW3mQ%3D",
       {"k7Qz3vT+xL8mN2wR9pB4yC6hD1jS5gE0fA2kT7lW3mQ="}},
      {"jdbc:postgresql://db-prod.example.com:5432/orders?user=orders_app&password=Qw8%21nZt4Lp%40x7Rv2Ke&ssl=true",
       {"Qw8!nZt4Lp@x7Rv2Ke"}},
      {"jdbc:oracle:thin:hr_app/Jo7tQz3vX9kL2mNw@//oracle-db02.example.com:1521/ORCLPDB1", {"Jo7tQz3vX9kL2mNw"}},
      {R"(db3.example.com:5432:orders:orders_app:Es8vTz\:QxL7mN2kWq)", {"Es8vTz:QxL7mN2kWq"}},
      // Values on the lines below their name, in quotes that escape, in XML, escaped for
      // .properties, base64url and a Basic password holding a space (probe JP9).
      {"token: |\n  Yb7Kq2Wm9Xn4Lp8Rt3Vz\nother: x", {"Yb7Kq2Wm9Xn4Lp8Rt3Vz"}},
      {"auth:\n  token: >-\n    Fc3Gh5Jk7Lm9Np1Qr3St\n  user: bot", {"Fc3Gh5Jk7Lm9Np1Qr3St"}},
      {"password:\n    Kt7Lw3Mq9Nx5Pz8Vy\n", {"Kt7Lw3Mq9Nx5Pz8Vy"}},
      {R"(db_password = """Tr1pleQuoted2024xyz""")", {"Tr1pleQuoted2024xyz"}},
      {"password: 'Kx9vTq2Lm7Np''Rb4Yc6Hd1'", {"Kx9vTq2Lm7Np'Rb4Yc6Hd1"}},
      {R"(DB_PASSWORD='Fa2Kt7Lw3Mq9'\''Nx5Pz8Vy')", {"Fa2Kt7Lw3Mq9'Nx5Pz8Vy"}},
      {R"(password: "Dq7\u0041Esc2024xy\"zw")", {"Dq7AEsc2024xy\"zw"}},
      {"<server><id>nexus</id><username>deploy</username><password>Qz3vT8xL7mN2wR9pB</password></server>",
       {"Qz3vT8xL7mN2wR9pB"}},
      {R"(<appSettings><add key="ApiKey" value="Mq9Nx5Pz8Vy1Ub4Oc6" /></appSettings>)", {"Mq9Nx5Pz8Vy1Ub4Oc6"}},
      {R"(db.password=Cd3Ef5Gh7Ij9Kl1Mn\=Ab)", {"Cd3Ef5Gh7Ij9Kl1Mn=Ab"}},
      {R"({"auths":{"r.example.org":{"auth":"Y2ktYm90OkQwY2tlckF1dGgyMDI0fn4-"}}})", {"D0ckerAuth2024~~>"}},
      {"Authorization: Basic YXBpX3VzZXI6VnkxVWI0IE9jNklkM0llOQ==", {"Vy1Ub4 Oc6Id3Ie9"}},
      // Random values after a flag or .netrc's bare name, under "auth" or "key", a
      // reference's fallback literal, the Token scheme, redis.conf's and wpa_supplicant's
      // names (probes JS2-JS4, JS6, JS7).
      {"machine api.example.com\nlogin deploy\npassword hykdyd-3xecvo-Kawzut", {"hykdyd-3xecvo-Kawzut"}},
      {"docker login --username ci-bot --password hykdyd-3xecvo-Kawzut registry.example.com", {"hykdyd-3xecvo-Kawzut"}},
      {"glab auth login --hostname gitlab.example.com --token glpat-riGp_58WAm-dX3a5IDnO", {"glpat-riGp_58WAm-dX3a5IDnO"}},
      {"redis:\n  auth: hykdyd-3xecvo-Kawzut\n", {"hykdyd-3xecvo-Kawzut"}},
      {"google:\n  maps:\n    key: AIzaSy_0bI_meEqa_MOlZA-ZfUsYpYK-RnR1wT6", {"AIzaSy_0bI_meEqa_MOlZA-ZfUsYpYK-RnR1wT6"}},
      {"POSTGRES_PASSWORD: ${POSTGRES_PASSWORD:-Xk29fLqP7vRt3mZaQ1}", {"Xk29fLqP7vRt3mZaQ1"}},
      {"spring.datasource.password=${DB_PASSWORD:Xk29fLqP7vRt3mZaQ2}", {"Xk29fLqP7vRt3mZaQ2"}},
      {R"(password: "{{ env \"DB_PASSWORD\" | default \"Xk29fLqP7vRt3mZaQ3\" }}")", {"Xk29fLqP7vRt3mZaQ3"}},
      {R"(curl -sS -H "Authorization: Token eTMh26oM0_2FxXdGrb_4N" https://api.example.com/v1)", {"eTMh26oM0_2FxXdGrb_4N"}},
      {"requirepass Xk29fLqP7vRt3mZaQ4\nmasterauth Xk29fLqP7vRt3mZaQ5", {"Xk29fLqP7vRt3mZaQ4", "Xk29fLqP7vRt3mZaQ5"}},
      {R"(network={ ssid="home-2024" psk="Xk29fLqP7 vRt3mZaQ6" })", {"Xk29fLqP7 vRt3mZaQ6"}},
      // Generated shapes that read as words run by run: Keychain's groups, symbols between
      // runs, a TOTP key in groups (probes JU2, JU4, JU5).
      {"redis:\n  auth: xidXah-bikpi3-qigpud\n", {"xidXah-bikpi3-qigpud"}},
      {"[redis]\nauth = Up#gtcx3*btvzRbo", {"Up#gtcx3*btvzRbo"}},
      {"totp_key: gmps mqvm rwip 46hd", {"gmps mqvm rwip 46hd"}},
      // Public: a DSN URL and an OIDC authority with random ids, object keys with a
      // timestamp, a UUID or an instance id, an AWS policy's statement id (JU6-JU13).
      {"dsn: postgres://app@database-1.c5ks8jmwxyz1.us-east-1.rds.amazonaws.com:5432/app?sslmode=require\n"
       "auth: https://login.microsoftonline.com/72f988bf-86f1-41af-91ab-2d7cd011db47/v2.0",
       {}},
      {R"({"objects":[{"key":"db/2024-01-15T10:30:00Z/dump.sql.gz"},{"Key":"ec2/i-0abc123def4567890/console-2024.log"},)"
       R"({"key":"avatars/3f2a9c1e-4b5d-4c8e-9f1a-2b3c4d5e6f70.png"}],)"
       R"("Statement":[{"Sid":"Stmt1700000000000","Effect":"Allow"}]})",
       {}},
      // Public: key files' paths and URLs with digits, mappings nested under "session:"
      // or "auth:", references as a URL's password, a shell variable, public keys, a
      // publishable key (probes JS8-JS11).
      {"ssl_key = /etc/ssl/private/web01.example.com.key\nssl_certificate_key /etc/nginx/ssl/web01.key;\n"
       "tls = --tls-key /etc/tls/node1.key",
       {}},
      {R"({"key": "avatars/2024/u1024.png", "auth": "https://sso2.example.com/realms/acme", "dsn": "WarehouseProd2024"})", {}},
      {"session:\n  url: redis://session-cache-01.internal:6379/0\nauth:\n  github:\n    client_id: Iv1.8a61f9b3a7aba766\n"
       "credentials:\n  username: svc-reporting-2024\ncookie:\n  name: _acme_session_v2024",
       {}},
      {"DATABASE_URL=postgresql://app:${POSTGRES_PASSWORD}@db:5432/app\nREPLICA=postgres://app:$(DB_PASSWORD_2024)@db2:5432/app\n"
       "password: $PROD_REGISTRY_PASSWORD_V2\nkey: pk_live_51H8xY2eZvKYlo2C0123456789\n"
       "ssh_authorized_keys:\n  - ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIB2x9Kq7Lm3 deploy@ci-2024",
       {}},
      // Public: JDBC's thin:@ URLs without credentials, paths to key files, placeholders and
      // references to secrets kept elsewhere, a comment, names of public things under
      // key-like names, an image after docker's -e NAME, an IPv6 network, a port before a
      // list's next item (probes JP1-JP7).
      {"spring.datasource.url=jdbc:oracle:thin:@//oracle-db01.example.com:1521/ORCLPDB1 "
       "jdbc:oracle:thin:@oracle-db02.example.com:1521/ORCLPDB1",
       {}},
      {"ssl_key = /etc/ssl/private/api-2024.key\nssh_key: ~/.ssh/id_ed25519.pub\nprivate_key: ~/.ssh/id_ed25519\n"
       "tls = --tls-key /etc/tls/server-2024.key",
       {}},
      {"api_key: ${OPENAI_API_KEY}  # see docs/runbook-2024-rotation.md\npassword: ${DB_PASSWORD_V2}\n"
       "password: ${{ secrets.DOCKERHUB_TOKEN_2024 }}\nDB_PASSWORD=op://Engineering/postgres-prod-2024/password\n"
       "token = var.api_token_v2\ndb_secret: arn:aws:secretsmanager:eu-west-1:123456789012:secret:prod/db-AbCdEf\n"
       "credentials: projects/acme-prod-2024/secrets/db-password/versions/3",
       {}},
      {"session: default-session-2024\nexistingSecret: postgres-credentials-2024\nkey: node-modules-v2-linux-x64\n"
       "sid: S-1-5-21-3623811015-3361044348-30300820-1013\n"
       "auth: {type: oidc, issuer: https://login.example.com/realms/acme-2024}",
       {}},
      {R"({"flags":[{"key":"new-checkout-flow-2024"}],"auth":"https://login.example.com/realms/acme-2024"})", {}},
      {"docker run -i --rm -e GITHUB_PERSONAL_ACCESS_TOKEN ghcr.io/github/github-mcp-server:v0.4.0\n"
       "kubectl create token build-robot-2024 --duration=1h",
       {}},
      {"2606:4700:4700::1111/128\nnotify=https://hooks.example.com:8443,ops@example.com", {}},
      // Public: an IPv6 host and a scoped package path, names that only mention a word,
      // addresses, package aliases and image digests that hold an '@', URL users that are
      // names of words (JM5), a working directory.
      {"postgresql://svc-reporting-2024@pg-main-06.example.com:5432/reports "
       "ssh://deploy-user-2024@git.example.com:2222/infra/repo.git PWD=/home/build2024/workspace-0123",
       {}},
      {"npm:lodash@4.17.21 someone@example2024.com git@github.com:acme/repo2024.git "
       "docker.io/library/node@sha256:abcdef0123456789 team/web-app2024@v2.1.0",
       {}},
      {"https://[2001:db8::10]:8443/npm/@scope2024/pkg-v2", {}},
      {R"({"tokenizer":"meta-llama/Llama-3.1-8B-Instruct","auth_url":"https://keystone.example.com:5000/v3",)"
       R"("token_endpoint":"https://auth11.example.com/oauth2/v1/token","author":"platform-team-2024",)"
       R"("session_name":"nightly-build-2024-07-12","key_prefix":"cache-v2-prod-eu1",)"
       R"("partition_key":"tenant_2024_region","secret_name":"db-creds-v2-prod01",)"
       R"("certificate-authority-data":"LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t",)"
       R"("publishableKey":"pk_test_Publ1shable0123456789","jwt_public_key":"MFkwEwYHKoZIzj0CAQYI0123"})",
       {}},
  };
  for (const auto& [value, secrets] : cases) {
    trust::SurfaceBinding surface;
    surface.env = {"SETTINGS", "GIT_USERTOKEN"};
    std::vector<std::string> got = CredentialValuesOf(surface, {{"SETTINGS", value}});
    // Under a secret's name, the whole value counts and so does what it carries (probe JH:
    // GIT_REMOTE_USERTOKEN's token user was lost to its whole value).
    if (!secrets.empty()) {
      const std::vector<std::string> named = CredentialValuesOf(surface, {{"GIT_USERTOKEN", value}});
      for (const std::string& secret : secrets) {
        EXPECT_NE(std::find(named.begin(), named.end(), secret), named.end()) << secret << " in " << value;
      }
    }
    for (const std::string& secret : secrets) {
      EXPECT_NE(std::find(got.begin(), got.end(), secret), got.end()) << secret << " in " << value;
    }
    if (secrets.empty()) {
      EXPECT_TRUE(got.empty()) << value << ": " << (got.empty() ? "" : got.front());
    }
  }
}

// Names judged alike for a variable and for a member (probe JJ2): public keys are not
// secrets under either; a connection string under a secret's name counts whole and by its
// password, not by its hosts (JJ7).
TEST(CredentialsTest, AVariablesOwnNameIsJudgedAsAMembersIs) {
  for (const char* name :
       {"STRIPE_PUBLISHABLE_KEY", "SUPABASE_ANON_KEY", "JWT_PUBLIC_KEY", "AWS_KMS_KEY", "TWILIO_ACCOUNT_SID"}) {
    EXPECT_FALSE(SecretName(name)) << name;
  }
  for (const char* name : {"APP_TOML_SECRETS", "HTTP_BASIC_AUTH", "GO_MYSQL_DSN", "SIGNING_KEY_B64"}) {
    EXPECT_TRUE(SecretName(name)) << name;
  }
  trust::SurfaceBinding surface;
  surface.env = {"SMTP_PASSWORD_URL_SECRET"};
  const std::string url = "smtp://noreply:Sm7pPassw0rd2024@smtp.office365-mail2024.com:587";
  const std::vector<std::string> got = CredentialValuesOf(surface, {{"SMTP_PASSWORD_URL_SECRET", url}});
  EXPECT_EQ(got, (std::vector<std::string>{"Sm7pPassw0rd2024", url}));
  // libpq's keyword form without a password names public things only, and so do PDO's and
  // ODBC's, whose DSN names a data source (probes JM5, JP5); so do a path under a name that
  // may name something public, a reference to a secret kept elsewhere and a name of words
  // (JP2-JP4): no secret at all.
  surface.env = {"PG_DSN"};
  for (const std::string& pairs :
       {std::string("host=pg-replica-05.example.com port=5432 dbname=warehouse2024 user=etl_loader sslmode=verify-full"),
        std::string("mysql:host=mysql-01.example.com;port=3306;dbname=shop2024"),
        std::string("DSN=Warehouse_Prod_2024;UID=report_user;Trusted_Connection=yes")}) {
    EXPECT_TRUE(CredentialValuesOf(surface, {{"PG_DSN", pairs}}).empty()) << pairs;
  }
  // With a password, the DSN counts whole and by it.
  const std::string with_password = "host=db user=etl password=Pg9Kw2Lq7Rt4Vz8Xn dbname=warehouse2024";
  EXPECT_EQ(CredentialValuesOf(surface, {{"PG_DSN", with_password}}),
            (std::vector<std::string>{"Pg9Kw2Lq7Rt4Vz8Xn", with_password}));
  surface.env = {"GOOGLE_APPLICATION_CREDENTIALS", "TLS_KEY", "DB_PASSWORD", "SESSION", "SESSION_COOKIE",
                 "TWILIO_MESSAGING_SERVICE_SID", "GCP_KEY_FILE_CREDENTIALS", "GPG_KEY", "RECAPTCHA_SITE_KEY",
                 "NEXT_PUBLIC_FIREBASE_API_KEY", "NIGHTLY_SESSION"};
  EXPECT_TRUE(CredentialValuesOf(surface, {{"GOOGLE_APPLICATION_CREDENTIALS", "/opt/app1/credentials/sa.json"},
                                           {"GCP_KEY_FILE_CREDENTIALS", "/var/secrets/google/acme-prod-4f2b8c9d1e3a.json"},
                                           {"GPG_KEY", "E3FF2839C048B25C084DEBE9B26995E310250568"},
                                           {"RECAPTCHA_SITE_KEY", "6LeIxAcTAAAAAJcZVRqyHh71UMIEGNQ_MXjiZKhI"},
                                           {"NEXT_PUBLIC_FIREBASE_API_KEY", "AIzaSyDOCAbC123dEf456GhI789jKl012-MnO"},
                                           {"NIGHTLY_SESSION", "nightly-2024-01-15T10:30:00Z"},
                                           {"TWILIO_MESSAGING_SERVICE_SID", "MG9752274e9e519418a7406176694466fa"},
                                           {"TLS_KEY", "/etc/tls/private/tls-2024.key"},
                                           {"DB_PASSWORD", "op://Engineering/postgres-prod-2024/password"},
                                           {"SESSION", "ci-run-20240115-1234"},
                                           {"SESSION_COOKIE", "laravel_session_v2"}})
                  .empty());
  // Random values under key names count whole, however '-', '_' and '.' cut them (probe
  // JS1: short pieces made token_urlsafe's, GitLab's and UUID keys public); so does the
  // password of a whole "user:PASSWORD" (JS5).
  surface.env = {"SECRET_KEY", "API_KEY", "HEROKU_API_KEY", "AUTH", "PRIVATE_KEY", "DJANGO_SECRET_KEY"};
  const std::vector<std::string> keys = CredentialValuesOf(
      surface, {{"SECRET_KEY", "w2pqb0K18_AilJJwn0_H_w"},
                {"PRIVATE_KEY", "MySuperSecretKey123456"},  // a key the word before calls secret (JU3)
                {"DJANGO_SECRET_KEY", "m&t@o)ld-&ljzyllvor!i3&dlikhrawy^x#e$n_x=4d@+7j$b3"},
                {"API_KEY", "glpat-riGp_58WAm-dX3a5IDnO"},
                {"HEROKU_API_KEY", "29d56f41-70b6-42e1-9f5b-763877445512"},
                {"AUTH", "elastic:Xk29fLqP7vRt3mZaQ1"}});
  for (const char* secret : {"w2pqb0K18_AilJJwn0_H_w", "glpat-riGp_58WAm-dX3a5IDnO", "MySuperSecretKey123456",
                             "m&t@o)ld-&ljzyllvor!i3&dlikhrawy^x#e$n_x=4d@+7j$b3",
                             "29d56f41-70b6-42e1-9f5b-763877445512", "Xk29fLqP7vRt3mZaQ1"}) {
    EXPECT_NE(std::find(keys.begin(), keys.end(), secret), keys.end()) << secret;
  }
}

// A hostile or huge value costs linear time and bounded findings (probe JH1: 16 KiB of
// "a://b:c/" and an '@' took gigabytes at every start; JH2: "a://" repeated, quadratic
// time), and deep JSON or chained pairs do not exhaust the stack.
TEST(CredentialsTest, CarriedSecretsOfAHugeValueAreBounded) {
  std::string overlapping;
  while (overlapping.size() < 120000) overlapping += "a://b:c0123456789/";
  overlapping += "@";
  std::string schemes;
  while (schemes.size() < 120000) schemes += "a://";
  std::string chained;
  for (int i = 0; i < 20000; ++i) chained += "token=";
  std::string unclosed;  // each an opening brace whose close is looked for (probe JM1's fix)
  while (unclosed.size() < 120000) unclosed += "pwd={";
  std::string blocks;  // each a block scalar whose lines below are read (JP9's fix)
  for (int depth = 0; blocks.size() < 120000; ++depth) blocks += std::string(depth % 2000, ' ') + "token:\n";
  for (const std::string& value : {overlapping, schemes, chained + "abcdef0123456789ABCDEF", unclosed, blocks,
                                   std::string(100000, '[') + std::string(100000, ']')}) {
    const CarriedSecrets carried = SecretsCarriedIn(value);
    EXPECT_LE(carried.values.size() + carried.url_passwords.size(), 64u);
    for (const auto* list : {&carried.values, &carried.url_passwords}) {
      for (const std::string& secret : *list) EXPECT_LE(secret.size(), 8u * 1024) << value.substr(0, 40);
    }
  }
  EXPECT_LE(SecretsCarriedIn(overlapping).url_passwords.size(), 1u)
      << "at most the last URL's password, not one per URL before the '@'";
  // A secret-named value of thousands of token-like words counts by at most 256 of them
  // (probe JJ9: each word's spellings made starts take seconds).
  std::string words;
  while (words.size() < 120000) words += "w0rd" + std::to_string(words.size()) + "abcdefghij ";
  trust::SurfaceBinding surface;
  surface.env = {"TF_VAR_DB_PASSWORD"};
  EXPECT_LE(CredentialValuesOf(surface, {{"TF_VAR_DB_PASSWORD", words}}).size(), 257u);
  // And 256 words for all the secrets one variable carries together (probe JP8: 64 of 256
  // words each made starts take 5 s).
  std::string lines;
  for (int line = 0; line < 64; ++line) {
    lines += "password:";
    for (int word = 0; word < 256; ++word) lines += " w" + std::to_string(line * 1000 + word) + "abcdefghijkl";
    lines += "\n";
  }
  surface.env = {"SETTINGS"};
  EXPECT_LE(CredentialValuesOf(surface, {{"SETTINGS", lines}}).size(), 64u + 256u);
}

// A URL that quotes the credential (an error message naming the request that failed):
// its bytes outside the unreserved ones as %XX, in either case, all or some (probe BD3).
TEST(CredentialsTest, PercentEncodedSpellingsAreRecognized) {
  const std::vector<std::string> secret = {"wJalr/K7MDENG+bPxRfi=Cü"};
  const auto text_result = [](const std::string& text) {
    return nlohmann::json{{"content", {{{"type", "text"}, {"text", text}}}}}.dump();
  };
  for (const char* text : {"GET https://api.example/x?key=wJalr%2FK7MDENG%2BbPxRfi%3DC%C3%BC failed",
                           "key=wjalr%2fk7mdeng%2bbpxrfi%3dc%c3%bc",
                           "key=%77%4A%61lr/K7MDENG+bPxRfi=C%C3%BC"}) {
    EXPECT_TRUE(EchoesCredential(text_result(text), secret)) << text;
  }
  EXPECT_FALSE(EchoesCredential(text_result("key=wJalr%2FK7MDENG%2BbPxRfi%3D"), secret));
  // Encoded twice; a form's '+' for a space (probe BE2).
  EXPECT_TRUE(EchoesCredential(text_result("u=wJalr%252FK7MDENG%252BbPxRfi%253DC%25C3%25BC"), secret));
  EXPECT_TRUE(EchoesCredential(text_result("pass=correct+horse+battery"), {"correct horse battery"}));
  EXPECT_TRUE(EchoesCredential(text_result("pass=correct+horse%2Bbattery"), {"correct horse+battery"}));
  EXPECT_FALSE(EchoesCredential(text_result("100%% sure: %zz %2"), secret));
  // JSON text (a serializer that writes "\/") quoted into a URL.
  EXPECT_TRUE(EchoesCredential(
      text_result("state=%7B%22k%22%3A%22wJalr%5C%2FK7MDENG%2BbPxRfi%3DC%5Cu00fc%22%7D"), secret));
}

// Probe GK1: a Basic header's base64 put into a URL writes its '+', '/' and '=' as %XX;
// the spelling was looked for in the decoded URL only as the credential itself.
TEST(CredentialsTest, Base64SpellingsInsideAUrlAreRecognized) {
  const std::vector<std::string> secret = {"a???b>>>c~~~dsecretvalue12"};
  const auto text_result = [](const std::string& text) {
    return nlohmann::json{{"content", {{{"type", "text"}, {"text", text}}}}}.dump();
  };
  // urllib.parse.quote(base64.b64encode(b"user:" + secret), safe=""), and the same of
  // base64.encodebytes of 50 'x' and the secret (wrapped, its line breaks %0A).
  EXPECT_TRUE(EchoesCredential(
      text_result("GET https://x/?auth=dXNlcjphPz8%2FYj4%2BPmN%2Bfn5kc2VjcmV0dmFsdWUxMg%3D%3D"), secret));
  EXPECT_TRUE(EchoesCredential(
      text_result("d=eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHhhPz8%2FYj4%2B"
                  "%0APmN%2Bfn5kc2VjcmV0dmFsdWUxMg%3D%3D%0A"),
      secret));
  EXPECT_FALSE(EchoesCredential(text_result("auth=dXNlcjphPz8%2FYj4%2BPmN%2B"), secret));
}

// Probe GK3: base64 of JSON text whose writer escaped the credential ('/' as "\/" by PHP's
// json_encode, 'ä' as "\u00e4" by Python's json.dumps) holds none of its own spellings.
TEST(CredentialsTest, Base64OfJsonTextThatEscapesTheCredentialIsRecognized) {
  const auto text_result = [](const std::string& text) {
    return nlohmann::json{{"content", {{{"type", "text"}, {"text", text}}}}}.dump();
  };
  // base64 of {"k": "Wq9\/zX+3kLm7pR2t\/vB8nY4u"} and of {"k": "p\u00e4sswort-geheim-123"}.
  EXPECT_TRUE(EchoesCredential(text_result("eyJrIjogIldxOVwvelgrM2tMbTdwUjJ0XC92QjhuWTR1In0="),
                               {"Wq9/zX+3kLm7pR2t/vB8nY4u"}));
  EXPECT_TRUE(EchoesCredential(text_result("eyJrIjogInBcdTAwZTRzc3dvcnQtZ2VoZWltLTEyMyJ9"),
                               {"p\xc3\xa4sswort-geheim-123"}));
  // base64 of {"k": "other-value-entirely"}.
  EXPECT_FALSE(EchoesCredential(text_result("eyJrIjogIm90aGVyLXZhbHVlLWVudGlyZWx5In0="),
                                {"Wq9/zX+3kLm7pR2t/vB8nY4u"}));
  // .NET's System.Text.Json writes '+' as \u002B: base64 of {"t":"Kx9\u002BqPz3/..."}.
  EXPECT_TRUE(EchoesCredential(
      text_result("eyJ0IjoiS3g5XHUwMDJCcVB6My9MbTd3UjJ0XHUwMDJCdkI4blk0dSJ9"), {"Kx9+qPz3/Lm7wR2t+vB8nY4u"}));
  EXPECT_EQ(JsonStringForms("plain-ascii-value"), std::vector<std::string>{});
  EXPECT_EQ(JsonStringForms("q\"/\xc3\xa4\n"),
            (std::vector<std::string>{"q\\\"/\xc3\xa4\\n", "q\\\"\\/\xc3\xa4\\n", "q\\\"/\\u00e4\\n",
                                      "q\\\"\\/\\u00e4\\n", "q\\\"/\\u00E4\\n", "q\\u0022/\\u00E4\\n"}));
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
