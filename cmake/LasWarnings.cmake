# Warnings on and clean: every project target calls las_target_defaults().
add_library(las_warnings INTERFACE)
target_compile_options(las_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion
  -Wnon-virtual-dtor -Wold-style-cast -Wcast-align -Woverloaded-virtual
  -Wnull-dereference -Wimplicit-fallthrough)
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
