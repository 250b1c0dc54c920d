# Runs one command and checks its exit status and output: a CTest test of an app's behaviour
# that needs both (PASS_REGULAR_EXPRESSION alone ignores the status).
#   cmake -DCOMMAND=<arg|arg|...> -DSTATUS=<n> [-DMATCH=<regex>] -P expect_exit.cmake
# COMMAND separates its arguments with '|' (CTest would split on ';'); MATCH is searched in
# stdout and stderr together.
string(REPLACE "|" ";" cmd "${COMMAND}")
execute_process(COMMAND ${cmd} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc STREQUAL "${STATUS}")
  message(FATAL_ERROR "exit status ${rc}, expected ${STATUS}: ${cmd}")
endif()
if(DEFINED MATCH AND NOT "${out}${err}" MATCHES "${MATCH}")
  message(FATAL_ERROR "output does not match '${MATCH}'")
endif()
