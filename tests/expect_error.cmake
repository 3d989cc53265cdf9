# Runs EXE with ARGS (a ;-list), expects exit code 2 and exactly one line on stderr
# matching REGEX.
execute_process(COMMAND ${EXE} ${ARGS} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(STRIP "${err}" err)
if(NOT rc EQUAL 2)
  message(FATAL_ERROR "exit code ${rc}, expected 2\nstderr: ${err}\nstdout: ${out}")
endif()
if(err MATCHES "\n")
  message(FATAL_ERROR "the error is not one line:\n${err}")
endif()
if(NOT err MATCHES "${REGEX}")
  message(FATAL_ERROR "the error\n  ${err}\ndoes not match\n  ${REGEX}")
endif()
message(STATUS "ok: ${err}")
