# memreg's tikcpp/ascendc_kernel_cmake/ascendc.cmake: where CANN's toolkit
# has the CMake module that builds AscendC kernels.  memreg emulates the
# runtime and memory of NPUs but runs no operator kernels and has no
# kernel compiler.  A build file that only includes this module (several
# of CANN's runtime samples do, and build no kernel) configures as with
# CANN; one that asks for a kernel library stops here, saying why.
function(_memreg_no_ascendc what target)
  message(FATAL_ERROR
    "${what}(${target} ...): AscendC kernels need CANN's kernel compiler; "
    "this toolkit tree is memreg's, whose emulated NPUs run no operator "
    "kernels (only runtime, memory, stream, allocator and mstx calls)")
endfunction()

function(ascendc_library target)
  _memreg_no_ascendc(ascendc_library ${target})
endfunction()

function(ascendc_fatbin_library target)
  _memreg_no_ascendc(ascendc_fatbin_library ${target})
endfunction()

function(ascendc_compile_definitions target)
  _memreg_no_ascendc(ascendc_compile_definitions ${target})
endfunction()

function(ascendc_compile_options target)
  _memreg_no_ascendc(ascendc_compile_options ${target})
endfunction()

function(ascendc_include_directories target)
  _memreg_no_ascendc(ascendc_include_directories ${target})
endfunction()
