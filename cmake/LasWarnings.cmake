# Warnings on and clean: every project target calls las_target_defaults().
add_library(las_warnings INTERFACE)
target_compile_options(las_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion
  -Wnon-virtual-dtor -Wold-style-cast -Wcast-align -Woverloaded-virtual
  -Wimplicit-fallthrough)
# -Wno-restrict: GCC 12 at -O3 reports std::string concatenation as overlapping memcpy
# (GCC bug 105329), a false positive in libstdc++ itself.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  target_compile_options(las_warnings INTERFACE -Wno-restrict)
endif()
# Not -Wnull-dereference: at -O3 GCC 12 flags FlatBuffers' generated union accessors
# (payload_as_X() after a switch on the type) inside the library's own headers.
if(LAS_WARNINGS_AS_ERRORS)
  target_compile_options(las_warnings INTERFACE -Werror)
endif()

add_library(las_sanitizers INTERFACE)
if(LAS_SANITIZE)
  target_compile_options(las_sanitizers INTERFACE
    -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  target_link_options(las_sanitizers INTERFACE -fsanitize=address,undefined)
endif()

function(las_target_defaults target)
  target_include_directories(${target} PUBLIC ${LAS_ROOT})
  target_link_libraries(${target} PRIVATE las_warnings)
  target_link_libraries(${target} PUBLIC las_sanitizers)
endfunction()
