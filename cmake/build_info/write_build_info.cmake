# Script mode: writes the version and the git revision of SOURCE_DIR (if it is a git checkout).
set(revision "unknown")
find_package(Git QUIET)
if(GIT_FOUND)
  execute_process(COMMAND ${GIT_EXECUTABLE} -C ${SOURCE_DIR} describe --always --dirty --abbrev=12
                  OUTPUT_VARIABLE git_revision OUTPUT_STRIP_TRAILING_WHITESPACE
                  RESULT_VARIABLE git_result ERROR_QUIET)
  if(git_result EQUAL 0 AND git_revision)
    set(revision "${git_revision}")
  endif()
endif()
set(content "// Generated at build time by write_build_info.cmake.
#include \"core/build_info.h\"

namespace mnrl::core {
const char* version() { return \"${VERSION}\"; }
const char* source_revision() { return \"${revision}\"; }
}  // namespace mnrl::core
")
if(EXISTS ${OUTPUT})
  file(READ ${OUTPUT} old)
endif()
if(NOT old STREQUAL content)
  file(WRITE ${OUTPUT} "${content}")
endif()
