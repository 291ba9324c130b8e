# Bad input: exit code 2, every defect named by file and JSON Pointer, nothing written.
set(out "${CMAKE_CURRENT_BINARY_DIR}/bad-input-out")
file(REMOVE_RECURSE "${out}")
execute_process(COMMAND "${LAB}" run "${SOURCE}/tests/scenarios/invalid.json" --out "${out}"
                RESULT_VARIABLE code ERROR_VARIABLE err OUTPUT_VARIABLE stdout)
if(NOT code EQUAL 2)
  message(FATAL_ERROR "expected exit code 2, got ${code}: ${err}")
endif()
foreach(expected "invalid.json: /servers/a.org/max_concurrent_work"
                 "invalid.json: /client/inFlight: must be an integer"
                 "invalid.json: /queries/0/requests/0/host: host \"b.org\" is not declared")
  string(FIND "${err}" "${expected}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "missing \"${expected}\" in:\n${err}")
  endif()
endforeach()
if(EXISTS "${out}")
  message(FATAL_ERROR "bad input must write nothing, but ${out} exists")
endif()
execute_process(COMMAND "${LAB}" run "${SOURCE}/scenarios/kgf-burst.json" --set "/client/nope/x=1"
                RESULT_VARIABLE code ERROR_VARIABLE err)
if(NOT code EQUAL 2)
  message(FATAL_ERROR "a --set into a missing field must exit 2, got ${code}")
endif()
execute_process(COMMAND "${LAB}" run "${SOURCE}/scenarios/kgf-burst.json" --strategy nope
                RESULT_VARIABLE code ERROR_VARIABLE err)
if(NOT code EQUAL 2)
  message(FATAL_ERROR "an unknown strategy must exit 2, got ${code}")
endif()
