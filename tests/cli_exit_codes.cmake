# Exit codes of pacing-lab: 2 for bad input (every defect named, nothing written), 1 for a failed
# expectation, 0 for --version.
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
execute_process(COMMAND "${LAB}" check "${SOURCE}/tests/scenarios/failing-expectation.json"
                RESULT_VARIABLE code OUTPUT_VARIABLE stdout)
if(NOT code EQUAL 1)
  message(FATAL_ERROR "a failing expectation must exit 1, got ${code}")
endif()
string(FIND "${stdout}" "/summary/completed = 3, expected 4" at)
if(at EQUAL -1)
  message(FATAL_ERROR "check must say which expectation failed:\n${stdout}")
endif()
# An expectation that holds on the scenario's seed only: check passes it, check --seeds finds the
# seeds where it fails, by seed.
execute_process(COMMAND "${LAB}" check "${SOURCE}/tests/scenarios/seed-dependent.json"
                RESULT_VARIABLE code OUTPUT_VARIABLE stdout)
if(NOT code EQUAL 0)
  message(FATAL_ERROR "seed-dependent.json holds on its own seed, got exit ${code}:\n${stdout}")
endif()
execute_process(COMMAND "${LAB}" check "${SOURCE}/tests/scenarios/seed-dependent.json" --seeds 8
                        --jobs 2
                RESULT_VARIABLE code OUTPUT_VARIABLE stdout)
string(FIND "${stdout}" "(throttle, seeds 8-15: 4 failed)" summary_at)
string(FIND "${stdout}" "seed 9: /summary/makespan = 0.516325, expected <= 0.5" seed_at)
if(NOT code EQUAL 1 OR summary_at EQUAL -1 OR seed_at EQUAL -1)
  message(FATAL_ERROR "check --seeds 8 must fail on seeds 9, 10, 14 and 15 (exit ${code}):\n${stdout}")
endif()
execute_process(COMMAND "${LAB}" check "${SOURCE}/tests/scenarios/seed-dependent.json" --seeds 0
                RESULT_VARIABLE code ERROR_VARIABLE err)
if(NOT code EQUAL 2)
  message(FATAL_ERROR "--seeds 0 is bad input (exit 2), got ${code}: ${err}")
endif()
# A sweep objective no combination meets: the files are written, and a CI job sees exit 1.
set(sweep_out "${CMAKE_CURRENT_BINARY_DIR}/unmet-objective-out")
file(REMOVE_RECURSE "${sweep_out}")
execute_process(COMMAND "${LAB}" sweep "${SOURCE}/scenarios/kgf-burst.json"
                        --grid "/client/inFlight=8,16" --replications 1 --jobs 1
                        --objective "min:makespan,completed>=1000000" --out "${sweep_out}"
                RESULT_VARIABLE code ERROR_VARIABLE err OUTPUT_VARIABLE stdout)
if(NOT code EQUAL 1)
  message(FATAL_ERROR "an unmet sweep objective must exit 1, got ${code}: ${err}")
endif()
string(FIND "${err}" "no combination meets the objective" at)
if(at EQUAL -1 OR NOT EXISTS "${sweep_out}/sweep.csv")
  message(FATAL_ERROR "an unmet objective must be said and the files written:\n${err}")
endif()
execute_process(COMMAND "${LAB}" sweep "${SOURCE}/scenarios/kgf-burst.json"
                        --grid "/client/inFlight=8,16" --replications 1 --jobs 1
                        --objective "min:makespan"
                RESULT_VARIABLE code ERROR_VARIABLE err OUTPUT_VARIABLE stdout)
if(NOT code EQUAL 0)
  message(FATAL_ERROR "a met sweep objective must exit 0, got ${code}: ${err}")
endif()
# A --metric whose pointer no run's result has: exit 2 naming the metric, nothing written.
set(metric_out "${CMAKE_CURRENT_BINARY_DIR}/missing-metric-out")
file(REMOVE_RECURSE "${metric_out}")
execute_process(COMMAND "${LAB}" sweep "${SOURCE}/scenarios/kgf-burst.json" --jobs 1
                        --metric "nobody=/hosts/nobody.example.org/refusals" --out "${metric_out}"
                RESULT_VARIABLE code ERROR_VARIABLE err OUTPUT_VARIABLE stdout)
string(FIND "${err}" "metric nobody" at)
if(NOT code EQUAL 2 OR at EQUAL -1 OR EXISTS "${metric_out}")
  message(FATAL_ERROR "a missing --metric must exit 2, name it and write nothing (${code}):\n${err}")
endif()
execute_process(COMMAND "${LAB}" --version RESULT_VARIABLE code OUTPUT_VARIABLE stdout)
if(NOT code EQUAL 0 OR NOT stdout MATCHES "pacing-lab [0-9]")
  message(FATAL_ERROR "--version: ${code} ${stdout}")
endif()
# A crowd's run prints a row per population; plot --line of an unknown name is bad input.
execute_process(COMMAND "${LAB}" run "${SOURCE}/scenarios/policy-crowd.json"
                RESULT_VARIABLE code OUTPUT_VARIABLE stdout)
if(NOT code EQUAL 0)
  message(FATAL_ERROR "a crowd's run must exit 0, got ${code}")
endif()
foreach(expected "population       clients completed" "office                10       200")
  string(FIND "${stdout}" "${expected}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "missing \"${expected}\" in:\n${stdout}")
  endif()
endforeach()
# The leaderboard: bad arguments exit 2 and write nothing; two scenarios, every strategy, two
# seeds: the Markdown, CSV (one line per scenario and strategy) and, with Qt, the picture.
set(board "${CMAKE_CURRENT_BINARY_DIR}/leaderboard-out")
file(REMOVE_RECURSE "${board}")
foreach(bad "--replications;0" "--strategies;throttle,nope")
  execute_process(COMMAND "${LAB}" leaderboard "${SOURCE}/scenarios/kgf-burst.json" ${bad}
                          --out "${board}"
                  RESULT_VARIABLE code ERROR_VARIABLE err OUTPUT_QUIET)
  if(NOT code EQUAL 2 OR EXISTS "${board}")
    message(FATAL_ERROR "leaderboard ${bad} must exit 2 and write nothing, got ${code}: ${err}")
  endif()
endforeach()
execute_process(COMMAND "${LAB}" leaderboard "${SOURCE}/scenarios/kgf-burst.json"
                        "${SOURCE}/scenarios/herd-retry-after.json" --replications 2
                        --out "${board}"
                RESULT_VARIABLE code ERROR_VARIABLE err OUTPUT_VARIABLE stdout)
if(NOT code EQUAL 0)
  message(FATAL_ERROR "leaderboard failed (${code}): ${err}")
endif()
execute_process(COMMAND "${LAB}" strategies OUTPUT_VARIABLE listed)
string(REGEX MATCHALL "\n" lines "${listed}")
list(LENGTH lines strategies)
file(STRINGS "${board}/leaderboard.csv" rows)
list(LENGTH rows count)
math(EXPR expected "1 + 2 * ${strategies}")
if(NOT count EQUAL expected)
  message(FATAL_ERROR "leaderboard.csv: ${count} lines, expected ${expected} (a header, then one per scenario and strategy)")
endif()
file(READ "${board}/leaderboard.md" markdown)
foreach(expected "## Ranking" "Strategies are ranked by" "### herd-retry-after" "fairness (Jain)")
  string(FIND "${markdown}" "${expected}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "leaderboard.md lacks \"${expected}\"")
  endif()
endforeach()
