# All dependencies come from Debian 12 packages (scripts/setup.sh installs them).
find_package(Threads REQUIRED)
find_package(PkgConfig REQUIRED)
find_package(RocksDB CONFIG REQUIRED)          # librocksdb-dev
find_package(FlatBuffers CONFIG REQUIRED)      # libflatbuffers-dev
find_program(FLATC flatc REQUIRED)             # flatbuffers-compiler
pkg_check_modules(SODIUM REQUIRED IMPORTED_TARGET libsodium)  # libsodium-dev
pkg_check_modules(RE2 REQUIRED IMPORTED_TARGET re2)  # libre2-dev: linear-time JSON Schema patterns
find_package(OpenSSL 3 REQUIRED COMPONENTS Crypto)  # libssl-dev (SHA-256 only: base/sha256.h)
find_package(nlohmann_json 3.11 CONFIG REQUIRED)  # nlohmann-json3-dev
find_package(Boost 1.74 REQUIRED)              # libboost-dev (Asio is header-only)
find_package(CLI11 CONFIG REQUIRED)            # libcli11-dev
# libvalijson-dev: header-only, with no CMake or pkg-config file in Debian 12; found by its
# header so that a missing package fails here, not in the compiler (probe AT4).
find_path(VALIJSON_INCLUDE_DIR valijson/validator.hpp REQUIRED)
if(LAS_BUILD_TESTS)
  find_package(GTest CONFIG REQUIRED)          # libgtest-dev, libgmock-dev
endif()
if(LAS_BUILD_BENCH)
  find_package(benchmark CONFIG REQUIRED)      # libbenchmark-dev
endif()
