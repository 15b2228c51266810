# Embeds every JSON file under presets/ into a generated C++ source so that the Qt-free CLI and
# the GUI carry the presets inside the binary (the GUI additionally sees them as data, not code).
set(PARALLAX_PRESET_DIR "${CMAKE_SOURCE_DIR}/presets")
file(GLOB_RECURSE PARALLAX_PRESET_FILES CONFIGURE_DEPENDS "${PARALLAX_PRESET_DIR}/*.json")
set(PARALLAX_EMBEDDED_PRESETS_CPP "${CMAKE_BINARY_DIR}/generated/EmbeddedPresets.cpp")
add_custom_command(
  OUTPUT "${PARALLAX_EMBEDDED_PRESETS_CPP}"
  COMMAND ${CMAKE_COMMAND} -DPRESET_DIR=${PARALLAX_PRESET_DIR} -DOUTPUT=${PARALLAX_EMBEDDED_PRESETS_CPP}
          -P "${CMAKE_SOURCE_DIR}/cmake/GenerateEmbeddedPresets.cmake"
  DEPENDS ${PARALLAX_PRESET_FILES} "${CMAKE_SOURCE_DIR}/cmake/GenerateEmbeddedPresets.cmake"
  COMMENT "Embedding presets")
