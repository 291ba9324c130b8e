# pacing-lab plot: several results overlaid into one PNG (exit 0); bad input exits 2, names the
# file (and the JSON Pointer), and writes nothing. Leaves plot-command.png in OUT to look at.
set(work "${OUT}/plot-command")
file(REMOVE_RECURSE "${work}")
file(MAKE_DIRECTORY "${work}")
foreach(strategy throttle comunica)
  execute_process(COMMAND "${LAB}" run "${SOURCE}/scenarios/timeout-contamination.json"
                          --strategy ${strategy} --out "${work}/${strategy}"
                  RESULT_VARIABLE code OUTPUT_QUIET ERROR_VARIABLE err)
  if(NOT code EQUAL 0)
    message(FATAL_ERROR "run --strategy ${strategy} failed (${code}): ${err}")
  endif()
endforeach()

execute_process(COMMAND "${LAB}" plot "${work}/throttle/result.json" "${work}/comunica/result.json"
                        -o "${OUT}/plot-command.png"
                RESULT_VARIABLE code OUTPUT_VARIABLE stdout ERROR_VARIABLE err)
if(NOT code EQUAL 0 OR NOT EXISTS "${OUT}/plot-command.png")
  message(FATAL_ERROR "plot failed (${code}): ${err}")
endif()
if(NOT err STREQUAL "")
  message(FATAL_ERROR "plot should print nothing on stderr, printed:\n${err}")
endif()
file(SIZE "${OUT}/plot-command.png" size)
if(size LESS 20000)
  message(FATAL_ERROR "plot-command.png is suspiciously small (${size} bytes)")
endif()

# Bad input: a result with a broken series, a file that is not JSON, a missing file.
file(WRITE "${work}/broken.json"
     "{\"summary\":{\"requests\":1,\"completed\":1,\"gave_up\":0,\"refusals\":0,\"retries\":0,\"makespan\":1},\"hosts\":{\"a.org\":{\"series\":{\"queued\":[[0,1],[\"x\",2]]}}}}")
file(WRITE "${work}/not-json.json" "{ nope")
foreach(case "broken.json: /hosts/a.org/series/queued/1: must be a [t, value] pair of numbers"
             "not-json.json: not valid JSON"
             "missing.json: cannot read the file")
  string(REGEX REPLACE ":.*" "" file "${case}")
  execute_process(COMMAND "${LAB}" plot "${work}/throttle/result.json" "${work}/${file}"
                          -o "${work}/never.png"
                  RESULT_VARIABLE code ERROR_VARIABLE err OUTPUT_QUIET)
  if(NOT code EQUAL 2)
    message(FATAL_ERROR "plot with ${file} must exit 2, got ${code}: ${err}")
  endif()
  string(FIND "${err}" "${case}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "expected \"${case}\" in:\n${err}")
  endif()
  if(EXISTS "${work}/never.png")
    message(FATAL_ERROR "plot wrote ${work}/never.png despite bad input")
  endif()
endforeach()

# The fairness chart of a crowd run (and the herd with jitter, overlaid); a result without a
# crowd has nothing to draw: exit 2, naming the file, nothing written.
foreach(jitter false true)
  execute_process(COMMAND "${LAB}" run "${SOURCE}/scenarios/herd-retry-after.json"
                          --set /clients/0/rules/jitter=${jitter} --out "${work}/herd-${jitter}"
                  RESULT_VARIABLE code OUTPUT_QUIET ERROR_VARIABLE err)
  if(NOT code EQUAL 0)
    message(FATAL_ERROR "run herd-retry-after (jitter ${jitter}) failed (${code}): ${err}")
  endif()
endforeach()
execute_process(COMMAND "${LAB}" plot --fairness "${work}/herd-false/result.json"
                        "${work}/herd-true/result.json" --label lockstep --label jitter
                        -o "${OUT}/plot-fairness.png"
                RESULT_VARIABLE code ERROR_VARIABLE err OUTPUT_QUIET)
if(NOT code EQUAL 0 OR NOT EXISTS "${OUT}/plot-fairness.png" OR NOT err STREQUAL "")
  message(FATAL_ERROR "plot --fairness failed (${code}): ${err}")
endif()
execute_process(COMMAND "${LAB}" plot --fairness "${work}/throttle/result.json"
                        -o "${work}/never.png"
                RESULT_VARIABLE code ERROR_VARIABLE err OUTPUT_QUIET)
string(FIND "${err}" "throttle/result.json: /clients: no crowd with per-client figures" at)
if(NOT code EQUAL 2 OR at EQUAL -1 OR EXISTS "${work}/never.png")
  message(FATAL_ERROR "plot --fairness without a crowd must exit 2 naming the file: ${code} ${err}")
endif()

# A results database (run --db): at the whole run, the same picture as its result.json (the same
# series and markers, read back); a window finer than the stored series is drawn from the
# attempts. Bad windows and unknown runs exit 2, naming what is wrong, writing nothing.
execute_process(COMMAND "${LAB}" run "${SOURCE}/scenarios/timeout-contamination.json"
                        --db "${work}/runs.sqlite" --out "${work}/db-run"
                RESULT_VARIABLE code OUTPUT_QUIET ERROR_VARIABLE err)
if(NOT code EQUAL 0)
  message(FATAL_ERROR "run --db failed (${code}): ${err}")
endif()
foreach(input "runs.sqlite" "db-run/result.json")
  string(MAKE_C_IDENTIFIER "${input}" name)
  execute_process(COMMAND "${LAB}" plot "${work}/${input}" -o "${work}/whole-${name}.png"
                  RESULT_VARIABLE code ERROR_VARIABLE err OUTPUT_QUIET)
  if(NOT code EQUAL 0 OR NOT err STREQUAL "")
    message(FATAL_ERROR "plot ${input} failed (${code}): ${err}")
  endif()
endforeach()
execute_process(COMMAND "${CMAKE_COMMAND}" -E compare_files "${work}/whole-runs_sqlite.png"
                        "${work}/whole-db_run_result_json.png" RESULT_VARIABLE differ)
if(NOT differ EQUAL 0)
  message(FATAL_ERROR "the database's run and its result.json draw different pictures")
endif()
execute_process(COMMAND "${LAB}" plot "${work}/runs.sqlite" --window 10,10.6
                        -o "${OUT}/plot-database-window.png"
                RESULT_VARIABLE code ERROR_VARIABLE err OUTPUT_QUIET)
if(NOT code EQUAL 0 OR NOT err STREQUAL "" OR NOT EXISTS "${OUT}/plot-database-window.png")
  message(FATAL_ERROR "plot runs.sqlite --window failed (${code}): ${err}")
endif()
execute_process(COMMAND "${LAB}" plot "${work}/db-run/result.json" --window 10,10.6
                        -o "${work}/window-stored.png"
                RESULT_VARIABLE code ERROR_VARIABLE err OUTPUT_QUIET)
execute_process(COMMAND "${CMAKE_COMMAND}" -E compare_files "${OUT}/plot-database-window.png"
                        "${work}/window-stored.png" RESULT_VARIABLE differ)
if(NOT code EQUAL 0 OR differ EQUAL 0)
  message(FATAL_ERROR "a window finer than the stored series should be drawn from the attempts")
endif()
foreach(case "--window;5,1|--window X0,X1: needs 0 <= X0 < X1"
             "--run;9|runs.sqlite: run 9: no such run")
  string(REPLACE "|" ";" parts "${case}")
  list(GET parts 0 option)
  list(GET parts 1 value)
  list(GET parts 2 expected)
  execute_process(COMMAND "${LAB}" plot "${work}/runs.sqlite" ${option} ${value}
                          -o "${work}/never.png"
                  RESULT_VARIABLE code ERROR_VARIABLE err OUTPUT_QUIET)
  string(FIND "${err}" "${expected}" at)
  if(NOT code EQUAL 2 OR at EQUAL -1 OR EXISTS "${work}/never.png")
    message(FATAL_ERROR "plot ${option} ${value} must exit 2 with \"${expected}\": ${code} ${err}")
  endif()
endforeach()
execute_process(COMMAND "${LAB}" plot "${work}/db-run/result.json" --run 0 -o "${work}/never.png"
                RESULT_VARIABLE code ERROR_VARIABLE err OUTPUT_QUIET)
string(FIND "${err}" "--run: picks runs of a results database" at)
if(NOT code EQUAL 2 OR at EQUAL -1 OR EXISTS "${work}/never.png")
  message(FATAL_ERROR "plot --run without a database must exit 2: ${code} ${err}")
endif()
