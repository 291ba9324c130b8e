# pacing-lab-gui's command line: --help and --version answer without a display (Qt is given a
# platform that does not exist, so starting it would abort), and an unknown option is exit 2.
# usage: cmake -DGUI=path/to/pacing-lab-gui -DVERSION=x.y.z -P gui_arguments.cmake

set(ENV{QT_QPA_PLATFORM} "no-such-platform")
unset(ENV{DISPLAY})
execute_process(COMMAND ${GUI} --help RESULT_VARIABLE code OUTPUT_VARIABLE out TIMEOUT 20)
if(NOT code EQUAL 0 OR NOT out MATCHES "usage: pacing-lab-gui")
  message(FATAL_ERROR "--help: exit ${code}, printed: ${out}")
endif()
execute_process(COMMAND ${GUI} --version RESULT_VARIABLE code OUTPUT_VARIABLE out TIMEOUT 20)
if(NOT code EQUAL 0 OR NOT out STREQUAL "pacing-lab-gui ${VERSION}\n")
  message(FATAL_ERROR "--version: exit ${code}, printed: ${out}")
endif()
set(ENV{QT_QPA_PLATFORM} "offscreen")
execute_process(COMMAND ${GUI} --no-such-option RESULT_VARIABLE code ERROR_VARIABLE err
                TIMEOUT 20)
if(NOT code EQUAL 2 OR NOT err MATCHES "unknown option --no-such-option")
  message(FATAL_ERROR "--no-such-option: exit ${code}, printed: ${err}")
endif()
