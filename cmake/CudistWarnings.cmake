# Warnings for cudist's own targets: the build is meant to be warning-free.
function(cudist_set_warnings target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wno-unknown-pragmas>
    $<$<COMPILE_LANGUAGE:CUDA>:--compiler-options=-Wall,-Wextra,-Wno-unknown-pragmas>)
endfunction()
